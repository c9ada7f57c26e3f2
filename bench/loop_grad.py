#!/usr/bin/env python3
"""The gradient of an RNN-like graph loop, per step, beside PyTorch, in one run (docs/benchmarks.md).

The loop is h = tanh(h @ W + x) for n steps (h: [1, 32], W: [32, 32]) inside a graph `while`, and
the figure is value_and_grad(sum(h * h), [W]) per call divided by n, at n = 100, 1,000 and
10,000: a graph function run by the interpreter, the same function compiled (`weft compile
--main`, its driver), and PyTorch autograd on the same loop. The gradient keeps each iteration's
loop values in a stack (docs/training.md, Control flow), so the time per step must stay flat in
n: O(n), not the O(n^2) of recomputing them.

The figure is CPU time (user + system of the process, from getrusage), not wall time: on a
shared machine a long call is preempted and its wall time inflated by the load, a short one is
not, which would make a flat curve look steep. Each contender runs twice, with K calls and with
none (its startup, tracing or compiling, and one warm-up call); the difference over K * n steps
is the time per step.

Usage: /usr/bin/python3 bench/loop_grad.py [--build-dir build] [--steps 100,1000,10000]
"""
import argparse
import os
import resource
import subprocess
import tempfile
from pathlib import Path

import machine

ROOT = Path(__file__).resolve().parent.parent
TORCH_PY = "/usr/bin/python3"  # Debian's python3-torch
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "WEFT_NUM_THREADS": "1"}
ROUNDS = 3

PROGRAM = """seed(0)
w = Variable(random.normal([32, 32], seed=1) * 0.2)
x = random.normal([1, 32], seed=2)
@function
fn loop_grad(n: i32[]) {
  fn loss() {
    h = zeros([1, 32])
    i = 0
    while i < n {
      h = tanh(h @ w + x)
      i += 1
    }
    return sum(h * h)
  }
  loss, grads = value_and_grad(loss, [w])
  return loss, grads[0]
}
export(loop_grad)
if len(args) > 0 {
  n = int(args[0])
  loop_grad(n)
  for c in range(int(args[1])) { loop_grad(n) }
}
"""

TORCH = """
import sys, torch
torch.set_num_threads(1)
torch.manual_seed(0)
n, calls = int(sys.argv[1]), int(sys.argv[2])
w = (torch.randn(32, 32) * 0.2).requires_grad_()
x = torch.randn(1, 32)
def step():
    h = torch.zeros(1, 32)
    for _ in range(n):
        h = torch.tanh(h @ w + x)
    loss = (h * h).sum()
    (g,) = torch.autograd.grad(loss, [w])
    return loss, g
step()
for _ in range(calls):
    step()
"""


def cpu_seconds(cmd):
    """The CPU time (user + system) the command takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, env=ENV)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run(cmd):
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, env=ENV).stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--steps", default="100,1000,10000")
    args = ap.parse_args()
    weft = Path(args.build_dir).resolve() / "cli/weft"
    work = Path(tempfile.mkdtemp(prefix="weft-loop-grad-"))
    (work / "loop.model").write_text(PROGRAM)
    (work / "torch_loop.py").write_text(TORCH)
    run([weft, "compile", work / "loop.model", "-o", work / "gen", "--main"])
    run(["cmake", "-S", work / "gen", "-B", work / "gen/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", work / "gen/build", "-j2"])
    driver = work / "gen/build/loop_grad_main"
    print(f"{machine.cpu_model()}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; one thread everywhere")
    print("gradient of h = tanh(h @ W + x), h [1, 32], over n steps of a graph while: CPU µs per step "
          f"(median of {ROUNDS} rounds)")
    print(f"{'n':>7} {'graph':>9} {'compiled':>9} {'PyTorch':>9}")
    for n in [int(s) for s in args.steps.split(",")]:
        calls = max(2, 100_000 // n)  # 100,000 steps a run: startup is measured apart
        run([TORCH_PY, "-c", f"import numpy as np; np.save('{work}/n.npy', np.array({n}, dtype=np.int32))"])
        commands = {
            "graph": lambda k: [weft, "run", work / "loop.model", n, k],
            "compiled": lambda k: [driver, "--time", k, work / "n.npy", work / "l.npy", work / "g.npy"],
            "torch": lambda k: [TORCH_PY, work / "torch_loop.py", n, k],
        }
        got = {k: [] for k in commands}
        for _ in range(ROUNDS):  # interleaved, so that load affects all alike
            for name, command in commands.items():
                per_call = (cpu_seconds(command(calls)) - cpu_seconds(command(0))) / calls
                got[name].append(per_call * 1e6 / n)
        med = {k: sorted(v)[len(v) // 2] for k, v in got.items()}
        print(f"{n:>7} {med['graph']:>9.3f} {med['compiled']:>9.3f} {med['torch']:>9.3f}")


if __name__ == "__main__":
    main()
