"""What a bench ran on, printed by each bench script: the CPU model, the GEMM library of each
contender (Weft's `weft info`; PyTorch's BLAS and the libblas.so.3 it loads; Eigen's own), and
the thread counts. Imported by the bench scripts; `python3 bench/machine.py [WEFT]` prints it."""
import os
import subprocess
import sys
from pathlib import Path

TORCH_PY = "/usr/bin/python3"
LIBBLAS = "/usr/lib/x86_64-linux-gnu/libblas.so.3"


def run(cmd, env, threads=1, gemm=None):
    """cmd's stdout, in `env` with its libraries (Weft, OpenMP, OpenBLAS, PyTorch) on `threads`
    threads and WEFT_GEMM=gemm when given."""
    env = {**env, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads),
           "WEFT_BENCH_THREADS": str(threads), "WEFT_NUM_THREADS": str(threads)}
    if gemm:
        env["WEFT_GEMM"] = gemm
    return subprocess.run([str(c) for c in cmd], check=True, capture_output=True, text=True, env=env).stdout


def at_once(cmd, env, copies):
    """The stdout of `copies` one-thread runs of cmd started together. Their slowest time against
    one run alone is the most `copies` cores give that work at that moment, with nothing split
    and nothing shared: the ceiling of a speed-up on that many threads (on a virtual machine whose
    other vCPUs are busy elsewhere, well under the count)."""
    env = {**env, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "WEFT_BENCH_THREADS": "1",
           "WEFT_NUM_THREADS": "1"}
    runs = [subprocess.Popen([str(c) for c in cmd], stdout=subprocess.PIPE, text=True, env=env)
            for _ in range(copies)]
    outs = [r.communicate()[0] for r in runs]
    for r in runs:
        if r.returncode:
            raise subprocess.CalledProcessError(r.returncode, cmd)
    return outs


def cpu_model():
    """As `weft info` names it (stdlib/runtime/cpu_name.h): the model name, then family, model and
    stepping, which tell apart CPUs a virtual machine names alike ("AMD EPYC")."""
    fields = {}
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if not line.strip():
            break  # the first processor's block
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name", "unknown CPU")
    if "cpu family" in fields:
        name += f" (family {fields['cpu family']}, model {fields.get('model', '')}, stepping {fields.get('stepping', '')})"
    return name


def torch_blas():
    """PyTorch's BLAS as its build reports it, and the libblas.so.3 (Debian alternative) it loads."""
    code = ("import torch, re; s = torch.__config__.show(); "
            "m = re.search(r'BLAS_INFO=([^,\\n]*)', s); print(m.group(1) if m else '?')")
    try:
        info = subprocess.run([TORCH_PY, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "PyTorch not available"
    return f"BLAS_INFO={info}, libblas.so.3 -> {os.path.realpath(LIBBLAS)}"


def weft_gemm(weft):
    """`weft info`: the GEMM libraries found and which one runs each class of shapes."""
    return subprocess.run([str(weft), "info"], capture_output=True, text=True, check=True).stdout.rstrip()


def describe(weft=None):
    lines = [f"CPU: {cpu_model()} ({os.cpu_count()} CPUs); load average {os.getloadavg()[0]:.1f}",
             f"PyTorch: {torch_blas()}",
             "Eigen anchors: Eigen's own GEMM (OpenMP threads when run at more than one thread)",
             "Weft's threads: its own pool of intra-op threads (WEFT_NUM_THREADS); its GEMM libraries on one each"]
    if weft:
        lines.append("Weft: " + weft_gemm(weft).replace("\n", "\n  "))
    return "\n".join(lines)


if __name__ == "__main__":
    print(describe(sys.argv[1] if len(sys.argv) > 1 else None))
