#!/usr/bin/env python3
"""Compiled code beside its anchors, in one run (docs/benchmarks.md):

  - the MLP 784-512-512-10 (relu) forward at batch 1, 32 and 256: `weft compile` output timed by
    its driver's --time (on the GEMM libraries Weft chose, and on Eigen alone: WEFT_GEMM=eigen),
    the hand-written Eigen anchor (bench_mlp_eigen) and PyTorch eager (Debian's python3-torch;
    OpenBLAS when libopenblas0-pthread is installed), all on one thread; then all again at the
    machine's core count (--threads; Weft's intra-op threads through WEFT_NUM_THREADS), and the
    compiled code's speed-up from one thread to that count, beside the machine's ceiling (that
    many one-thread runs at once: machine.at_once);
  - `weft compile` plus the C++ build of that MLP, and the built library's size;
  - a while loop of 10,000 scalar steps: compiled, as a graph function, and eagerly.

Usage: python3 bench/compiled.py [--build-dir build] [--threads N]. Prints medians and ratios.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import machine

ROOT = Path(__file__).resolve().parent.parent
TORCH_PY = "/usr/bin/python3"
BATCHES = [1, 32, 256]
ROUNDS = 5
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "WEFT_NUM_THREADS": "1"}

MLP = """seed(0)
w1 = Variable(random.normal([784, 512]) * 0.05)
b1 = Variable(random.normal([512]) * 0.05)
w2 = Variable(random.normal([512, 512]) * 0.05)
b2 = Variable(random.normal([512]) * 0.05)
w3 = Variable(random.normal([512, 10]) * 0.05)
b3 = Variable(random.normal([10]) * 0.05)
@function
fn forward(x: f32[None, 784]) -> f32[None, 10] { return relu(relu(x @ w1 + b1) @ w2 + b2) @ w3 + b3 }
export(forward)
@function
fn spin(n: i32[]) -> f32[] {
  s = 0.0
  i = 0
  while i < n {
    s = s * 0.999 + 1.0
    i += 1
  }
  return s
}
export(spin)
if len(args) > 0 {
  for b in [1, 32, 256] { save_npy(f"{args[0]}/x{b}.npy", random.normal([b, 784])) }
  save_npy(f"{args[0]}/n.npy", tensor(10000))
}
"""

LOOP = """{decorator}fn spin(n: i32[]) -> f32[] {{
  s = 0.0
  i = 0
  while i < n {{
    s = s * 0.999 + 1.0
    i += 1
  }}
  return s
}}
y = spin(10000)
for r in range({reps}) {{
  t0 = perf_counter()
  y = spin(10000)
  print((perf_counter() - t0) * 1000000.0)
}}
"""


def run(cmd, threads=1, gemm=None):
    return machine.run(cmd, ENV, threads, gemm)


def floats(text):
    m = re.search(r"time: ([0-9.]+) us/call", text)
    if m:
        return [float(m.group(1))]
    out = []
    for line in text.splitlines():
        try:
            out.append(float(line.split()[-1]))
        except (ValueError, IndexError):
            pass
    return out


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="the anchors' second thread count")
    args = ap.parse_args()
    build = Path(args.build_dir).resolve()
    weft, eigen = build / "cli/weft", build / "bench/bench_mlp_eigen"
    work = Path(tempfile.mkdtemp(prefix="weft-compiled-"))
    (work / "mlp.model").write_text(MLP)
    run([weft, "run", work / "mlp.model", work])

    t0 = time.time()
    run([weft, "compile", work / "mlp.model", "-o", work / "gen", "--main"])
    t1 = time.time()
    run(["cmake", "-S", work / "gen", "-B", work / "gen/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", work / "gen/build", "-j2"])
    t2 = time.time()
    lib = work / "gen/build/libmlp.a"
    print(f"weft compile: {t1 - t0:.2f} s; C++ build (cmake + ninja -j2): {t2 - t1:.2f} s; "
          f"total {t2 - t0:.2f} s; libmlp.a {lib.stat().st_size / 1024:.0f} KiB")
    print(machine.describe(weft))

    driver = work / "gen/build/forward_main"
    for threads in sorted({1, args.threads}):
        print(f"\nMLP 784-512-512-10 fwd (µs, median of {ROUNDS} interleaved rounds), everything on {threads} "
              f"thread(s); 'Eigen only': the compiled code with WEFT_GEMM=eigen")
        print(f"{'':<12}{'compiled':>10}{'Eigen only':>11}{'Eigen':>10}{'torch':>10}{'c/Eigen':>9}{'c/torch':>9}"
              f"{'Eigen-only/torch':>18}")
        for b in BATCHES:
            iters = max(20, 6400 // b)
            got = {"compiled": [], "eigen_only": [], "eigen": [], "torch": []}
            time_args = ["--time", iters, work / f"x{b}.npy", work / "y.npy"]
            for _ in range(ROUNDS):  # interleaved, so that load affects all alike
                got["compiled"].append(floats(run([driver, *time_args], threads))[-1])
                got["eigen_only"].append(floats(run([driver, *time_args], threads, gemm="eigen"))[-1])
                got["eigen"].append(floats(run([eigen, 3, iters, b], threads))[-1])
                got["torch"].append(median(floats(run([TORCH_PY, ROOT / "bench/torch_anchors.py", "mlp", 3, iters, b],
                                                      threads))))
            c, o, e, t = (median(got[k]) for k in ("compiled", "eigen_only", "eigen", "torch"))
            print(f"{'batch ' + str(b):<12}{c:>10.1f}{o:>11.1f}{e:>10.1f}{t:>10.1f}{c / e:>9.3f}{c / t:>9.3f}{o / t:>18.3f}")
    if args.threads > 1:  # one thread and N alternating in the same rounds: the load falls on both
        speedups = []
        for b in BATCHES:
            iters = max(20, 6400 // b)
            at = {1: [], args.threads: [], "at once": []}
            call = [driver, "--time", iters, work / f"x{b}.npy", work / "y.npy"]
            for _ in range(2 * ROUNDS):
                for threads in (1, args.threads):
                    at[threads].append(floats(run(call, threads))[-1])
                at["at once"].append(max(floats(o)[-1] for o in machine.at_once(call, ENV, args.threads)))
            most = args.threads * median(at[1]) / median(at["at once"])
            speedups.append(f"batch {b} {median(at[1]) / median(at[args.threads]):.2f}x (ceiling {most:.2f}x)")
        print(f"\ncompiled MLP fwd, 1 -> {args.threads} threads (medians of {2 * ROUNDS} alternating runs; the "
              f"ceiling: {args.threads} one-thread runs at once): " + "   ".join(speedups)
              + "   (target at batch 256: >= 1.8x on 2 threads)")

    loops = {"compiled": [], "graph": [], "eager": []}
    for mode, deco in (("graph", "@function\n"), ("eager", "")):
        (work / f"loop_{mode}.model").write_text(LOOP.format(decorator=deco, reps=5))
    for _ in range(3):
        loops["compiled"].append(floats(run([work / "gen/build/spin_main", "--time", 20, work / "n.npy", work / "s.npy"]))[-1])
        for mode in ("graph", "eager"):
            loops[mode].append(median(floats(run([weft, "run", work / f"loop_{mode}.model"]))))
    c, g, e = (median(loops[k]) for k in ("compiled", "graph", "eager"))
    print(f"\nwhile loop, 10,000 scalar steps (µs): compiled {c:.1f}, graph {g:.1f} ({g / c:.0f}x), "
          f"eager {e:.1f} ({e / c:.0f}x)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
