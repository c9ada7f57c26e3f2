#!/usr/bin/python3
"""Exports the real models that tests/onnx/real/real_models.model imports, with PyTorch's own ONNX
exporter (Debian's python3-torch and python3-torchvision; run with /usr/bin/python3):

  - torchvision's resnet18 and mobilenet_v2 (1000 classes, on a batch of two 3x64x64 images), each at
    opset 13 with a fixed batch and at opset 17 with a dynamic batch axis;
  - an nn.TransformerEncoder (2 layers, d_model 64, 4 heads), a GRU and an LSTM.

Random weights from a fixed seed, eval() (batch norm on its running statistics, no dropout). For
each model NAME it writes DIR/NAME/model.onnx, DIR/NAME/input.npy and PyTorch's output
DIR/NAME/output.npy. Exits with 77 (the test's skip code) when torchvision is not installed.

Usage: /usr/bin/python3 export_models.py DIR [NAME...]
"""
import sys
from pathlib import Path

try:
    import numpy as np
    import torch
    import torchvision
except ImportError as e:
    print(f"skipped: {e.name} is not installed (Debian's python3-torch and python3-torchvision)")
    sys.exit(77)

BATCH = 2


class Recurrent(torch.nn.Module):
    """A GRU or LSTM over a sequence, returning its outputs at every step."""

    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(input_size=16, hidden_size=32, num_layers=1, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)


IMAGE = (BATCH, 3, 64, 64)
# name: (model constructor, input shape, opset, dynamic batch)
MODELS = {
    "resnet18_op13": (torchvision.models.resnet18, IMAGE, 13, False),
    "resnet18_op17": (torchvision.models.resnet18, IMAGE, 17, True),
    "mobilenet_v2_op13": (torchvision.models.mobilenet_v2, IMAGE, 13, False),
    "mobilenet_v2_op17": (torchvision.models.mobilenet_v2, IMAGE, 17, True),
    "transformer_encoder": (encoder, (BATCH, 10, 64), 17, True),
    "gru": (lambda: Recurrent(torch.nn.GRU), (BATCH, 10, 16), 17, True),
    "lstm": (lambda: Recurrent(torch.nn.LSTM), (BATCH, 10, 16), 17, True),
}


def build(name):
    """The model NAME, its random weights drawn from seed 0, in eval mode."""
    torch.manual_seed(0)
    return MODELS[name][0]().eval()


def export(name, folder, shape=None):
    """Writes folder/model.onnx, input.npy (of `shape`, the model's own by default) and output.npy."""
    _, own_shape, opset, dynamic = MODELS[name]
    model = build(name)
    x = torch.randn(*(shape or own_shape))
    with torch.no_grad():
        y = model(x)
    folder.mkdir(parents=True, exist_ok=True)
    axes = {"input": {0: "batch"}, "output": {0: "batch"}} if dynamic else None
    torch.onnx.export(model, x, str(folder / "model.onnx"), opset_version=opset, input_names=["input"],
                      output_names=["output"], dynamic_axes=axes)
    np.save(folder / "input.npy", x.numpy())
    np.save(folder / "output.npy", y.numpy())


def main():
    out = Path(sys.argv[1])
    for name in sys.argv[2:] or MODELS:
        export(name, out / name)
        print(name)


if __name__ == "__main__":
    main()
