#!/usr/bin/env bash
# Configures build-asan/ (docs/robustness.md): clang with AddressSanitizer, UndefinedBehaviorSanitizer
# and LeakSanitizer at -O1, and coverage for the libFuzzer targets (-DWEFT_FUZZ=ON), so that one
# build runs both the sanitized test suite (tests/sanitize.sh) and the fuzzers (tests/fuzz/run.sh).
# Installs clang and its sanitizer and fuzzer runtimes from Debian when missing.
#   tests/configure_asan.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(clang libclang-rt-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi
mkdir -p build-asan
# -O1: the sanitizers' usual trade between build time, run time and useful stack traces. GEMMs on
# Eigen alone: OpenBLAS and BLIS are not built with the sanitizers, and their buffers, kept for
# the process's life, would be reported as leaks of Weft's. The standard headers precompiled: a
# fifth less compile time.
cmake -S . -B build-asan -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DWEFT_FUZZ=ON -DWEFT_GEMM_LIBRARIES=OFF -DWEFT_PRECOMPILE_HEADERS=ON "$@" > build-asan/configure.log 2>&1 ||
  { cat build-asan/configure.log; exit 1; }
