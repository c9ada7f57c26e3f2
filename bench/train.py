#!/usr/bin/env python3
"""Training beside its anchors, in one run (docs/benchmarks.md):

  - one Adam train step of the MLP 784-512-512-10 (relu), batch 64 (--batch), cross-entropy on logits:
    `weft compile` output (its driver's --time; also with WEFT_GEMM=eigen, Eigen alone), the same
    step as a graph function in the interpreter, PyTorch eager (Debian's python3-torch with
    OpenBLAS), and the step's GEMMs alone in hand-written Eigen (bench_train_gemms), the floor; all
    on one thread, then all again at the machine's core count (--threads; Weft's intra-op threads
    through WEFT_NUM_THREADS), and the speed-up of Weft's two forms from one thread to that count,
    beside the machine's ceiling (that many one-thread compiled steps at once: machine.at_once);
  - 5 epochs of Fashion-MNIST (batches of 64): examples/train_compiled built and run, the
    interpreter's Keras fit (examples/fashion_mnist.model), and PyTorch; and what an epoch costs
    beyond its train steps: the compiled example's time outside its train_step calls, and one
    epoch of fit against the same step as a graph function called on the same batches.

Usage: /usr/bin/python3 bench/train.py [--build-dir build] [--threads N] [--batch N] [--epochs N] [--no-epochs]
Prints medians and ratios; the exit status is 0 even when a target is missed.
"""
import argparse
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import machine

ROOT = Path(__file__).resolve().parent.parent
TORCH_PY = "/usr/bin/python3"
ROUNDS = 5
ITERS = 100
ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "WEFT_NUM_THREADS": "1"}

# The step as Weft code: exported for the compiled driver, timed in the interpreter with `time`.
STEP = """seed(0)
model = Sequential([Dense(512, activation="relu", input_shape=[784]), Dense(512, activation="relu"), Dense(10)])
opt = Adam(lr=1e-3)
@function
fn train_step(x: f32[None, 784], y: i32[None]) {
  loss, grads = value_and_grad(fn() => mean(sparse_categorical_crossentropy(y, model(x), from_logits=true)),
                               model.trainable_variables)
  opt.apply(grads, model.trainable_variables)
  return loss
}
export(train_step)
if len(args) > 0 {
  seed(1)
  x = random.uniform([BATCH, 784])
  y = cast(random.uniform([BATCH]) * 10.0, i32)
  if args[0] == "time" {  # per round, the median call in µs, as the compiled driver's --time
    for i in range(20) { train_step(x, y) }
    n = int(args[2])
    for r in range(int(args[1])) {
      calls = []
      for i in range(n) {
        start = perf_counter()
        train_step(x, y)
        calls.append(perf_counter() - start)
      }
      print(sorted(calls)[n // 2] * 1e6)
    }
  } else {
    save_npy(f"{args[0]}/x.npy", x)
    save_npy(f"{args[0]}/y.npy", y)
  }
}
"""

TARGETS = {"compiled/torch": 0.5, "compiled/gemms": 1.4, "graph/torch": 0.7, "graph/compiled": 1.1,
           "epochs compiled/torch": 0.55, "epochs fit/torch": 0.7, "epoch/steps": 1.05}

# An epoch of Keras fit against the train steps it runs: the same step (loss, accuracy, Adam) as a
# graph function of the program's own, called on the same batches with the loss read each step.
# Prints, per round, the epoch's seconds and the steps' seconds.
FIT_OVERHEAD = """(x, y), (xt, yt) = fashion_mnist()
x = reshape(x, [-1, 784])
seed(0)
model = Sequential([Dense(512, activation="relu", input_shape=[784]), Dense(512, activation="relu"), Dense(10)])
model.compile(optimizer=Adam(lr=1e-3), loss=SparseCategoricalCrossentropy(from_logits=true), metrics=["accuracy"])
model.fit(x[:6400], y[:6400], epochs=1, batch_size=64, verbose=0)
opt = Adam(lr=1e-3)
@function
fn step(xb, yb) {
  logits = []
  fn batch_loss() {
    p = model(xb)
    logits.append(p)
    return mean(sparse_categorical_crossentropy(yb, p, from_logits=true))
  }
  loss, grads = value_and_grad(batch_loss, model.trainable_variables)
  opt.apply(grads, model.trainable_variables)
  return loss, mean(cast(cast(argmax(logits[0], axis=-1), i32) == cast(yb, i32), f32))
}
data = batches(x, y, 64, seed=1)
for r in range(int(args[0])) {
  start = perf_counter()
  model.fit(x, y, epochs=1, batch_size=64, verbose=0)
  epoch = perf_counter() - start
  start = perf_counter()
  for xb, yb in data {
    loss, acc = step(xb, yb)
    seen = float(loss) + float(acc)
  }
  print(epoch, perf_counter() - start)
}
"""


