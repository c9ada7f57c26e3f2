#!/usr/bin/env bash
# Installs Weft's build dependencies from Debian's packages (when missing) and builds it in build/.
# graphviz is for `weft graph -o F.svg` and `.png` (Graphviz's `dot`) only; zlib1g-dev reads gzip
# files (load_idx); dataset-fashion-mnist holds the files fashion_mnist() reads (and its test);
# fortunes is the English text examples/char_gpt trains on; libopenblas-dev and libblis-dev (with
# libblis4-serial, BLIS's single-threaded build) are GEMM libraries Weft runs where they measure
# faster than Eigen (docs/internals.md; OpenBLAS is also the libblas.so.3 that PyTorch, the
# benchmarks' anchor, then calls); libonnx-dev, libprotobuf-dev and protobuf-compiler read ONNX models
# (load_onnx, docs/onnx.md), libonnx-testdata holds ONNX's conformance tests and python3-onnx's
# onnx.checker checks exported models.
# Usage: ./setup.sh [extra cmake arguments]
set -euo pipefail
cd "$(dirname "$0")"

packages=(g++ cmake ninja-build antlr4 libantlr4-runtime-dev libeigen3-dev libyaml-cpp-dev doctest-dev
          libedit-dev libre2-dev graphviz zlib1g-dev dataset-fashion-mnist fortunes libopenblas-dev libblis-dev
          libblis4-serial libopenmpi-dev openmpi-bin libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
          python3-onnx python3-torch python3-torchvision)  # /usr/bin/python3 exports the models tests/onnx/real imports
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

mkdir -p build
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > build/configure.log 2>&1 ||
  { cat build/configure.log; exit 1; }
cmake --build build
# ONNX Runtime, which the export test checks exported models against (tests/onnx/export), from
# the npm registry: its CPU library is inside the package; the install script only fetches GPU
# files and is skipped.
if command -v npm > /dev/null && [[ ! -d build/onnxruntime/node_modules/onnxruntime-node ]]; then
  npm install --ignore-scripts --no-audit --no-fund --prefix build/onnxruntime onnxruntime-node@1.30.0 \
    > build/onnxruntime.log 2>&1 || echo "setup.sh: ONNX Runtime did not install (build/onnxruntime.log); the ONNX export test will be skipped"
fi
