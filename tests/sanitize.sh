#!/usr/bin/env bash
# Builds Weft with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer in build-asan/
# (tests/configure_asan.sh) and runs the whole test suite there (docs/robustness.md); then the unit
# tests that use threads under ThreadSanitizer (build-tsan/). CI runs it after the release tests.
# Usage: tests/sanitize.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
took() { echo "sanitize: $1 took $((SECONDS - $2)) s"; }
t=$SECONDS
tests/configure_asan.sh "$@"
# Only what the tests run: the benchmarks are not built.
cmake --build build-asan --target weft weft_unit_tests weft_repl_tests weft_closures_flat weft_modules_flat weft_onnx_conformance
took "ASan build" "$t"
# Any report fails the test that caused it (UBSan is fatal through -fno-sanitize-recover).
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1
# compiled/recorded and onnx/compiled build generated C++ for some ninety and a hundred graphs, none of it instrumented (it is
# built by its own CMakeLists): the release run covers it. The other tests of generated code run
# weft compile and the interpreter here, and build nothing (GENERATE_ONLY, tests/CMakeLists.txt).
# onnx/real_models runs seven PyTorch models through the ops onnx/conformance covers here.
t=$SECONDS
ctest --test-dir build-asan --output-on-failure -j2 -E '^(compiled/recorded|onnx/compiled|onnx/real_models)$'
took "ASan tests" "$t"

# ThreadSanitizer: the unit tests whose names say they use threads (interpreters on several
# threads; kernels split across threads).
t=$SECONDS
mkdir -p build-tsan
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DWEFT_SANITIZE_THREAD=ON -DWEFT_GEMM_LIBRARIES=OFF -DWEFT_PRECOMPILE_HEADERS=ON "$@" > build-tsan/configure.log 2>&1 || { cat build-tsan/configure.log; exit 1; }
cmake --build build-tsan --target weft_unit_tests
TSAN_OPTIONS=halt_on_error=1 build-tsan/tests/weft_unit_tests --test-case='*thread*'
took "TSan build and tests" "$t"
