#!/usr/bin/env python3
"""examples/char_gpt's speed, Weft against PyTorch, at one thread (or --threads N), in one run
(docs/benchmarks.md):

  - the train step (batch 32, context 128, 4 blocks, d_model 128, 4 heads, Adam): Weft compiled
    (`weft compile gpt_exports.model`, timed by the example's char_gpt_compiled), as a graph
    function (`weft run`) and eagerly (`--run-functions-eagerly`), against PyTorch eager and
    TorchScript (torch.jit.trace of the same nn.Module; the backward pass and Adam as in eager);
  - generation: tokens per second of the compiled `generate` (one position per call, the KV cache
    in its state, and `sample` after each position past the prompt) against PyTorch with a KV
    cache (no_grad, one position per call, argmax), both over GEN_TEXTS texts of the 127
    positions of a 128-byte context.

    /usr/bin/python3 bench/char_gpt_bench.py [--build-dir build] [--rounds 3] [--steps 5] [--threads 1]

PyTorch 1.13 (Debian's) runs attention as F._scaled_dot_product_attention (the explicit softmax
formula, the [T, T] scores materialised), later versions F.scaled_dot_product_attention. Rounds
are interleaved, each figure the median over rounds. Every figure is CPU time (user + system), so
that other work on a shared machine does not count: for PyTorch the process's own over the steps;
for compiled Weft the time char_gpt_compiled measures around its calls (the process's CPU clock;
the first step, which sizes the arena, left out); for the graph function and eager Weft a
child's, a run of N steps less a run of none, over N (so process start, reading the program,
tracing and the first step are left out). With --threads above 1, CPU time would count every
thread's, so the figures are elapsed time (the machine must then be quiet). Prints the CPU model, the figures and the ratios against the
targets (compiled <= 0.6x PyTorch eager and <= 0.8x TorchScript; graph function <= 0.8x PyTorch
eager).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import machine



def _threads():
    ap = argparse.ArgumentParser(add_help=False)
    ap.add_argument("--threads", type=int, default=1)
    return ap.parse_known_args()[0].threads


THREADS = _threads()
clock = time.process_time if THREADS == 1 else time.perf_counter
for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "WEFT_NUM_THREADS"):
    os.environ[_v] = str(THREADS)

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import warm_malloc  # noqa: E402

warm_malloc.keep_freed_memory()
torch.set_num_threads(THREADS)
ROOT = Path(__file__).resolve().parent.parent
BATCH, CONTEXT, LAYERS, D, HEADS, VOCAB = 32, 128, 4, 128, 4, 256
GEN_TEXTS = 20
sdpa = getattr(F, "scaled_dot_product_attention", None) or F._scaled_dot_product_attention

# The train step as a graph function or eagerly: one step that traces, then STEPS more.
STEP = """import "gpt_exports.model" as g
x = cast(random.uniform([{batch}, {context}], maxval=256.0, seed=1), i32)
y = cast(random.uniform([{batch}, {context}], maxval=256.0, seed=2), i32)
for i in range({steps} + 1) {{ loss = g.train_step(x, y) }}
print(loss)
"""


def causal_attention(q, k, v):
    out = sdpa(q, k, v, None, 0.0, True)
    return out[0] if isinstance(out, tuple) else out


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(D, eps=1e-5), nn.LayerNorm(D, eps=1e-5)
        self.query, self.key, self.value, self.out = (nn.Linear(D, D) for _ in range(4))
        self.ff1, self.ff2 = nn.Linear(D, 4 * D), nn.Linear(4 * D, D)

    def heads(self, layer, n):
        b, t, _ = n.shape
        return layer(n).view(b, t, HEADS, D // HEADS).transpose(1, 2)

    def forward(self, x):
        b, t, _ = x.shape
        n = self.norm1(x)
        a = causal_attention(self.heads(self.query, n), self.heads(self.key, n), self.heads(self.value, n))
        h = x + self.out(a.transpose(1, 2).reshape(b, t, D))
        return h + self.ff2(F.gelu(self.ff1(self.norm2(h))))

    # One position with a KV cache: keys and values [1, heads, CONTEXT, D / HEADS], position pos.
    def cached(self, x, keys, values, pos: int):
        n = self.norm1(x)
        keys[:, :, pos] = self.heads(self.key, n)[:, :, 0]
        values[:, :, pos] = self.heads(self.value, n)[:, :, 0]
        q = self.heads(self.query, n)
        s = (q @ keys[:, :, :pos + 1].transpose(2, 3)) * (D // HEADS) ** -0.5
        a = torch.softmax(s, dim=-1) @ values[:, :, :pos + 1]
        h = x + self.out(a.transpose(1, 2).reshape(1, 1, D))
        return h + self.ff2(F.gelu(self.ff1(self.norm2(h))))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(VOCAB, D), nn.Embedding(CONTEXT, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D, eps=1e-5)

    def forward(self, ids):
        h = self.tokens(ids) + self.positions(torch.arange(ids.shape[1]))
        for b in self.blocks:
            h = b(h)
        return self.norm(h) @ self.tokens.weight.t()   # weight tying

    def cached(self, token, caches, pos: int):
        h = self.tokens(token) + self.positions.weight[pos:pos + 1]
        for b, (k, v) in zip(self.blocks, caches):
            h = b.cached(h, k, v, pos)
        return self.norm(h) @ self.tokens.weight.t()


def torch_train_ms(forward, model, steps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randint(0, VOCAB, (BATCH, CONTEXT))
    y = torch.randint(0, VOCAB, (BATCH, CONTEXT))
    for i in range(steps + 1):
        if i == 1:
            t0 = clock()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(forward(x).reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
    return (clock() - t0) * 1e3 / steps


def torch_tokens_per_second(model):
    caches = [(torch.zeros(1, HEADS, CONTEXT, D // HEADS), torch.zeros(1, HEADS, CONTEXT, D // HEADS))
              for _ in range(LAYERS)]
    with torch.no_grad():
        t0 = clock()
        for _ in range(GEN_TEXTS):   # each text overwrites the cache's positions from 0
            token = torch.zeros(1, 1, dtype=torch.long)
            for pos in range(CONTEXT - 1):
                token = model.cached(token, caches, pos)[:, -1].argmax(-1, keepdim=True)
        return GEN_TEXTS * (CONTEXT - 1) / (clock() - t0)


def run(cmd, **kw):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, errors="replace",
                          **kw).stdout


def child_seconds(cmd, **kw):
    """The CPU time (user + system) of running cmd, or its elapsed time above one thread."""
    before, t0 = os.times(), time.perf_counter()
    run(cmd, **kw)
    after, elapsed = os.times(), time.perf_counter() - t0
    if THREADS > 1:
        return elapsed
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def weft_step_ms(weft, work, eager, steps):
    flag = ["--run-functions-eagerly"] if eager else []
    cost = []
    for n in (steps, 0):
        (work / "step.model").write_text(STEP.format(batch=BATCH, context=CONTEXT, steps=n))
        cost.append(child_seconds([weft, "run"] + flag + [work / "step.model"], cwd=work))
    return (cost[0] - cost[1]) * 1e3 / steps


def compiled_figures(work, steps):
    """The compiled train step's ms and generate's tokens per second (GEN_TEXTS texts of CONTEXT - 1
    positions), as char_gpt_compiled measures them: CPU time, or elapsed above one thread."""
    main = work / "build" / "char_gpt_compiled"
    train = run([main, "--steps", steps + 1, "--samples", 0])
    generate = run([main, "--steps", 0, "--bytes", CONTEXT, "--samples", GEN_TEXTS])
    cpu = THREADS == 1
    step = re.search(r"train step: ([0-9.]+) ms \(median of [0-9]+\), ([0-9.]+) ms of CPU", train)
    tokens = re.search(r"generate: ([0-9]+) tokens/s \([0-9]+ positions, one call each\), ([0-9]+) per second of CPU",
                       generate)
    return float(step.group(2 if cpu else 1)), float(tokens.group(2 if cpu else 1))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1, help="threads for Weft and PyTorch alike")
    args = ap.parse_args()
    weft = args.build_dir.resolve() / "cli" / "weft"
    print(f"CPU: {machine.cpu_model()}; {THREADS} thread(s); torch {torch.__version__}")
    work = Path(tempfile.mkdtemp(prefix="weft-char-gpt-"))
    try:
        for f in ("gpt.model", "gpt_exports.model", "main.cpp", "CMakeLists.txt"):
            shutil.copy(ROOT / "examples" / "char_gpt" / f, work)
        run([weft, "compile", work / "gpt_exports.model", "-o", work / "generated"])
        run(["cmake", "-S", work, "-B", work / "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", work / "build", "-j2"])
        torch.manual_seed(0)
        model = GPT()
        traced = torch.jit.trace(model, torch.randint(0, VOCAB, (BATCH, CONTEXT)))
        got = {k: [] for k in ("compiled", "graph", "torch", "torchscript", "gen_compiled", "gen_torch")}
        for r in range(args.rounds):
            train, tokens = compiled_figures(work, args.steps)
            got["compiled"].append(train)
            got["gen_compiled"].append(tokens)
            got["graph"].append(weft_step_ms(weft, work, False, args.steps))
            got["torch"].append(torch_train_ms(model, model, args.steps))
            got["torchscript"].append(torch_train_ms(traced, model, args.steps))
            got["gen_torch"].append(torch_tokens_per_second(model))
            print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in got.items()), flush=True)
        eager = weft_step_ms(weft, work, True, 2)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    m = {k: statistics.median(v) for k, v in got.items()}
    print(f"\ntrain step, batch {BATCH}, context {CONTEXT}, {LAYERS} blocks, d_model {D}, {HEADS} heads (ms):")
    print(f"  weft compiled        {m['compiled']:9.1f}   {m['compiled'] / m['torch']:.2f}x torch eager (target <= 0.6x), "
          f"{m['compiled'] / m['torchscript']:.2f}x torchscript (target <= 0.8x)")
    print(f"  weft graph function  {m['graph']:9.1f}   {m['graph'] / m['torch']:.2f}x torch eager (target <= 0.8x)")
    print(f"  weft eager           {eager:9.1f}   {eager / m['torch']:.2f}x torch eager")
    print(f"  torch eager          {m['torch']:9.1f}")
    print(f"  torchscript (trace)  {m['torchscript']:9.1f}")
    print(f"generation with a KV cache, {GEN_TEXTS} x {CONTEXT - 1} positions (tokens/s):")
    print(f"  weft compiled        {m['gen_compiled']:9.0f}   {m['gen_compiled'] / m['gen_torch']:.2f}x torch's rate")
    print(f"  torch                {m['gen_torch']:9.0f}")


if __name__ == "__main__":
    main()
