"""bench/h100.sh's baselines and reference (python3 with torch, on the
device machine): fp32 with TF32 off, as a user who wants fp32 would run.

    h100_torch.py time                       cuBLAS SGEMM 4096^3 and cuDNN conv2d,
                                             median of 50 calls (CUDA events)
    h100_torch.py err KIND OUT.npy IN...     relative error ||out - ref|| / ||ref||
                                             of ir-run's output against torch in
                                             float64 (KIND dense or conv)
"""
import sys

import numpy as np
import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def median_ms(f, n=50):
    for _ in range(5):
        f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[n // 2]


def timings():
    d = "cuda"
    print("torch %s, cuDNN %s, %s" % (torch.__version__, torch.backends.cudnn.version(),
                                      torch.cuda.get_device_name()))
    x = torch.randn(4096, 4096, device=d)
    w = torch.randn(4096, 4096, device=d)
    ms = median_ms(lambda: torch.nn.functional.linear(x, w))
    print("BASE dense4096 %.4f ms %.0f GFLOP/s" % (ms, 2 * 4096**3 / ms / 1e6))
    for name, n, c in (("conv1x64", 1, 64), ("conv8x256", 8, 256)):
        x = torch.randn(n, c, 56, 56, device=d)
        w = torch.randn(c, c, 3, 3, device=d)
        torch.backends.cudnn.benchmark = True
        ms = median_ms(lambda: torch.nn.functional.conv2d(x, w, padding=1))
        fl = 2 * n * c * c * 9 * 56 * 56
        print("BASE %s %.4f ms %.0f GFLOP/s" % (name, ms, fl / ms / 1e6))


def err(kind, out, ins):
    o = torch.from_numpy(np.load(out)).double()
    a, b = (torch.from_numpy(np.load(p)).double().cuda() for p in ins)
    if kind == "dense":
        ref = a @ b.T
    elif kind == "conv":
        ref = torch.nn.functional.conv2d(a, b, padding=1)
    else:  # conv4c: NCHW4c input and output, OIHW4o weight
        n, c4, h, w_, _ = a.shape
        a = a.permute(0, 1, 4, 2, 3).reshape(n, c4 * 4, h, w_)
        o4, i, kh, kw, _ = b.shape
        b = b.permute(0, 4, 1, 2, 3).reshape(o4 * 4, i, kh, kw)
        r = torch.nn.functional.conv2d(a, b, padding=1)
        ref = r.reshape(n, o4, 4, h, w_).permute(0, 1, 3, 4, 2)
    ref = ref.cpu()
    e = (torch.linalg.vector_norm(o - ref) / torch.linalg.vector_norm(ref)).item()
    print("relerr %.3g%s" % (e, "" if e < 1e-4 else " (TOO LARGE)"))


if __name__ == "__main__":
    if sys.argv[1] == "time":
        timings()
    else:
        err(sys.argv[2], sys.argv[3], sys.argv[4:])
