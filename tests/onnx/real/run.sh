#!/bin/sh
# The test onnx/real_models: exports the real models with PyTorch into WORK (export_models.py),
# then checks Weft's results on them (real_models.model). Exits with 77, the test's skip code,
# when PyTorch or torchvision is not installed.
# Usage: run.sh WEFT WORK
set -e
here=$(dirname "$0")
if [ ! -x /usr/bin/python3 ]; then
  echo "skipped: /usr/bin/python3 is not installed (with Debian's python3-torch and python3-torchvision)"
  exit 77
fi
/usr/bin/python3 "$here/export_models.py" "$2"
exec "$1" run "$here/real_models.model" "$2"
