"""PyTorch eager anchors, one thread (WEFT_BENCH_THREADS=N: N threads, for the rows at the
machine's core count). Run by run.py with /usr/bin/python3 (Debian's torch).

  torch_anchors.py perop REPS CALLS OPS   1 function of OPS chained `x = x + a` on f32[4]
  torch_anchors.py mlp REPS ITERS BATCH   relu(relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3
  torch_anchors.py conv REPS ITERS BATCH  conv2d 3x3 32->32 "same" + bias on [BATCH, 32, 32, 32],
                                          in the faster of NCHW and channels_last
  torch_anchors.py step REPS ITERS BATCH  one Adam(1e-3) train step of the MLP 784-512-512-10 (relu)
                                          with cross-entropy on logits
  torch_anchors.py epochs EPOCHS          that training on Fashion-MNIST (batches of 64, shuffled):
                                          the seconds of the epochs, then the test accuracy
  torch_anchors.py model NAME REPS ITERS SHAPE
                                          inference of the model NAME of tests/onnx/real/
                                          export_models.py on random input of SHAPE (2,3,64,64)

Prints one figure per repetition (microseconds per op / per forward / per step).
"""
import os
import sys
import time
from pathlib import Path

import torch

import warm_malloc

warm_malloc.keep_freed_memory()
torch.set_num_threads(int(os.environ.get("WEFT_BENCH_THREADS", "1")))
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


def mlp_model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10))


def train_step(model):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def step(reps, iters, batch):
    g = torch.Generator().manual_seed(1)
    x, y = torch.rand(batch, 784, generator=g), torch.randint(0, 10, (batch,), generator=g)
    run = train_step(mlp_model())
    for _ in range(20):
        run(x, y)
    for _ in range(reps):  # the median call in µs, as the compiled driver's --time
        calls = []
        for _ in range(iters):
            t0 = time.perf_counter()
            run(x, y)
            calls.append(time.perf_counter() - t0)
        print(sorted(calls)[iters // 2] * 1e6)


def idx(path):
    import gzip
    import numpy as np
    with gzip.open(path) as f:
        data = f.read()
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(data[3])]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * len(dims)).reshape(dims)


def epochs(count):
    root = "/usr/share/datasets/fashion-mnist/"
    load = lambda name: torch.from_numpy(idx(root + name + ".gz").copy())
    x_train = load("train-images-idx3-ubyte").reshape(-1, 784).float() / 255
    y_train = load("train-labels-idx1-ubyte").long()
    x_test = load("t10k-images-idx3-ubyte").reshape(-1, 784).float() / 255
    y_test = load("t10k-labels-idx1-ubyte").long()
    model = mlp_model()
    run = train_step(model)
    g = torch.Generator().manual_seed(0)
    t0 = time.perf_counter()
    for _ in range(count):
        order = torch.randperm(len(x_train), generator=g)
        for first in range(0, len(x_train), 64):
            batch = order[first:first + 64]
            run(x_train[batch], y_train[batch])
    print(time.perf_counter() - t0)
    with torch.no_grad():
        print((model(x_test).argmax(1) == y_test).float().mean().item())


def model(name, reps, iters, shape):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests/onnx/real"))
    import export_models
    net = export_models.build(name)
    x = torch.randn(*map(int, shape.split(",")))
    with torch.inference_mode():
        for _ in range(3):
            net(x)
        for _ in range(int(reps)):
            t0 = time.perf_counter()
            for _ in range(int(iters)):
                net(x)
            print((time.perf_counter() - t0) / int(iters) * 1e6)


if __name__ == "__main__":
    kind, *nums = sys.argv[1:]
    if kind == "model":
        model(*nums)
    else:
        {"perop": perop, "mlp": mlp, "conv": conv, "step": step, "epochs": epochs}[kind](*map(int, nums))
