#!/usr/bin/python3
"""Weft benchmark suite: each workload runs beside its anchors in the same run; prints a table.

Usage:  /usr/bin/python3 bench/run.py [--build-dir build] [--weft PATH] [--markdown]
Builds `weft`, `bench_mlp_eigen`, `bench_spawn` and `weft_startup_anchor` with CMake (Release, -O3 -march=native),
runs everything single-threaded, reports medians; then the MLP's and the convolution's anchors at
the machine's core count, their defaults (Weft has no intra-op threads yet). Prints the CPU and
each contender's GEMM library (machine.py). Exit status 0 even when targets miss.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "EIGEN_NUM_THREADS", "WEFT_NUM_THREADS"):
    os.environ[_v] = "1"  # before any child starts: every contender gets one thread

ROOT = Path(__file__).resolve().parent.parent
TORCH_PY = "/usr/bin/python3"  # Debian's python3-torch lives here, not in a pyenv python

# The targets, in one place: key -> (bound, unit). A workload passes when its figure <= bound.
TARGETS = {
    "perop": (0.5, "µs/op"),
    "startup_wall": (20.0, "ms"),
    "startup_anchor": (2.0, "× C++ main"),
    "startup_rss": (20.0, "MB"),
    "check": (100.0, "ms"),
    "mlp": (1.25, "× Eigen"),
    "seq_mlp": (1.25, "× Eigen"),
    "conv": (1.5, "× torch"),
    "graph_perop": (0.05, "µs/op"),
    "graph_loop": (0.05, "µs/op"),
    "graph_mlp": (1.10, "× Eigen"),
    "trace_gpt": (1000.0, "ms"),
}

# Sizes. A "round" runs every contender of a workload once; rounds interleave the contenders so
# that a burst of load on the shared machine hits all of them, and samples pool over rounds.
ROUNDS = 3
PEROP_OPS, PEROP_CALLS, PEROP_REPS = 1000, 20, 5
LOOP_ITERS = 20_000  # iterations of a graph loop whose body is one f32[4] add
STARTUP_RUNS, STARTUP_TORCH_RUNS = 15, 5
CHECK_LINES, CHECK_RUNS = 10_000, 11
MLP_BATCH, MLP_ITERS, MLP_REPS = 32, 100, 5
CONV_BATCH, CONV_ITERS, CONV_REPS = 8, 20, 5
GRAPH_MLP_BATCHES = (1, 32, 256)


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def median(xs):
    return statistics.median(xs) if xs else None


# ---------------------------------------------------------------- build


def build(build_dir, want_weft):
    if not (build_dir / "CMakeCache.txt").exists():
        log(f"configuring {build_dir} (Release)")
        subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja",
                        "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
    cache = (build_dir / "CMakeCache.txt").read_text()
    if "CMAKE_BUILD_TYPE:STRING=Release" not in cache:
        log(f"warning: {build_dir} is not a Release build; figures will not be representative")
    r = subprocess.run(["cmake", "--build", build_dir, "--target", "bench_mlp_eigen",
                        "bench_spawn", "weft_startup_anchor"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cannot build the anchors:\n{r.stdout}{r.stderr}")
    if not want_weft:
        return None
    r = subprocess.run(["cmake", "--build", build_dir, "--target", "weft"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        err = [l for l in r.stdout.splitlines() if "error" in l][:3]
        log("weft does not build; Weft columns will be n/a:\n  " + "\n  ".join(err))
        return None
    return build_dir / "cli" / "weft"


# ---------------------------------------------------------------- running contenders


class Failed(Exception):
    pass


def run_figures(cmd, timeout=300, threads=1):
    """Runs cmd, returns the floats it prints one per line (a trailing non-number line is kept).
    Its libraries (OpenMP, OpenBLAS, PyTorch through WEFT_BENCH_THREADS) get `threads` threads."""
    env = {**os.environ, **{v: str(threads) for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "WEFT_BENCH_THREADS", "WEFT_NUM_THREADS")}}
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        raise Failed(f"{Path(str(cmd[0])).name} exited {r.returncode}: "
                     + (r.stderr.strip().splitlines() or ["(no stderr)"])[0])
    vals, other = [], []
    for line in r.stdout.splitlines():
        try:
            vals.append(float(line))
        except ValueError:
            other.append(line)
    return vals, other


def spawn(spawner, cmd):
    """Wall ms and peak RSS MB of one child, measured by the small bench_spawn launcher."""
    r = subprocess.run([spawner, *map(str, cmd)], capture_output=True, text=True)
    wall_us, rss_kb, status = r.stdout.split()
    if int(status) != 0:
        first = [l for l in r.stderr.splitlines() if "error" in l][:1] or r.stderr.splitlines()[:1]
        raise Failed(f"{Path(str(cmd[0])).name} {cmd[1]} exited {status}: {''.join(first)}")
    return float(wall_us) / 1000, int(rss_kb) / 1024


def contend(contenders, rounds=ROUNDS):
    """contenders: {name: fn() -> list of samples}. Returns {name: samples or error string}."""
    got = {k: [] for k in contenders}
    for _ in range(rounds):
        for name, fn in contenders.items():
            if isinstance(got[name], str):
                continue
            try:
                got[name] += fn()
            except (Failed, subprocess.TimeoutExpired, OSError) as e:
                got[name] = str(e)
    return got


# ---------------------------------------------------------------- workload programs


def perop_model(ops, calls, reps, graph=False):
    body = "  x = x + a\n" * ops
    return (f"# {ops} chained adds on f32[4] in one function; prints µs per op per repetition.\n"
            + ("@function\n" if graph else "") +
            f"fn chain(x, a) {{\n{body}  return x\n}}\n"
            "x = zeros([4])\na = ones([4])\ny = chain(x, a)\n"
            f"for r in range({reps}) {{\n  t0 = perf_counter()\n"
            f"  for i in range({calls}) {{ y = chain(x, a) }}\n"
            f"  print((perf_counter() - t0) / {calls * ops} * 1000000.0)\n}}\n"
            "print(y.dtype, y[0])\n")


def loop_model(form, iters, calls, reps):
    """A graph function whose loop body is one f32[4] add: a `while` on a tensor count (a compare,
    the add and the count's add per iteration) or a `for` over range (the same three ops)."""
    if form == "while":
        head, loop, n = "n: i32[]", "  i = 0\n  while i < n {\n    x = x + a\n    i = i + 1\n  }\n", f"tensor({iters})"
    else:
        head, loop, n = "n: int", "  for i in range(n) { x = x + a }\n", str(iters)
    return (f"# a graph {form} loop of {iters} iterations; prints µs per op (3 per iteration) per repetition.\n"
            f"@function\nfn run(x: f32[4], a: f32[4], {head}) {{\n{loop}  return x\n}}\n"
            f"x = zeros([4])\na = ones([4])\nn = {n}\ny = run(x, a, n)\n"
            f"for r in range({reps}) {{\n  t0 = perf_counter()\n"
            f"  for i in range({calls}) {{ y = run(x, a, n) }}\n"
            f"  print((perf_counter() - t0) / {calls * iters * 3} * 1000000.0)\n}}\n"
            "print(y.dtype, y[0])\n")


def mlp_model(batch, iters, reps, graph=False):
    signature = "@function\nfn forward(x: f32[None, 784])" if graph else "fn forward(x)"
    return ("seed(0)\n"
            f"x = random.normal([{batch}, 784])\n"
            "w1 = random.normal([784, 512]) * 0.05\nb1 = random.normal([512]) * 0.05\n"
            "w2 = random.normal([512, 512]) * 0.05\nb2 = random.normal([512]) * 0.05\n"
            "w3 = random.normal([512, 10]) * 0.05\nb3 = random.normal([10]) * 0.05\n"
            f"{signature} {{\n  return relu(relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3\n}}\n"
            "for i in range(10) { y = forward(x) }\n"
            f"for r in range({reps}) {{\n  t0 = perf_counter()\n"
            f"  for i in range({iters}) {{ y = forward(x) }}\n"
            f"  print((perf_counter() - t0) / {iters} * 1000000.0)\n}}\n"
            "print(y.dtype, y.shape)\n")


def seq_mlp_model(batch, iters, reps):
    """The same MLP as Keras users write it: a Sequential of Dense layers, called eagerly."""
    return ("seed(0)\n"
            f"x = random.normal([{batch}, 784])\n"
            "model = Sequential([Dense(512, activation=\"relu\", input_shape=[784]),\n"
            "                    Dense(512, activation=\"relu\"), Dense(10)])\n"
            "for i in range(10) { y = model(x) }\n"
            f"for r in range({reps}) {{\n  t0 = perf_counter()\n"
            f"  for i in range({iters}) {{ y = model(x) }}\n"
            f"  print((perf_counter() - t0) / {iters} * 1000000.0)\n}}\n"
            "print(y.dtype, y.shape)\n")


def conv_model(batch, iters, reps):
    """Keras' Conv2D layer, 3x3 32->32 "same" with bias, on an NHWC [batch, 32, 32, 32] input."""
    return ("seed(0)\n"
            f"x = random.normal([{batch}, 32, 32, 32])\n"
            "conv = Conv2D(32, 3, padding=\"same\")\n"
            "for i in range(3) { y = conv(x) }\n"
            f"for r in range({reps}) {{\n  t0 = perf_counter()\n"
            f"  for i in range({iters}) {{ y = conv(x) }}\n"
            f"  print((perf_counter() - t0) / {iters} * 1000000.0)\n}}\n"
            "print(y.dtype, y.shape)\n")


# One block of the parse-and-check program, in Weft and in equivalent Python.
CHECK_WEFT = """\
# block {i}: a layer, a helper with control flow, and top-level use
module Block{i}(units: int = 4) {{
  w = Variable(ones([units, units]))
  b = Variable(zeros([units]))
  fn call(x) {{
    h = relu(x @ w + b)
    return h * 0.5 + x
  }}
}}

fn helper_{i}(x, scale=2.0) {{
  y = x * scale + 1.0
  z = sum(y) / 4.0
  if z > 0.0 {{
    y = y - z
  }} elif z < -1.0 {{
    y = y + 1.0
  }} else {{
    y = abs(y)
  }}
  for j in range(3) {{
    y = tanh(y) + 0.1 * j
  }}
  return y
}}

blk_{i} = Block{i}(4)
v_{i} = helper_{i}(ones([4]), scale=0.5 + {k})
total = total + mean(blk_{i}(v_{i})) * 2.0 - {k}.0
"""
CHECK_PY = """\
# block {i}: a layer, a helper with control flow, and top-level use
class Block{i}:
    def __init__(self, units=4):
        self.w = Variable(ones([units, units]))
        self.b = Variable(zeros([units]))

    def __call__(self, x):
        h = relu(x @ self.w + self.b)
        return h * 0.5 + x


def helper_{i}(x, scale=2.0):
    y = x * scale + 1.0
    z = sum(y) / 4.0
    if z > 0.0:
        y = y - z
    elif z < -1.0:
        y = y + 1.0
    else:
        y = abs(y)
    for j in range(3):
        y = tanh(y) + 0.1 * j
    return y


blk_{i} = Block{i}(4)
v_{i} = helper_{i}(ones([4]), scale=0.5 + {k})
total = total + mean(blk_{i}(v_{i})) * 2.0 - {k}.0
"""


def check_sources(lines):
    weft, py, i = ["total = 0.0\n"], ["total = 0.0\n"], 0
    while sum(s.count("\n") for s in weft) + CHECK_WEFT.count("\n") <= lines:
        weft.append(CHECK_WEFT.format(i=i, k=i % 3))
        py.append(CHECK_PY.format(i=i, k=i % 3))
        i += 1
    n = sum(s.count("\n") for s in weft)
    weft += [f"pad_{j} = total * 2.0 + {j}\n" for j in range(lines - n)]
    py += [f"pad_{j} = total * 2.0 + {j}\n" for j in range(lines - n)]
    return "".join(weft), "".join(py)


# ---------------------------------------------------------------- workloads


def bench_perop(weft, work):
    model = work / "perop.model"
    model.write_text(perop_model(PEROP_OPS, PEROP_CALLS, PEROP_REPS))
    contenders = {"torch": lambda: run_figures([TORCH_PY, ROOT / "bench/torch_anchors.py", "perop",
                                                PEROP_REPS, PEROP_CALLS, PEROP_OPS])[0]}
    if weft:
        contenders = {"weft": lambda: run_figures([weft, "run", model])[0], **contenders}
    return contend(contenders)


def bench_graph_perop(weft, work):
    model = work / "graph_perop.model"
    model.write_text(perop_model(PEROP_OPS, PEROP_CALLS, PEROP_REPS, graph=True))
    eager = work / "perop.model"
    eager.write_text(perop_model(PEROP_OPS, PEROP_CALLS, PEROP_REPS))
    return contend({"graph": lambda: run_figures([weft, "run", model])[0],
                    "eager": lambda: run_figures([weft, "run", eager])[0]})


def bench_graph_loop(weft, work):
    """Graph while and for-range loops against the straight-line chain of the same adds."""
    progs = {}
    for form in ("while", "for"):
        progs[form] = work / f"graph_loop_{form}.model"
        progs[form].write_text(loop_model(form, LOOP_ITERS, 5, PEROP_REPS))
    return contend({form: (lambda p=p: run_figures([weft, "run", p])[0]) for form, p in progs.items()})


def bench_graph_mlp(weft, eigen, work, batch):
    """The MLP as a graph function (one graph for every batch size) beside the Eigen anchor."""
    iters = max(10, MLP_ITERS * 32 // batch) if batch >= 32 else MLP_ITERS * 4
    model = work / f"graph_mlp_{batch}.model"
    model.write_text(mlp_model(batch, iters, MLP_REPS, graph=True))
    return contend({"graph": lambda: run_figures([weft, "run", model])[0],
                    "eigen": lambda: run_figures([eigen, MLP_REPS, iters, batch])[0]})


def bench_trace_gpt(weft, work):
    """Tracing the 24-layer transformer of examples/plan_large.model: `weft check` of it with a
    graph function over the model (traced from its annotation) minus the same check without."""
    text = (ROOT / "examples/plan_large.model").read_text()
    text = text[:text.index("\nwith plan()") + 1] + (
        "with plan() { gpt = GPT(vocab=50000, d=2048, hidden=8192, layers=24, heads=16) }\n")
    plain, traced = work / "gpt_plain.model", work / "gpt_traced.model"
    plain.write_text(text)
    traced.write_text(text + "@function\nfn forward(tokens: i32[8, 128]) { return gpt(tokens) }\n")

    def check_ms(path):
        t0 = time.perf_counter()
        subprocess.run([weft, "check", path], check=True, capture_output=True, timeout=300)
        return (time.perf_counter() - t0) * 1000.0
    return contend({"traced": lambda: [check_ms(traced) for _ in range(3)],
                    "plain": lambda: [check_ms(plain) for _ in range(3)]})


def bench_startup(weft, spawner, anchor, work):
    """print(1) beside `import torch` and beside a C++ main with weft's core libraries linked in
    whole (tests/startup/anchor.cpp: what weft loads and initialises before it runs a program)."""
    model = work / "one.model"
    model.write_text("print(1)\n")
    got = {k: [] for k in ("weft_wall", "weft_rss", "torch_wall", "torch_rss", "anchor_wall", "anchor_rss")}
    errors = {}
    for i in range(STARTUP_RUNS):
        pairs = [("weft", [weft, "run", model]), ("anchor", [anchor])] if weft else []
        if i < STARTUP_TORCH_RUNS:
            pairs.append(("torch", [TORCH_PY, "-c", "import torch"]))
        for name, cmd in pairs:
            if name in errors:
                continue
            try:
                wall, rss = spawn(spawner, cmd)
                got[name + "_wall"].append(wall)
                got[name + "_rss"].append(rss)
            except Failed as e:
                errors[name] = str(e)
    return got, errors


def bench_check(weft, spawner, work):
    src, py = check_sources(CHECK_LINES)
    model = work / "big.model"
    model.write_text(src)
    res = {"weft": [], "weft_rss": [], "cpython": []}
    for _ in range(CHECK_RUNS):  # alternate, so that load hits both alike
        t0 = time.perf_counter()
        compile(py, "big.py", "exec")
        res["cpython"].append((time.perf_counter() - t0) * 1000)
        if weft and isinstance(res["weft"], list):
            try:
                wall, rss = spawn(spawner, [weft, "check", model])
                res["weft"].append(wall)
                res["weft_rss"].append(rss)
            except Failed as e:
                res["weft"] = str(e)
    return res


def bench_mlp(weft, eigen, work):
    model = work / "mlp.model"
    model.write_text(mlp_model(MLP_BATCH, MLP_ITERS, MLP_REPS))
    contenders = {
        "eigen": lambda: run_figures([eigen, MLP_REPS, MLP_ITERS, MLP_BATCH])[0],
        "torch": lambda: run_figures([TORCH_PY, ROOT / "bench/torch_anchors.py", "mlp",
                                      MLP_REPS, MLP_ITERS, MLP_BATCH])[0],
    }
    if weft:
        def weft_mlp():
            vals, other = run_figures([weft, "run", model])
            if not other or not other[-1].startswith("f32 [32, 10]"):
                raise Failed(f"unexpected MLP result: {other[-1:]} (want f32 [32, 10])")
            return vals
        contenders = {"weft": weft_mlp, **contenders}
    return contend(contenders)


def bench_weft_vs(weft, model_text, name, expect, anchors, work):
    """A Weft program printing one figure per repetition, beside anchor commands."""
    model = work / name
    model.write_text(model_text)
    contenders = dict(anchors)
    if weft:
        def run_weft():
            vals, other = run_figures([weft, "run", model])
            if not other or not other[-1].startswith(expect):
                raise Failed(f"unexpected result: {other[-1:]} (want {expect})")
            return vals
        contenders = {"weft": run_weft, **contenders}
    return contend(contenders)


def bench_seq_mlp(weft, eigen, work):
    return bench_weft_vs(weft, seq_mlp_model(MLP_BATCH, MLP_ITERS, MLP_REPS), "seq_mlp.model", "f32 [32, 10]",
                         {"eigen": lambda: run_figures([eigen, MLP_REPS, MLP_ITERS, MLP_BATCH])[0]}, work)


def bench_conv(weft, work):
    anchor = [TORCH_PY, ROOT / "bench/torch_anchors.py", "conv", CONV_REPS, CONV_ITERS, CONV_BATCH]
    return bench_weft_vs(weft, conv_model(CONV_BATCH, CONV_ITERS, CONV_REPS), "conv.model",
                         f"f32 [{CONV_BATCH}, 32, 32, 32]", {"torch": lambda: run_figures(anchor)[0]}, work)


def bench_anchors_at(eigen, threads):
    """The MLP's and the convolution's anchors on `threads` threads (their defaults)."""
    torch = [TORCH_PY, ROOT / "bench/torch_anchors.py"]
    return contend({
        "eigen": lambda: run_figures([eigen, MLP_REPS, MLP_ITERS, MLP_BATCH], threads=threads)[0],
        "torch": lambda: run_figures([*torch, "mlp", MLP_REPS, MLP_ITERS, MLP_BATCH], threads=threads)[0],
        "torch_conv": lambda: run_figures([*torch, "conv", CONV_REPS, CONV_ITERS, CONV_BATCH], threads=threads)[0],
    })


# ---------------------------------------------------------------- report


def fmt(x, digits=3):
    if x is None:
        return "n/a"
    if isinstance(x, str):
        return "error"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:.0f}"


def verdict(key, value):
    bound, _ = TARGETS[key]
    if not isinstance(value, float):
        return "n/a"
    return "PASS" if value <= bound else "MISS"


def med(v):
    return median(v) if isinstance(v, list) and v else (v if isinstance(v, str) else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"), help="CMake build directory")
    ap.add_argument("--weft", help="use this weft binary instead of building one")
    ap.add_argument("--markdown", action="store_true", help="also print the table as Markdown")
    ap.add_argument("--json", help="write the raw samples to this file")
    ap.add_argument("--loop-grad", action="store_true",
                    help="then bench/loop_grad.py: a graph loop's gradient per step at n = 100, 1,000, 10,000")
    args = ap.parse_args()

    build_dir = Path(args.build_dir).resolve()
    weft = build(build_dir, want_weft=not args.weft)
    if args.weft:
        weft = Path(args.weft).resolve()
    eigen, spawner = build_dir / "bench/bench_mlp_eigen", build_dir / "bench/bench_spawn"
    anchor = build_dir / "tests/weft_startup_anchor"
    work = Path(tempfile.mkdtemp(prefix="weft-bench-"))

    load = os.getloadavg()[0]
    if load > 0.5 * os.cpu_count():
        log(f"warning: load average {load:.1f} on {os.cpu_count()} CPUs; figures will be inflated")
    t_start = time.time()
    log("1/6 per-op overhead ...")
    perop = bench_perop(weft, work)
    log("2/6 startup ...")
    startup, startup_err = bench_startup(weft, spawner, anchor, work)
    log("3/6 parse and check ...")
    check = bench_check(weft, spawner, work)
    log("4/6 MLP forward ...")
    mlp = bench_mlp(weft, eigen, work)
    log("5/6 Sequential MLP forward ...")
    seq = bench_seq_mlp(weft, eigen, work)
    log("6/6 Conv2D layer forward ...")
    conv = bench_conv(weft, work)
    cores = os.cpu_count()
    if cores > 1:
        log(f"the MLP's and the convolution's anchors on {cores} threads ...")
        at_cores = bench_anchors_at(eigen, cores)
    graph = {}
    if weft:
        log("graph functions: per-op overhead, MLP at batch 1/32/256, tracing the transformer ...")
        graph["perop"] = bench_graph_perop(weft, work)
        graph["loop"] = bench_graph_loop(weft, work)
        for b in GRAPH_MLP_BATCHES:
            graph[f"mlp{b}"] = bench_graph_mlp(weft, eigen, work, b)
        graph["gpt"] = bench_trace_gpt(weft, work)
    log(f"done in {time.time() - t_start:.0f} s")

    w_perop, t_perop = med(perop.get("weft")), med(perop["torch"])
    w_wall, t_wall = med(startup["weft_wall"]), med(startup["torch_wall"])
    w_rss, t_rss = med(startup["weft_rss"]), med(startup["torch_rss"])
    a_wall = med(startup["anchor_wall"])
    if "weft" in startup_err:
        w_wall = w_rss = startup_err["weft"]
    w_check, py_check = med(check["weft"]), med(check["cpython"])
    w_mlp, e_mlp, t_mlp = med(mlp.get("weft")), med(mlp["eigen"]), med(mlp["torch"])
    w_seq, e_seq = med(seq.get("weft")), med(seq["eigen"])
    w_conv, t_conv = med(conv.get("weft")), med(conv["torch"])

    def wcol(samples, m):  # the median, and the best sample (the least disturbed by load)
        best = f" (min {fmt(min(samples))})" if isinstance(samples, list) and samples else ""
        return fmt(m) + best

    def ratio(a, b):
        return a / b if isinstance(a, float) and isinstance(b, float) else None

    # Judged on the least of each, as tests/startup/startup_ratio.cpp does: load only adds time.
    least = {k: min(startup[k]) if startup[k] else None for k in ("weft_wall", "anchor_wall")}
    startup_anchor = ratio(least["weft_wall"], least["anchor_wall"])

    mlp_ratio, py = ratio(w_mlp, e_mlp), "python -c 'import torch'"
    rows = [  # workload, Weft, anchors, ratio, target key, the figure judged
        ("per-op overhead (µs/op, 1000 adds f32[4])", wcol(perop.get("weft"), w_perop),
         f"torch {fmt(t_perop)}", fmt(ratio(w_perop, t_perop)), "perop", w_perop),
        ("startup wall (ms, print(1))", wcol(startup["weft_wall"], w_wall),
         f"{py} {fmt(t_wall)}", fmt(ratio(w_wall, t_wall)), "startup_wall", w_wall),
        ("startup wall, least of each (ms, print(1))", fmt(least["weft_wall"]),
         f"C++ main with weft's core libraries {fmt(least['anchor_wall'])} (median {fmt(a_wall)})",
         fmt(startup_anchor), "startup_anchor", startup_anchor),
        ("startup peak RSS (MB)", fmt(w_rss),
         f"{py} {fmt(t_rss)}", fmt(ratio(w_rss, t_rss)), "startup_rss", w_rss),
        (f"weft check, {CHECK_LINES} lines (ms)", wcol(check["weft"], w_check),
         f"CPython compile() {fmt(py_check)}", fmt(ratio(w_check, py_check)), "check", w_check),
        (f"MLP 784-512-512-10 fwd, batch {MLP_BATCH} (µs)", wcol(mlp.get("weft"), w_mlp),
         f"Eigen {fmt(e_mlp)}, torch {fmt(t_mlp)}", fmt(mlp_ratio), "mlp", mlp_ratio),
        (f"Sequential(Dense x3) MLP fwd, batch {MLP_BATCH} (µs)", wcol(seq.get("weft"), w_seq),
         f"Eigen {fmt(e_seq)}", fmt(ratio(w_seq, e_seq)), "seq_mlp", ratio(w_seq, e_seq)),
        (f"Conv2D 3x3 32->32 same, [{CONV_BATCH},32,32,32] (µs)", wcol(conv.get("weft"), w_conv),
         f"torch {fmt(t_conv)}", fmt(ratio(w_conv, t_conv)), "conv", ratio(w_conv, t_conv)),
    ]
    if graph:
        g = graph["perop"]
        rows.append(("graph fn per-op overhead (µs/op, 1000 adds)", wcol(g.get("graph"), med(g.get("graph"))),
                     f"eager {fmt(med(g.get('eager')))}, torch {fmt(t_perop)}",
                     fmt(ratio(med(g.get("graph")), t_perop)), "graph_perop", med(g.get("graph"))))
        g = graph["loop"]
        for form in ("while", "for"):
            rows.append((f"graph {form} loop per-op overhead (µs/op, f32[4] add body)",
                         wcol(g.get(form), med(g.get(form))), f"straight-line graph {fmt(med(graph['perop'].get('graph')))}",
                         fmt(ratio(med(g.get(form)), med(graph["perop"].get("graph")))), "graph_loop", med(g.get(form))))
        for b in GRAPH_MLP_BATCHES:
            g = graph[f"mlp{b}"]
            r = ratio(med(g.get("graph")), med(g.get("eigen")))
            rows.append((f"MLP graph fn fwd, batch {b} (µs)", wcol(g.get("graph"), med(g.get("graph"))),
                         f"Eigen {fmt(med(g.get('eigen')))}", fmt(r), "graph_mlp", r))
        g = graph["gpt"]
        t = med(g.get("traced")) - med(g.get("plain")) if isinstance(med(g.get("traced")), float) else None
        rows.append(("trace 24-layer transformer (ms)", fmt(t), f"check alone {fmt(med(g.get('plain')))}",
                     "", "trace_gpt", t))
    head = ("workload", "Weft median", "anchor median(s)", "Weft/anchor", "target", "result")
    table = [head] + [(w, wv, an, ra, f"≤ {TARGETS[k][0]:g} {TARGETS[k][1]}", verdict(k, v))
                      for w, wv, an, ra, k, v in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    print()
    for j, r in enumerate(table):
        print("  ".join(c.ljust(widths[i]) for i, c in enumerate(r)).rstrip())
        if j == 0:
            print("  ".join("-" * w for w in widths))
    if isinstance(check["weft"], list) and check["weft"]:
        print(f"(weft check peak RSS {fmt(med(check['weft_rss']))} MB)")
    if cores > 1:
        e, t, tc = (med(at_cores[k]) for k in ("eigen", "torch", "torch_conv"))
        print(f"\nThe anchors at their defaults, {cores} threads (Weft on 1 thread; medians):")
        print(f"  MLP fwd, batch {MLP_BATCH} (µs): Eigen {fmt(e)}, torch {fmt(t)}; "
              f"Weft/Eigen {fmt(ratio(w_mlp, e))}, Weft/torch {fmt(ratio(w_mlp, t))}")
        print(f"  Conv2D layer (µs): torch {fmt(tc)}; Weft/torch {fmt(ratio(w_conv, tc))}")
    print("\n" + machine.describe(weft))
    errors = {**{f"perop/{k}": v for k, v in perop.items() if isinstance(v, str)},
              **{f"startup/{k}": v for k, v in startup_err.items()},
              **{f"check/{k}": v for k, v in check.items() if isinstance(v, str)},
              **{f"mlp/{k}": v for k, v in mlp.items() if isinstance(v, str)},
              **{f"seq_mlp/{k}": v for k, v in seq.items() if isinstance(v, str)},
              **{f"conv/{k}": v for k, v in conv.items() if isinstance(v, str)}}
    for k, v in errors.items():
        print(f"error in {k}: {v}")
    misses = [r[0] for r in table[1:] if r[-1] == "MISS"]
    if misses:
        print("\ntargets missed: " + "; ".join(misses))
    else:
        print("\nall targets met" if weft and not errors else "\nsome figures unavailable (n/a)")
    print(f"(medians, best sample in brackets; {ROUNDS} interleaved rounds per workload; "
          f"1 thread; MLP ratio = Weft / Eigen; check wall includes process startup; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)")
    if args.markdown:
        print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
        for r in table[1:]:
            print("| " + " | ".join(r) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps({
            "date": time.strftime("%Y-%m-%d %H:%M"), "host": platform.node(),
            "perop": perop, "startup": startup, "check": check, "mlp": mlp, "seq_mlp": seq,
            "conv": conv}, indent=1))
    if args.loop_grad:
        print()
        sys.stdout.flush()
        subprocess.run([sys.executable, ROOT / "bench/loop_grad.py", "--build-dir", build_dir], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
