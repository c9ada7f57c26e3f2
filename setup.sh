#!/usr/bin/env bash
# Installs Weft's build dependencies from Debian's packages (when missing) and builds it in build/,
# in the order a first run needs: the packages `weft` needs, then `weft` itself, so that
# `build/cli/weft run examples/fashion_mnist.model` could run while the rest come; then the other
# packages and every other target (tests, benchmarks, plugins). Each stage prints its time.
# The main job's packages: the compiler and tools, the libraries `weft` links, doctest (CMake
# requires it when it configures), zlib1g-dev (gzip files, load_idx), dataset-fashion-mnist (the
# files fashion_mnist() reads), and libopenblas-dev, libblis-dev and libblis4-serial (BLIS's
# single-threaded build): GEMM libraries Weft runs where they measure faster than Eigen
# (docs/internals.md; OpenBLAS is also the libblas.so.3 that PyTorch, the benchmarks' anchor, then
# calls), found when CMake configures and so installed before it does.
# The rest: graphviz is for `weft graph -o F.svg` and `.png` (Graphviz's `dot`) only; fortunes is
# the English text examples/char_gpt trains on; libopenmpi-dev and openmpi-bin run programs across
# processes (the MPI plugin, docs/distributed.md); libonnx-dev, libprotobuf-dev and
# protobuf-compiler read ONNX models (load_onnx, docs/onnx.md), libonnx-testdata holds ONNX's
# conformance tests and python3-onnx's onnx.checker checks exported models; with python3-torch and
# python3-torchvision, /usr/bin/python3 exports the models tests/onnx/real imports; ONNX Runtime
# (npm's onnxruntime-node) comes last, for the ONNX export test. They install while `weft` builds;
# no target `weft` needs changes with them
# (the plugins' paths are fixed whether or not they are built), so nothing is built twice.
# Usage: ./setup.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")"

main_packages=(g++ cmake ninja-build antlr4 libantlr4-runtime-dev libeigen3-dev libyaml-cpp-dev doctest-dev
               libedit-dev libre2-dev zlib1g-dev dataset-fashion-mnist libopenblas-dev libblis-dev libblis4-serial)
other_packages=(graphviz fortunes libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev protobuf-compiler
                libonnx-testdata python3-onnx python3-torch python3-torchvision)

now() { local t=${EPOCHREALTIME/[.,]/}; echo "$((t / 100000))"; }  # in tenths of a second
started=$(now)
took() {  # took STAGE SINCE: prints the stage's wall time
  local d=$(($(now) - $2))
  printf 'setup: %-40s %4d.%d s\n' "$1" "$((d / 10))" "$((d % 10))"
}
sudo=""
[[ $(id -u) -eq 0 ]] || sudo="sudo"
missing() {  # the packages among "$@" that are not installed
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
install() {
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@"
}

t=$(now)
mapfile -t need < <(missing "${main_packages[@]}")
mapfile -t later < <(missing "${other_packages[@]}")
if ((${#need[@]} + ${#later[@]})); then
  $sudo apt-get update -qq
fi
if ((${#need[@]})); then
  install "${need[@]}"
fi
took "packages for weft (${#need[@]} missing)" "$t"

mkdir -p build
configure() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > build/configure.log 2>&1 ||
    { cat build/configure.log; exit 1; }
}
t=$(now)
configure "$@"
took "configure" "$t"

# The other packages install beside the build of weft (apt works on one core, mostly waiting on
# the disk; dpkg's lock keeps out any other apt).
apt_pid=""
if ((${#later[@]})); then
  install "${later[@]}" > build/apt-later.log 2>&1 &
  apt_pid=$!
fi
t=$(now)
cmake --build build --target weft
took "build weft" "$t"

if [[ -n $apt_pid ]]; then
  t=$(now)
  wait "$apt_pid" || { cat build/apt-later.log; exit 1; }
  took "other packages (${#later[@]} missing), after it" "$t"
  t=$(now)
  configure "$@"  # finds what they brought
  took "configure again" "$t"
fi
t=$(now)
cmake --build build
took "build the rest" "$t"
# ONNX Runtime, which the export test checks exported models against (tests/onnx/export), from
# the npm registry: its CPU library is inside the package; the install script only fetches GPU
# files and is skipped.
if command -v npm > /dev/null && [[ ! -d build/onnxruntime/node_modules/onnxruntime-node ]]; then
  t=$(now)
  npm install --ignore-scripts --no-audit --no-fund --prefix build/onnxruntime onnxruntime-node@1.30.0 \
    > build/onnxruntime.log 2>&1 || echo "setup.sh: ONNX Runtime did not install (build/onnxruntime.log); the ONNX export test will be skipped"
  took "ONNX Runtime (npm)" "$t"
fi
took "total" "$started"
