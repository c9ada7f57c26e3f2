#!/usr/bin/env bash
# Encodes the test models (tests/onnx/models/*.textproto, protobuf's text format) to .onnx with
# Debian's protobuf-compiler, and writes the two that text cannot hold: a truncated file and one
# nested deeper than the reader allows. The .onnx files are committed; run this after editing.
set -euo pipefail
cd "$(dirname "$0")/models"
proto=/usr/include/onnx/onnx.proto
for t in *.textproto; do
  protoc --encode=onnx.ModelProto -I/usr/include "$proto" < "$t" > "${t%.textproto}.onnx"
done
head -c 300 mlp.onnx > truncated.onnx
# 80 nested If nodes, each branch the next graph.
{
  echo 'ir_version: 8 opset_import { domain: "" version: 13 } graph { name: "g0" output { name: "y" }'
  for i in $(seq 1 80); do
    echo "node { op_type: \"If\" output: \"y\" attribute { name: \"then_branch\" type: GRAPH g { name: \"g$i\" output { name: \"y\" }"
  done
  for i in $(seq 1 80); do echo '} } }'; done
  echo '}'
} | protoc --encode=onnx.ModelProto -I/usr/include "$proto" > deep_subgraphs.onnx
