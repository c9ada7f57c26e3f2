#!/usr/bin/env bash
# The ONNX export test (docs/onnx.md): export_models.model exports graph functions (each imported
# back there too); onnx.checker (Debian's python3-onnx) must accept every model and ONNX Runtime
# (onnxruntime-node, which setup.sh installs into build/onnxruntime) must compute Weft's outputs.
# Exits 77 (skipped) when either checker is missing.
#   run.sh WEFT WORK ORT_NODE_MODULES
set -euo pipefail
weft=$1 work=$2 ort=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! /usr/bin/python3 -c "import onnx.checker" 2>/dev/null; then
  echo "skipped: onnx.checker is missing (install Debian's python3-onnx)"
  exit 77
fi
if [[ ! -d $ort/onnxruntime-node ]] || ! command -v node >/dev/null; then
  echo "skipped: ONNX Runtime is missing (./setup.sh installs onnxruntime-node into build/onnxruntime)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work"
cd "$here"
out=$("$weft" run export_models.model "$work")
echo "$out"
[[ $(grep -c "round trip: true" <<< "$out") -eq 4 ]]
names=()
for f in "$work"/*.onnx; do
  /usr/bin/python3 -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" "$f"
  names+=("$(basename "$f" .onnx)")
done
echo "onnx.checker accepts ${#names[@]} models"
node ort_check.js "$ort" "$work" "${names[@]}"
