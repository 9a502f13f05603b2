"""NumPy oracle for the model tests: writes random inputs for a model to a
folder, or checks ir-run's outputs against NumPy's own computation.

    oracle.py inputs MODEL DIR     writes DIR/<param>.npy, prints --input args
    oracle.py check MODEL DIR OUT  compares OUT (a .npy or a folder) with NumPy
"""
import os
import sys

import numpy as np


def conv2d(x, w, pad, stride=1):
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    for y in range(kh):
        for z in range(kw):
            patch = xp[:, :, y:y + stride * oh:stride, z:z + stride * ow:stride]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, y, z])
    return out


def pack(x):   # NCHW -> NCHW4c
    n, c, h, w = x.shape
    return x.reshape(n, c // 4, 4, h, w).transpose(0, 1, 3, 4, 2)


def unpack(x):  # NCHW4c -> NCHW
    n, c, h, w, k = x.shape
    return x.transpose(0, 1, 4, 2, 3).reshape(n, c * k, h, w)


def unpack_w(w):  # OIHW4o -> OIHW
    o, i, h, ww, k = w.shape
    return w.transpose(0, 4, 1, 2, 3).reshape(o * k, i, h, ww)


def pool(x, k, s, p, op, count_pad=False):
    n, c, h, w = x.shape
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for z in range(ow):
            y0, z0 = y * s - p, z * s - p
            win = x[:, :, max(y0, 0):min(y0 + k, h), max(z0, 0):min(z0 + k, w)]
            if op == "max":
                out[:, :, y, z] = win.max(axis=(2, 3))
            else:
                cnt = k * k if count_pad else win.shape[2] * win.shape[3]
                out[:, :, y, z] = win.sum(axis=(2, 3)) / cnt
    return out


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


MODELS = {
    "small_cnn": (
        {"x": (1, 3, 10, 10), "w": (4, 3, 3, 3), "b": (4,), "wd": (5, 64)},
        lambda x, w, b, wd: [softmax(
            pool(np.maximum(conv2d(x, w, 0) + b[None, :, None, None], 0), 2, 2, 0, "max")
            .reshape(1, 64) @ wd.T)],
    ),
    "residual_texture": (
        {"x": (1, 2, 6, 6, 4), "w1": (2, 8, 3, 3, 4), "w2": (2, 8, 3, 3, 4)},
        lambda x, w1, w2: [pack(np.maximum(
            conv2d(np.maximum(conv2d(unpack(x), unpack_w(w1), 1), 0), unpack_w(w2), 1)
            + unpack(x), 0))],
    ),
    "pooling": (
        {"x": (1, 3, 9, 9)},
        lambda x: [pool(x, 3, 2, 1, "max"), pool(x, 3, 2, 1, "avg"),
                   x.mean(axis=(2, 3), keepdims=True)],
    ),
    "tuples": (
        {"x": (2, 6), "y": (2, 3)},
        lambda x, y: [np.concatenate([x[:, :2], -x[:, 2:], np.exp(y)], axis=1), np.exp(y)],
    ),
}


def main():
    cmd, model, folder = sys.argv[1], sys.argv[2], sys.argv[3]
    shapes, fn = MODELS[model]
    if cmd == "inputs":
        rng = np.random.default_rng(7)
        args = []
        for name, shape in shapes.items():
            path = os.path.join(folder, name + ".npy")
            np.save(path, rng.uniform(-1, 1, shape).astype(np.float32))
            args.append("--input %s=%s" % (name, path))
        print(" ".join(args))
        return 0
    inputs = [np.load(os.path.join(folder, n + ".npy")).astype(np.float64) for n in shapes]
    want = fn(*inputs)
    out = sys.argv[4]
    got = [np.load(out)] if out.endswith(".npy") else \
        [np.load(os.path.join(out, "%d.npy" % i)) for i in range(len(want))]
    for i, (g, w) in enumerate(zip(got, want)):
        if g.dtype != np.float32 or g.shape != w.shape:
            print("result %d: got %s %s, want float32 %s" % (i, g.dtype, g.shape, w.shape))
            return 1
        if not np.allclose(g, w, rtol=1e-4, atol=1e-5):
            print("result %d: largest difference %g" % (i, np.abs(g - w).max()))
            return 1
    print("%s: %d result(s) match NumPy" % (model, len(want)))
    return 0


sys.exit(main())
