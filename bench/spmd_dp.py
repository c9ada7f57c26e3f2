#!/usr/bin/env python3
"""Sharded execution in one process (docs/benchmarks.md, "Sharded execution"): the train step of
bench/spmd_dp.model (MLP 784-512-512-10, Adam, a graph function) data-parallel on
`mesh(batch=2)`, its two devices on two threads, against the same step unsharded on one thread;
and bench/spmd_megatron.model's step on `mesh(model=2)` (reported). Alternating round by round:

  - `WEFT_NUM_THREADS=1 weft run bench/spmd_dp.model B N adam unsharded`: one thread;
  - `weft run bench/spmd_dp.model B N adam sharded` at 2 threads: the two device threads;
  - the machine's ceiling: two one-thread unsharded runs at once (machine.at_once), two steps in
    the time of the slower one: the most two cores give this step at that moment, with nothing
    split and nothing shared.

Each run prints its median step time; the script prints each form's median over the rounds, the
data-parallel speed-up (targets: >= 1.6x at batch 256, >= 1.8x at batch 1024) and the share of
the ceiling it reaches.

Usage: /usr/bin/python3 bench/spmd_dp.py [--build-dir build] [--batch 256 1024] [--rounds 5] [--steps N]
The exit status is 0 even when a target is missed.
"""
import argparse
import os
import re
from pathlib import Path

import machine
import train

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
TARGETS = {256: 1.6, 1024: 1.8}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--batch", type=int, nargs="+", default=[256, 1024])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=0, help="timed steps per run (default: 300 at batch 256, scaled)")
    args = ap.parse_args()
    weft = Path(args.build_dir).resolve() / "cli/weft"
    print(machine.describe(weft))

    def ms(output):
        return float(re.search(r"([\d.]+) ms", output).group(1))

    for batch in args.batch:
        steps = args.steps or max(40, 300 * 256 // batch)
        dp = [weft, "run", ROOT / "bench/spmd_dp.model", batch, steps, "adam"]
        got = {"unsharded, 1 thread": [], "mesh(batch=2), 2 device threads": [],
               "two 1-thread unsharded runs at once": []}
        for _ in range(args.rounds):  # alternating, so that the machine's load falls on all alike
            got["unsharded, 1 thread"].append(ms(machine.run([*dp, "unsharded"], ENV, 1)))
            got["mesh(batch=2), 2 device threads"].append(ms(machine.run([*dp, "sharded"], ENV, 2)))
            got["two 1-thread unsharded runs at once"].append(
                max(ms(o) for o in machine.at_once([*dp, "unsharded"], ENV, 2)))
        medians = {k: train.median(v) for k, v in got.items()}
        print(f"\nData-parallel Adam step, MLP 784-512-512-10, batch {batch}: ms per step "
              f"(median of {steps} steps per run, median of {args.rounds} alternating rounds)")
        for k, v in got.items():
            print(f"  {k:38s} {medians[k]:8.2f}   (rounds: {', '.join(f'{x:.2f}' for x in v)})")
        one = medians["unsharded, 1 thread"]
        speedup = one / medians["mesh(batch=2), 2 device threads"]
        ceiling = 2 * one / medians["two 1-thread unsharded runs at once"]
        target = TARGETS.get(batch)
        verdict = f" (target >= {target}x: {'met' if speedup >= target else 'MISSED'})" if target else ""
        print(f"  speed-up on mesh(batch=2) {speedup:.2f}x{verdict}")
        print(f"  the machine's ceiling, two independent steps at once: {ceiling:.2f}x; "
              f"the devices reach {speedup / ceiling:.0%} of it")
        megatron = machine.run([weft, "run", ROOT / "bench/spmd_megatron.model", batch, steps, "adam"], ENV, 2)
        print("  Megatron on mesh(model=2), interleaved with the unsharded step on 2 threads: " + megatron.strip())


if __name__ == "__main__":
    main()