def run(cmd, threads=1, gemm=None):
    return machine.run(cmd, ENV, threads, gemm)


def floats(text):
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e-?\d+)?", text)]


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def verdict(name, ratio):
    target = TARGETS[name]
    return f"{ratio:.2f} (target <= {target}: {'met' if ratio <= target else 'MISSED'})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="the anchors' second thread count")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--no-epochs", action="store_true", help="only the train step")
    ap.add_argument("--batch", type=int, default=64, help="the train step's batch")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the epochs (medians)")
    args = ap.parse_args()
    build = Path(args.build_dir).resolve()
    weft, gemms = build / "cli/weft", build / "bench/bench_train_gemms"
    work = Path(tempfile.mkdtemp(prefix="weft-train-"))
    (work / "step.model").write_text(STEP.replace("BATCH", str(args.batch)))
    run([weft, "run", work / "step.model", work])
    run([weft, "compile", work / "step.model", "-o", work / "gen", "--main"])
    run(["cmake", "-S", work / "gen", "-B", work / "gen/build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
    run(["cmake", "--build", work / "gen/build", "-j2"])
    print(machine.describe(weft))

    driver = work / "gen/build/train_step_main"
    step_args = ["--time", ITERS, work / "x.npy", work / "y.npy", work / "l.npy"]
    for threads in sorted({1, args.threads}):
        got = {"compiled": [], "eigen_only": [], "graph": [], "torch": [], "gemms": []}
        for _ in range(ROUNDS):  # interleaved, so that load affects all alike
            got["compiled"].append(floats(run([driver, *step_args], threads))[-1])
            got["eigen_only"].append(floats(run([driver, *step_args], threads, gemm="eigen"))[-1])
            got["graph"].append(median(floats(run([weft, "run", work / "step.model", "time", 3, ITERS],
                                                  threads))))
            got["torch"].append(median(floats(run([TORCH_PY, ROOT / "bench/torch_anchors.py", "step", 3, ITERS, args.batch],
                                                  threads))))
            got["gemms"].append(floats(run([gemms, 3, ITERS, args.batch], threads))[-1])
        c, o, g, t, e = (median(got[k]) / 1000 for k in ("compiled", "eigen_only", "graph", "torch", "gemms"))
        print(f"\nAdam train step, MLP 784-512-512-10, batch {args.batch} (ms, median of {ROUNDS} rounds), "
              f"everything on {threads} thread(s)")
        print(f"  compiled {c:.3f} (Eigen only: {o:.3f})   graph function {g:.3f}   PyTorch {t:.3f}   "
              f"its GEMMs alone (Eigen) {e:.3f}")
        print(f"  compiled / PyTorch {verdict('compiled/torch', c / t)}   (Eigen only: {o / t:.2f})")
        print(f"  compiled / GEMMs   {verdict('compiled/gemms', c / e)}")
        print(f"  graph / PyTorch    {verdict('graph/torch', g / t)}")
        print(f"  graph / compiled   {verdict('graph/compiled', g / c)}")
    if args.threads > 1:  # one thread and N alternating in the same rounds: the load falls on both
        at = {(form, t): [] for form in ("compiled", "graph") for t in (1, args.threads)}
        ceiling = []  # args.threads one-thread compiled steps at once
        for _ in range(ROUNDS):
            for t in (1, args.threads):
                at[("compiled", t)].append(floats(run([driver, *step_args], t))[-1] / 1000)
                at[("graph", t)].append(median(floats(run([weft, "run", work / "step.model", "time", 3, ITERS],
                                                          t))) / 1000)
            ceiling.append(max(floats(o)[-1] for o in machine.at_once([driver, *step_args], ENV, args.threads)) / 1000)
        c1, cn, g1, gn = (median(at[k]) for k in (("compiled", 1), ("compiled", args.threads), ("graph", 1),
                                                  ("graph", args.threads)))
        most = args.threads * c1 / median(ceiling)
        print(f"\nthe step, 1 -> {args.threads} threads (alternating runs, medians): compiled {c1:.3f} -> {cn:.3f} ms "
              f"{c1 / cn:.2f}x, graph function {g1:.3f} -> {gn:.3f} ms {g1 / gn:.2f}x "
              f"(target at batch 256: >= 1.8x on 2 threads)")
        print(f"the machine's ceiling, {args.threads} one-thread compiled steps at once: {most:.2f}x; "
              f"compiled reaches {c1 / cn / most:.0%} of it, the graph function {g1 / gn / most:.0%}")

    if not args.no_epochs:
        example = work / "example"
        example.mkdir()
        for f in ("trainer.model", "main.cpp", "CMakeLists.txt"):
            shutil.copy(ROOT / "examples/train_compiled" / f, example)
        run([weft, "compile", example / "trainer.model", "-o", example / "generated"])
        run(["cmake", "-S", example, "-B", example / "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"])
        run(["cmake", "--build", example / "build", "-j2"])
        compiled, in_steps, torch, fit = [], [], [], []
        for _ in range(args.rounds):  # interleaved rounds, medians: a single run is noisy
            out = run([example / "build/fashion_mnist_train", "--epochs", args.epochs])
            took = re.search(r"training took ([\d.]+) s, ([\d.]+) s of it in train_step", out)
            compiled.append(float(took.group(1)))
            in_steps.append(float(took.group(2)))
            compiled_acc = float(re.search(r"test accuracy ([\d.]+)", out).group(1))
            torch_out = floats(run([TORCH_PY, ROOT / "bench/torch_anchors.py", "epochs", args.epochs]))
            torch.append(torch_out[0])
            torch_acc = torch_out[1]
            if args.epochs == 5:  # the flagship example trains 5 epochs
                out = run([weft, "run", ROOT / "examples/fashion_mnist.model"])
                fit.append(float(re.search(r"training took ([\d.]+)s", out).group(1)))
                fit_acc = float(re.search(r"test accuracy ([\d.]+)", out).group(1))
        print(f"\n{args.epochs} epochs of Fashion-MNIST, batches of 64 (s, median of {args.rounds}; test accuracy)")
        print("  runs (s): compiled " + ", ".join(f"{x:.1f}" for x in compiled) + "; PyTorch " +
              ", ".join(f"{x:.1f}" for x in torch) + ("; fit " + ", ".join(f"{x:.1f}" for x in fit) if fit else ""))
        compiled, torch_s = median(compiled), median(torch)
        fit = median(fit) if fit else None
        line = f"  compiled {compiled:.1f} ({compiled_acc:.4f})   PyTorch {torch_s:.1f} ({torch_acc:.4f})"
        if fit is not None:
            line += f"   Weft fit {fit:.1f} ({fit_acc:.4f})"
        print(line)
        print(f"  compiled / PyTorch {verdict('epochs compiled/torch', compiled / torch_s)}")
        if fit is not None:
            print(f"  fit / PyTorch      {verdict('epochs fit/torch', fit / torch_s)}")
        print(f"  compiled epochs / their train_step calls {verdict('epoch/steps', compiled / median(in_steps))}")
        (work / "fit_overhead.model").write_text(FIT_OVERHEAD)
        for threads in sorted({1, args.threads}):
            rounds = [floats(line) for line in run([weft, "run", work / "fit_overhead.model", args.rounds],
                                                   threads).splitlines()]
            epoch, steps = median([r[0] for r in rounds]), median([r[1] for r in rounds])
            print(f"  fit, one epoch on {threads} thread(s): {epoch:.2f} s, the same steps alone {steps:.2f} s: "
                  f"{verdict('epoch/steps', epoch / steps)}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
