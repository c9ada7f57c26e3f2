#!/usr/bin/env bash
# Builds a libFuzzer target in build-asan/ (tests/configure_asan.sh: clang, the sanitizers and
# coverage, as the sanitized tests use) and runs it (docs/robustness.md):
#   tests/fuzz/run.sh TARGET [SECONDS] [LIBFUZZER OPTIONS...]
# TARGET is check, run, gen, npy, idx, graph_diff, graph_text, saved, names or onnx; SECONDS defaults to 600. The corpus grows in
# build-asan/corpus/TARGET, seeded from the tests and examples; a crash, leak, timeout or
# out-of-memory input is written to build-asan/findings/TARGET/. To replay one:
#   build-asan/tests/fuzz/fuzz_TARGET build-asan/findings/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: tests/fuzz/run.sh check|run|gen|npy|idx|graph_diff|graph_text|saved|names|onnx [SECONDS] [LIBFUZZER OPTIONS...]}
seconds=${2:-600}
shift $(($# < 2 ? $# : 2))

root=$PWD
[[ -f build-asan/build.ninja ]] || tests/configure_asan.sh
cmake --build build-asan --target "fuzz_$target"

corpus=build-asan/corpus/$target
findings=build-asan/findings/$target
mkdir -p "$corpus" "$findings" "build-asan/work/$target"
dict=()
case $target in
  check|run)
    cp -n tests/lang/*.model tests/lang/*/*.model tests/errors/*.model tests/errors/*/*.model examples/*.model \
      stdlib/*.model "$corpus/" 2>/dev/null || true
    # Short inputs are mutated faster; 16 KiB still nests far past every depth limit.
    dict=(-dict="$root/tests/fuzz/weft.dict" -max_len=16384) ;;
  # Its inputs are the generator's choices: any bytes do as seeds; its own reproducers are built in.
  gen)
    cp -n tests/lang/*.model tests/errors/*.model "$corpus/" 2>/dev/null || true
    dict=(-max_len=4096) ;;
  npy) cp -n tests/fixtures/*.npy "$corpus/" ;;
  # Small IDX files, plain and gzipped, and CSV files.
  idx) cp -n tests/fixtures/data/* "$corpus/" ;;
  graph_text)
    cp -n tests/fuzz/graphs/*.txt "$corpus/"
    dict=(-dict="$root/tests/fuzz/graph.dict" -max_len=16384) ;;
  # A manifest, then "#graph" and a graph text (tests/fuzz/fuzz_saved.cpp).
  saved)
    cp -n tests/fuzz/saved/*.yaml "$corpus/"
    dict=(-dict="$root/tests/fuzz/saved.dict" -max_len=16384) ;;
  # Names separated by \x1e, for a saved model compiled to C++ (tests/fuzz/fuzz_names.cpp).
  names)
    cp -n tests/fuzz/names/* "$corpus/"
    dict=(-dict="$root/tests/fuzz/names.dict" -max_len=4096) ;;
  # The importer's test models, good and hostile, and a few of ONNX's own node tests.
  onnx)
    cp -n tests/onnx/models/*.onnx "$corpus/"
    for t in relu conv_with_strides_padding gemm_default_matrix_bias if loop11 lstm_defaults; do
      f=/usr/share/libonnx-testdata/data/node/test_$t/model.onnx
      [[ -f $f ]] && cp -n "$f" "$corpus/$t.onnx"
    done
    dict=(-max_len=8192) ;;
esac

# Programs may import files by relative path: they run in a scratch folder of their own.
cd "build-asan/work/$target"
exec "$root/build-asan/tests/fuzz/fuzz_$target" "$root/$corpus" "${dict[@]}" -max_total_time="$seconds" \
  -timeout=20 -rss_limit_mb=2560 -artifact_prefix="$root/$findings/" -print_final_stats=1 "$@"
