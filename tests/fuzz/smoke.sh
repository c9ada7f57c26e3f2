#!/usr/bin/env bash
# CI's fuzz smoke run (docs/robustness.md): every libFuzzer target for a short while from its
# seeds, through run.sh; any crash, leak or timeout fails the run.
#   tests/fuzz/smoke.sh [SECONDS PER TARGET, default 60]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
for target in check run gen npy idx graph_diff graph_text saved names onnx; do
  tests/fuzz/run.sh "$target" "$seconds"
done
