"""Puts glibc's allocator where a training program's is once it has loaded its data, for the
PyTorch anchors (imported by each script that runs them, before any timing).

glibc hands a freed block of 128 KiB or more back to the kernel (mmap and munmap) until the
program frees a larger block; from then on its threshold follows the largest freed block (up to
32 MiB) and such blocks are kept for reuse. A PyTorch step that makes and drops tensors of
megabytes pays page faults for each in the first state and not in the second: Adam's step of
the MLP 784-512-512-10 at batch 64 took 12 ms fresh against 3.6 ms after loading Fashion-MNIST
(AMD EPYC, Zen 5, PyTorch 1.13). A program that loads data is in the second state; a bench of a
fixed batch would stay in the first. Setting the thresholds as the data's frees would have set
them times PyTorch as training runs it."""
import ctypes

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3


def keep_freed_memory():
    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)  # glibc's ceiling for the dynamic threshold
    libc.mallopt(M_TRIM_THRESHOLD, 64 << 20)  # twice it, as the dynamic rule sets
