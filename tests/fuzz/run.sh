#!/usr/bin/env bash
# Builds the libFuzzer targets in build-fuzz/ with clang (installing clang and its fuzzer runtime
# from Debian when missing) and runs one of them (docs/robustness.md):
#   tests/fuzz/run.sh TARGET [SECONDS] [LIBFUZZER OPTIONS...]
# TARGET is check, run, gen, npy, idx, graph_diff, graph_text, saved or names; SECONDS defaults to 600. The corpus grows in
# build-fuzz/corpus/TARGET, seeded from the tests and examples; a crash, leak, timeout or
# out-of-memory input is written to build-fuzz/findings/TARGET/. To replay one:
#   build-fuzz/tests/fuzz/fuzz_TARGET build-fuzz/findings/TARGET/crash-...
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${1:?usage: tests/fuzz/run.sh check|run|gen|npy|idx|graph_diff|graph_text|saved|names [SECONDS] [LIBFUZZER OPTIONS...]}
seconds=${2:-600}
shift $(($# < 2 ? $# : 2))

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

root=$PWD
mkdir -p build-fuzz
if [[ ! -f build-fuzz/build.ninja ]]; then
  # -O1: the sanitizers' usual trade between speed and useful stack traces.
  CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DWEFT_FUZZ=ON -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" > build-fuzz/configure.log 2>&1 || { cat build-fuzz/configure.log; exit 1; }
fi
cmake --build build-fuzz --target "fuzz_$target"

corpus=build-fuzz/corpus/$target
findings=build-fuzz/findings/$target
mkdir -p "$corpus" "$findings" "build-fuzz/work/$target"
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
esac

# Programs may import files by relative path: they run in a scratch folder of their own.
cd "build-fuzz/work/$target"
exec "$root/build-fuzz/tests/fuzz/fuzz_$target" "$root/$corpus" "${dict[@]}" -max_total_time="$seconds" \
  -timeout=20 -rss_limit_mb=2560 -artifact_prefix="$root/$findings/" -print_final_stats=1 "$@"
