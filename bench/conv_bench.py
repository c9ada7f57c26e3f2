"""Weft's conv2d against PyTorch's, one thread each, in one run.

    /usr/bin/python3 bench/conv_bench.py [--build-dir build] [--rounds 7] [--all]

The target workloads: Conv2D 3x3, 32 -> 32 channels, input [8, 32, 32, 32], "same" padding, f32,
and a first layer, 3 -> 16 channels on [8, 32, 32, 3].
Weft's side is bench_conv (bench/conv_bench.cpp: ops::conv2d on NHWC tensors, built here if
needed); PyTorch's is F.conv2d on the same sizes in NCHW (its default) and channels_last. Only
the convolution is timed on both sides (no layout conversions). The contenders run in
interleaved rounds so that load on a shared machine hits them alike; each figure is the median
of all samples (ms per conv). --all adds a few other shapes for context. Target: Weft <= 1.0x
PyTorch's best layout on both target workloads.
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
    os.environ[_v] = "1"  # before torch loads

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import warm_malloc  # noqa: E402

warm_malloc.keep_freed_memory()
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.0
TARGETED = 2  # the first two workloads
REPS, ITERS = 3, 20  # per round: REPS samples, each the mean of ITERS convs

# (label, N, H, W, C, KH, KW, COUT, STRIDE, PADDING); the first two are the target workloads.
WORKLOADS = [
    ("3x3 32->32 [8,32,32,32] same", 8, 32, 32, 32, 3, 3, 32, 1, "same"),
    ("3x3 3->16 [8,32,32,3] same", 8, 32, 32, 3, 3, 3, 16, 1, "same"),
    ("3x3 64->128 [8,16,16,64] s2 same", 8, 16, 16, 64, 3, 3, 128, 2, "same"),
    ("1x1 64->64 [8,16,16,64]", 8, 16, 16, 64, 1, 1, 64, 1, "valid"),
    ("5x5 16->32 [8,28,28,16] valid", 8, 28, 28, 16, 5, 5, 32, 1, "valid"),
]


def build(build_dir):
    if not (build_dir / "CMakeCache.txt").exists():
        subprocess.run(["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
                       check=True, stdout=subprocess.DEVNULL)
    r = subprocess.run(["cmake", "--build", build_dir, "--target", "bench_conv"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"cannot build bench_conv:\n{r.stdout}{r.stderr}")
    return build_dir / "bench" / "bench_conv"


def weft_samples(exe, w):
    _, n, h, wd, c, kh, kw, co, s, pad = w
    cmd = [exe, REPS, ITERS, n, h, wd, c, kh, kw, co, s, pad]
    out = subprocess.run(list(map(str, cmd)), capture_output=True, text=True,
                         check=True).stdout
    return [float(l) for l in out.splitlines() if not l.startswith("median")]


def torch_samples(w, channels_last):
    _, n, h, wd, c, kh, kw, co, s, pad = w
    x, k = torch.randn(n, c, h, wd), torch.randn(co, c, kh, kw) * 0.1
    if channels_last:
        x, k = x.to(memory_format=torch.channels_last), k.to(memory_format=torch.channels_last)
    if pad == "same" and s == 1 and kh % 2 == 1 and kw % 2 == 1:
        conv = lambda: F.conv2d(x, k, stride=s, padding=(kh // 2, kw // 2))
    elif pad == "same":  # TF's asymmetric padding is outside PyTorch's conv: time the symmetric one
        conv = lambda: F.conv2d(x, k, stride=s, padding=((kh - 1) // 2, (kw - 1) // 2))
    else:
        conv = lambda: F.conv2d(x, k, stride=s)
    for _ in range(3):
        conv()
    samples = []
    for _ in range(REPS):
        t0 = time.perf_counter()
        for _ in range(ITERS):
            conv()
        samples.append((time.perf_counter() - t0) / ITERS * 1e3)
    return samples


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--all", action="store_true", help="also time a few other shapes")
    args = ap.parse_args()
    exe = build(args.build_dir.resolve())
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}; ms per conv, median of "
          f"{args.rounds * REPS} samples\n")
    print(f"{'workload':36} {'weft':>8} {'torch':>8} {'torch CL':>9} {'weft/best':>10}")
    medians = {}
    for w in WORKLOADS if args.all else WORKLOADS[:TARGETED]:
        got = {"weft": [], "nchw": [], "cl": []}
        for _ in range(args.rounds):
            got["weft"] += weft_samples(exe, w)
            got["nchw"] += torch_samples(w, False)
            got["cl"] += torch_samples(w, True)
        m = {k: statistics.median(v) for k, v in got.items()}
        ratio = m["weft"] / min(m["nchw"], m["cl"])
        verdict = "" if w not in WORKLOADS[:TARGETED] else ("  ok" if ratio <= TARGET else f"  MISSED (target {TARGET}x)")
        print(f"{w[0]:36} {m['weft']:8.3f} {m['nchw']:8.3f} {m['cl']:9.3f} {ratio:9.2f}x{verdict}")
        medians[w[0]] = m["weft"]
    cores = os.cpu_count()
    if cores > 1:  # PyTorch at its default, every core, beside Weft's one thread
        torch.set_num_threads(cores)
        print(f"\ntorch on {cores} threads (weft's medians above, on 1 thread)")
        for w in WORKLOADS if args.all else WORKLOADS[:TARGETED]:
            got = {"nchw": [], "cl": []}
            for _ in range(args.rounds):
                got["nchw"] += torch_samples(w, False)
                got["cl"] += torch_samples(w, True)
            m = {k: statistics.median(v) for k, v in got.items()}
            print(f"{w[0]:36} {medians[w[0]]:8.3f} {m['nchw']:8.3f} {m['cl']:9.3f} "
                  f"{medians[w[0]] / min(m['nchw'], m['cl']):9.2f}x")
    weft = args.build_dir.resolve() / "cli/weft"
    print("\n" + machine.describe(weft if weft.exists() else None))


if __name__ == "__main__":
    main()
