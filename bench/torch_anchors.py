"""PyTorch eager anchors, one thread. Run by run.py with /usr/bin/python3 (Debian's torch).

  torch_anchors.py perop REPS CALLS OPS   1 function of OPS chained `x = x + a` on f32[4]
  torch_anchors.py mlp REPS ITERS BATCH   relu(relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3
  torch_anchors.py conv REPS ITERS BATCH  conv2d 3x3 32->32 "same" + bias on [BATCH, 32, 32, 32],
                                          in the faster of NCHW and channels_last

Prints one figure per repetition (microseconds per op / per forward).
"""
import sys
import time

import torch

torch.set_num_threads(1)
torch.set_num_interop_threads(1)


def perop(reps, calls, ops):
    ns = {}
    exec("def chain(x, a):\n" + "    x = x + a\n" * ops + "    return x\n", ns)
    chain = ns["chain"]
    x, a = torch.zeros(4), torch.ones(4)
    chain(x, a)
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            chain(x, a)
        print((time.perf_counter() - t0) / (calls * ops) * 1e6)


def mlp(reps, iters, batch):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(batch, 784, generator=g)
    w1, b1 = torch.randn(784, 512, generator=g) * 0.05, torch.randn(512, generator=g) * 0.05
    w2, b2 = torch.randn(512, 512, generator=g) * 0.05, torch.randn(512, generator=g) * 0.05
    w3, b3 = torch.randn(512, 10, generator=g) * 0.05, torch.randn(10, generator=g) * 0.05

    def forward(x):
        return torch.relu(torch.relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3

    for _ in range(10):
        forward(x)
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(iters):
            forward(x)
        print((time.perf_counter() - t0) / iters * 1e6)


def conv(reps, iters, batch):
    g = torch.Generator().manual_seed(0)
    w, b = torch.randn(32, 32, 3, 3, generator=g) * 0.05, torch.randn(32, generator=g) * 0.05
    layouts = {"nchw": torch.randn(batch, 32, 32, 32, generator=g)}
    layouts["channels_last"] = layouts["nchw"].contiguous(memory_format=torch.channels_last)
    wl = {"nchw": w, "channels_last": w.contiguous(memory_format=torch.channels_last)}

    def timed(name):
        x = layouts[name]
        for _ in range(3):
            torch.nn.functional.conv2d(x, wl[name], b, padding=1)
        t0 = time.perf_counter()
        for _ in range(iters):
            torch.nn.functional.conv2d(x, wl[name], b, padding=1)
        return (time.perf_counter() - t0) / iters * 1e6

    for _ in range(reps):
        print(min(timed("nchw"), timed("channels_last")))


if __name__ == "__main__":
    kind, *nums = sys.argv[1:]
    {"perop": perop, "mlp": mlp, "conv": conv}[kind](*map(int, nums))
