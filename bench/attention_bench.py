"""Weft's fused attention forward + backward against PyTorch's, one thread each, in one run.

    /usr/bin/python3 bench/attention_bench.py [--build-dir build] [--rounds 3]

Workload: [1, 4, T, 64] f32 (4 heads, d = 64), T = 1024 (the target: Weft <= 1.0x PyTorch) and
T = 4096 (peak memory). PyTorch 1.13 (Debian's) has the op only as
F._scaled_dot_product_attention, which runs the explicit formula (its [T, T] scores
materialised); later versions' F.scaled_dot_product_attention is used when present. Both sides
run in interleaved rounds (each figure the median, ms per forward + backward); peak memory is each
process's maximum RSS: for Weft bench_spawn's, minus that of a T = 64 run; for PyTorch, in a
child, minus its RSS before the inputs exist.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import machine

for _v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "WEFT_NUM_THREADS"):
    os.environ[_v] = "1"

ROOT = Path(__file__).resolve().parent.parent

TORCH_CHILD = r"""
import resource, sys, time, torch, torch.nn.functional as F
t, reps, iters, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
sys.path.insert(0, sys.argv[5])
import warm_malloc
warm_malloc.keep_freed_memory()
torch.set_num_threads(threads)
sdpa = getattr(F, "scaled_dot_product_attention", None) or F._scaled_dot_product_attention
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
q, k, v, do = (torch.randn(1, 4, t, 64, requires_grad=i < 3) for i in range(4))
def step():
    out = sdpa(q, k, v)
    out = out[0] if isinstance(out, tuple) else out
    out.backward(do)
step()
for _ in range(reps):
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    print((time.perf_counter() - t0) / iters * 1e3)
print("peak_kb", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base)
"""


def build(build_dir):
    r = subprocess.run(["cmake", "--build", build_dir, "--target", "bench_attention", "bench_spawn"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cannot build bench_attention:\n{r.stdout}{r.stderr}")
    return build_dir / "bench" / "bench_attention", build_dir / "bench" / "bench_spawn"


def weft(exe, t, reps, iters):
    out = subprocess.run([str(exe), str(reps), str(iters), "1", "4", str(t), "64"], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return [float(l) for l in out if not l.startswith("median")]


def weft_peak_kb(exe, spawn, t):
    """Peak RSS of one forward + backward at T, minus that of the same run at T = 64 (the baseline)."""
    def peak(n):
        out = subprocess.run([str(spawn), str(exe), "1", "1", "1", "4", str(n), "64"], capture_output=True, text=True,
                             check=True).stdout.split()
        return int(out[1])
    return peak(t) - peak(64)


def torch_run(t, reps, iters, threads=1):
    out = subprocess.run([sys.executable, "-c", TORCH_CHILD, str(t), str(reps), str(iters), str(threads),
                          str(Path(__file__).resolve().parent)], capture_output=True, text=True, check=True).stdout.splitlines()
    return [float(l) for l in out if not l.startswith("peak")], int(out[-1].split()[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    exe, spawn = build(args.build_dir.resolve())
    for t, reps, iters in [(1024, 3, 2), (4096, 1, 1)]:
        got = {"weft": [], "torch": []}
        for _ in range(args.rounds):
            got["weft"] += weft(exe, t, reps, iters)
            s, torch_kb = torch_run(t, reps, iters)
            got["torch"] += s
        m = {k: statistics.median(v) for k, v in got.items()}
        print(f"T={t}: weft {m['weft']:.1f} ms, torch {m['torch']:.1f} ms, weft/torch {m['weft'] / m['torch']:.2f}x; "
              f"peak memory over the baseline: weft +{weft_peak_kb(exe, spawn, t) / 1024:.1f} MB, "
              f"torch +{torch_kb / 1024:.1f} MB")
        cores = os.cpu_count()
        if cores > 1:  # PyTorch at its default, every core, beside Weft's one thread
            at_cores = statistics.median(sum((torch_run(t, reps, iters, cores)[0] for _ in range(args.rounds)), []))
            print(f"  torch on {cores} threads {at_cores:.1f} ms, weft (1 thread) / torch {m['weft'] / at_cores:.2f}x")
    weft_exe = args.build_dir.resolve() / "cli/weft"
    print("\n" + machine.describe(weft_exe if weft_exe.exists() else None))

if __name__ == "__main__":
    main()
