#!/usr/bin/python3
"""Generated code against what a user would pick instead, in one process.

  vs_ref.py KIND THREADS ROUNDS RUNS GFLOP LABEL=COMMAND...

KIND is the reference: `conv` (torch conv2d 1x64x56x56, 64 filters 3x3,
pad 1), `dense` (numpy.dot on 1024x1024 float32 a and b.T: OpenBLAS), or
`first` (the first command, the others compared with it).
The reference and each COMMAND (a shell command that ends its output with
`median T ms`, as ir-run --repeat and ocl-bench print) take turns, ROUNDS
times: the reference's median over RUNS calls, then each command; the
ratio (reference time over the command's) is taken per round, so that a
round where the shared machine is slow slows both sides alike
(research/perf.md: two-thread runs here are bimodal).  Both sides get
THREADS threads (torch.set_num_threads, OPENBLAS_NUM_THREADS,
POCL_MAX_PTHREAD_COUNT); nothing is pinned to a CPU: ir-run's host thread
and POCL's worker are two threads where torch computes on its caller's,
and pinning both to one core measured their switching, not the kernels
(issue 28, item 5).  Prints the median GFLOP/s of each and the median
ratio with its range over the rounds; asserts nothing.

Debian's torch and numpy import only under /usr/bin/python3; the
reference's OpenBLAS autodetects its kernels (OPENBLAS_CORETYPE unset: set,
it forces AVX2 at half speed here).
"""
import os
import re
import statistics
import subprocess
import sys
import time

kind, threads, rounds, runs, gflop = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    int(sys.argv[4]), float(sys.argv[5])
cmds = [a.split("=", 1) for a in sys.argv[6:]]
os.environ.pop("OPENBLAS_CORETYPE", None)
os.environ["OPENBLAS_NUM_THREADS"] = str(threads)
os.environ["POCL_MAX_PTHREAD_COUNT"] = str(threads)

try:
    if kind == "first":
        pass
    elif kind == "conv":
        import torch
        torch.set_num_threads(threads)
        x, w = torch.randn(1, 64, 56, 56), torch.randn(64, 64, 3, 3)

        def ref():
            with torch.no_grad():
                torch.nn.functional.conv2d(x, w, padding=1)
    else:
        import numpy
        rng = numpy.random.default_rng(1)
        a = rng.random((1024, 1024), dtype=numpy.float32)
        b = rng.random((1024, 1024), dtype=numpy.float32)

        def ref():
            numpy.dot(a, b.T)
except ImportError as e:
    print(f"  ({kind}: no reference: {e}; install python3-torch / python3-numpy)")
    sys.exit(0)


def ref_ms():
    if kind == "first":
        return cmd_ms(cmds[0][1])
    ref()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        ref()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def cmd_ms(cmd):
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    m = re.findall(r"median ([0-9.]+) ms", p.stdout + p.stderr)
    if p.returncode or not m:
        return None
    return float(m[-1])


refs, got = [], {label: [] for label, _ in cmds}
for _ in range(rounds):
    r = ref_ms()
    if r is None:
        print(f"  {cmds[0][0]}: failed")
        sys.exit(0)
    refs.append(r)
    for label, cmd in cmds[kind == "first":]:
        t = cmd_ms(cmd)
        got[label].append((r, t))

name = {"conv": "torch conv2d", "dense": "numpy.dot (OpenBLAS)"}.get(kind, cmds[0][0])
print(f"  {name:<30} {threads} thr {gflop / statistics.median(refs) * 1e3:8.1f} GFLOP/s")
for label, _ in cmds[kind == "first":]:
    pairs = [(r, t) for r, t in got[label] if t]
    if not pairs:
        print(f"  {label:<30} failed")
        continue
    ratios = sorted(r / t for r, t in pairs)
    med = statistics.median(t for _, t in pairs)
    print(f"  {label:<30} {threads} thr {gflop / med * 1e3:8.1f} GFLOP/s  {statistics.median(ratios):5.2f}x "
          f"[{ratios[0]:.2f}-{ratios[-1]:.2f}] over {len(ratios)} rounds")
