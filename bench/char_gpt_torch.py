"""examples/char_gpt trained by PyTorch from the same initial weights on the same batches: the
validation loss after N steps, Weft's beside PyTorch's (target: within 1%), and the time per
train step of each.

    /usr/bin/python3 bench/char_gpt_torch.py [--steps 20] [--batch 32] [--layers 4] [--d-model 128]
                                             [--context 128] [--build-dir build]

Weft runs the example with an OUT folder (it writes its initial weights, one .npy per variable
path, the training and validation windows and its validation loss); this script builds the same
network in PyTorch — token + position embeddings, pre-norm blocks (LayerNorm eps 1e-5, 4 heads,
causal attention, exact gelu), the token table tied to the output layer — loads the weights and
takes the same Adam steps (Keras' form, as Weft's: eps 1e-7 outside the bias-corrected square
root), batches in order, one thread. The validation loss is the mean cross-entropy over the
validation windows, as fit's (equal batches).
"""
import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "WEFT_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parent.parent
sdpa = getattr(F, "scaled_dot_product_attention", None) or F._scaled_dot_product_attention


def attention(q, k, v):
    out = sdpa(q, k, v, is_causal=True)
    return out[0] if isinstance(out, tuple) else out


def forward(w, x, layers, heads):
    b, t = x.shape
    p = "char_gpt."
    h = w[p + "embed.token_embedding.embeddings"][x] + w[p + "embed.position_embedding.embeddings"][:t]
    d = h.shape[-1]
    for i in range(layers):
        blk = f"{p}blocks.{i}."
        n = F.layer_norm(h, (d,), w[blk + "norm1.gamma"], w[blk + "norm1.beta"], eps=1e-5)

        def heads_of(name):
            k = w[blk + f"attention.{name}_dense.kernel"]
            y = n @ k.reshape(d, -1) + w[blk + f"attention.{name}_dense.bias"].reshape(-1)
            return y.view(b, t, heads, -1).transpose(1, 2)

        a = attention(heads_of("query"), heads_of("key"), heads_of("value"))
        wo = w[blk + "attention.output_dense.kernel"]
        h = h + a.transpose(1, 2).reshape(b, t, -1) @ wo.reshape(-1, d) + w[blk + "attention.output_dense.bias"]
        n = F.layer_norm(h, (d,), w[blk + "norm2.gamma"], w[blk + "norm2.beta"], eps=1e-5)
        f = F.gelu(n @ w[blk + "ff1.kernel"] + w[blk + "ff1.bias"])
        h = h + f @ w[blk + "ff2.kernel"] + w[blk + "ff2.bias"]
    h = F.layer_norm(h, (d,), w[p + "norm.gamma"], w[p + "norm.beta"], eps=1e-5)
    return h @ w[p + "embed.token_embedding.embeddings"].T


def loss_of(w, x, y, layers, heads):
    logits = forward(w, x, layers, heads)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--context", type=int, default=128)
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        subprocess.run([str(args.build_dir / "cli" / "weft"), "run", "char_gpt.model", str(args.steps), str(args.batch),
                        str(args.layers), str(args.d_model), str(args.context), "/usr/share/games/fortunes/", out],
                       cwd=ROOT / "examples" / "char_gpt", check=True, stdout=subprocess.DEVNULL)
        weft_seconds = time.perf_counter() - t0
        files = {f[:-4]: np.load(os.path.join(out, f)) for f in os.listdir(out)}
    weft_loss = float(files.pop("val_loss"))
    data = {k: torch.tensor(files.pop(k), dtype=torch.long) for k in ("x", "y", "xv", "yv")}
    w = {k: torch.tensor(v, requires_grad=True) for k, v in files.items()}
    m = {k: torch.zeros_like(v) for k, v in w.items()}
    s = {k: torch.zeros_like(v) for k, v in w.items()}
    lr, b1, b2, eps = 1e-3, 0.9, 0.999, 1e-7
    t0 = time.perf_counter()
    for step in range(args.steps):
        sl = slice(step * args.batch, (step + 1) * args.batch)
        loss = loss_of(w, data["x"][sl], data["y"][sl], args.layers, 4)
        grads = torch.autograd.grad(loss, list(w.values()))
        with torch.no_grad():
            t = step + 1
            alpha = lr * (1 - b2 ** t) ** 0.5 / (1 - b1 ** t)
            for (k, v), g in zip(w.items(), grads):
                m[k] += (g - m[k]) * (1 - b1)
                s[k] += (g * g - s[k]) * (1 - b2)
                v -= alpha * m[k] / (s[k].sqrt() + eps)
    torch_step = (time.perf_counter() - t0) / args.steps
    with torch.no_grad():
        torch_loss = float(loss_of(w, data["xv"], data["yv"], args.layers, 4))
    rel = abs(weft_loss - torch_loss) / torch_loss
    print(f"validation loss after {args.steps} steps: weft {weft_loss:.4f}, torch {torch_loss:.4f} "
          f"(relative difference {rel * 100:.3f}%, target <= 1%: {'ok' if rel <= 0.01 else 'MISSED'})")
    print(f"torch eager: {torch_step * 1e3:.0f} ms per train step; weft run (whole program, fit's graph-function "
          f"steps and the sampling): {weft_seconds:.1f} s")


if __name__ == "__main__":
    main()
