#!/usr/bin/python3
"""Imported ONNX models beside ONNX Runtime and PyTorch, in one run (docs/onnx.md, "Speed"):

  - ResNet-18 and MobileNetV2 (torchvision, random weights) on 224x224 images at batch 1 and 8,
    and the transformer encoder of tests/onnx/real (2 layers, d_model 64, 4 heads) on 8 sequences
    of 64 tokens, each exported by PyTorch (opset 17, dynamic batch: export_models.py);
  - each run as Weft eager code and as a graph function (`@function` around the imported module,
    timed with perf_counter() inside the program), compiled (`weft compile` of that function, one
    export per input shape, its driver's --time), by ONNX Runtime (onnxruntime-node, all graph
    optimizations, `THREADS` intra-op threads: bench/onnx_ort.js) and by PyTorch eager
    (torch_anchors.py model), on one thread and on the machine's core count;
  - the import time of each model (load_onnx, in the same Weft runs).

onnxruntime-node@1.30.0 is installed with npm (--ignore-scripts: its CPU library is in the
package) into BUILD/onnxruntime when it is not there yet.

Usage: /usr/bin/python3 bench/onnx.py [--build-dir build] [--threads N] [--rounds R].
Prints medians (ms per call) and the ratios to ONNX Runtime.
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
sys.path.insert(0, str(ROOT / "tests/onnx/real"))
import export_models  # noqa: E402 (after the path it lives on)

ORT = "onnxruntime-node@1.30.0"
ENV = dict(os.environ)
REPS = 3  # timed repetitions per process, each of a workload's `iters` calls

# (row, model of export_models, input shape, calls per timed repetition)
WORKLOADS = [
    ("ResNet-18 b1", "resnet18_op17", (1, 3, 224, 224), 5),
    ("ResNet-18 b8", "resnet18_op17", (8, 3, 224, 224), 1),
    ("MobileNetV2 b1", "mobilenet_v2_op17", (1, 3, 224, 224), 5),
    ("MobileNetV2 b8", "mobilenet_v2_op17", (8, 3, 224, 224), 1),
    ("Transformer b8x64", "transformer_encoder", (8, 64, 64), 10),
]
MODELS = list(dict.fromkeys(name for _, name, _, _ in WORKLOADS))

# args: MODEL.onnx SHAPE REPS ITERS. Prints the import time, then each repetition's µs per call
# eagerly and as a graph function (after a first call: the graph function's trace).
WEFT = """t0 = perf_counter()
m = load_onnx(args[0])
print("import", (perf_counter() - t0) * 1000000.0)
x = random.normal([int(d) for d in args[1].split(",")])
@function
fn infer(x) { return m(x) }
reps = int(args[2])
iters = int(args[3])
for mode in ["eager", "graph"] {
  run = m if mode == "eager" else infer
  y = run(x)
  for r in list(range(reps)) {
    t0 = perf_counter()
    for i in list(range(iters)) { y = run(x) }
    print(mode, (perf_counter() - t0) * 1000000.0 / cast(iters, f64))
  }
}
"""

# The graph function compiled: an export per input shape of one model (COMPILED.format(...)).
COMPILED = """m = load_onnx("{model}")
@function
fn infer(x) {{ return m(x) }}
{exports}
"""


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if xs else float("nan")


def labelled(text):
    """{label: [figures]} from lines `label figure`."""
    out = {}
    for line in text.splitlines():
        label, value = line.split()
        out.setdefault(label, []).append(float(value))
    return out


def figures(text):
    return [float(line) for line in text.split()]


def install_ort(build):
    pkg = build / "onnxruntime/node_modules/onnxruntime-node"
    if not pkg.exists():
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--prefix",
                        build / "onnxruntime", ORT], check=True, capture_output=True)
    return pkg


def compile_models(weft, work):
    """Builds each model's exports; returns {(model, shape): (driver, weights folder, input.npy)}."""
    import numpy as np
    drivers = {}
    for name in MODELS:
        shapes = [shape for _, n, shape, _ in WORKLOADS if n == name]
        exports = "\n".join(f'export(infer, name="b{s[0]}", signature=[TensorSpec({list(s)}, f32)])' for s in shapes)
        program = work / f"{name}.model"
        program.write_text(COMPILED.format(model=work / name / "model.onnx", exports=exports))
        gen = work / f"{name}_gen"
        machine.run([weft, "compile", program, "-o", gen, "--main"], ENV)
        machine.run(["cmake", "-S", gen, "-B", gen / "build", "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"], ENV)
        machine.run(["cmake", "--build", gen / "build", "-j2"], ENV)
        for s in shapes:
            x = work / name / f"x{s[0]}.npy"
            np.save(x, np.random.default_rng(0).standard_normal(s, dtype=np.float32))
            drivers[name, s] = (gen / f"build/b{s[0]}_main", gen / "weights", x)
    return drivers


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build-dir", default=str(ROOT / "build"))
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="the second thread count")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (processes) per contender")
    args = ap.parse_args()
    build = Path(args.build_dir).resolve()
    weft = build / "cli/weft"
    pkg = install_ort(build)
    work = Path(tempfile.mkdtemp(prefix="weft-onnx-"))
    for name in MODELS:  # exported once at its first shape: the batch axis is dynamic
        export_models.export(name, work / name, next(s for _, n, s, _ in WORKLOADS if n == name))
    (work / "time.model").write_text(WEFT)
    t0 = time.time()
    drivers = compile_models(weft, work)
    print(f"weft compile and the C++ builds (-j2) of the {len(drivers)} exports: {time.time() - t0:.0f} s")
    print(machine.describe(weft))
    print(f"ONNX Runtime: {ORT} (CPU, graph optimizations all, sequential, 1 inter-op thread)")

    imports = {}
    for threads in sorted({1, args.threads}):
        print(f"\nms per call (median of {args.rounds} rounds x {REPS} repetitions, interleaved), everything on "
              f"{threads} thread(s); ratios are to ONNX Runtime")
        print(f"{'':<19}{'eager':>9}{'graph':>9}{'compiled':>9}{'ORT':>9}{'torch':>9}{'eager/ORT':>11}"
              f"{'graph/ORT':>11}{'comp/ORT':>11}{'torch/ORT':>11}")
        for row, name, shape, iters in WORKLOADS:
            model, dims = work / name / "model.onnx", ",".join(map(str, shape))
            got = {"eager": [], "graph": [], "compiled": [], "ort": [], "torch": []}
            driver, weights, x = drivers[name, shape]
            for _ in range(args.rounds):  # interleaved, so that load falls on all alike
                w = labelled(machine.run([weft, "run", work / "time.model", model, dims, REPS, iters], ENV, threads))
                got["eager"] += w["eager"]
                got["graph"] += w["graph"]
                imports.setdefault(name, []).extend(w["import"])
                timed = machine.run([driver, "--weights", weights, "--time", REPS * iters, x, work / "y.npy"], ENV, threads)
                got["compiled"].append(float(re.search(r"time: ([0-9.]+) us/call", timed).group(1)))
                got["ort"] += figures(machine.run(["node", ROOT / "bench/onnx_ort.js", pkg, model, dims, threads,
                                                   REPS, iters], ENV, threads))
                got["torch"] += figures(machine.run([machine.TORCH_PY, ROOT / "bench/torch_anchors.py", "model", name,
                                                     REPS, iters, dims], ENV, threads))
            e, g, c, o, t = (median(got[k]) / 1000 for k in ("eager", "graph", "compiled", "ort", "torch"))
            print(f"{row:<19}{e:>9.2f}{g:>9.2f}{c:>9.2f}{o:>9.2f}{t:>9.2f}{e / o:>11.2f}{g / o:>11.2f}{c / o:>11.2f}"
                  f"{t / o:>11.2f}")
    print("\nimport (load_onnx, ms, median): " + ", ".join(
        f"{name} {median(v) / 1000:.0f}" for name, v in imports.items()) + "   (target for ResNet-18: < 1000)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
