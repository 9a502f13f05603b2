"""Helpers for tests/run_ocl.bats (python3 with NumPy).

    npyio.py inputs MODULE DIR    random inputs for every parameter of
                                  @main in MODULE: DIR/<name>.npy; prints
                                  the --input arguments
    npyio.py same A B [A B]...    A and B (.npy files or folders of them)
                                  hold the same arrays, floats within
                                  1e-4 relative + 1e-5 absolute (OpenCL's
                                  exp and fused multiply-adds differ from
                                  the interpreter in the last bits); every
                                  pair (one process for a whole loop's
                                  results: numpy's import costs 0.1 s of
                                  CPU), each that differs named
"""
import os
import re
import sys

import numpy as np

DT = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "i32": np.int32,
      "i64": np.int64, "i8": np.int8, "u8": np.uint8, "bool": np.bool_}


def inputs(module, d):
    text = open(module).read()
    m = re.search(r"fn @main\((.*?)\)\s*->", text, re.S)
    rng = np.random.default_rng(7)
    args = []
    for name, dt, dims in re.findall(r"%(\w+): (\w+)\[([0-9, ]*)\]", m.group(1)):
        shape = tuple(int(x) for x in dims.split(",") if x.strip())
        t = DT[dt]
        if np.issubdtype(t, np.floating):
            a = rng.standard_normal(shape).astype(t)
        else:
            a = rng.integers(0, 5, shape).astype(t)
        p = os.path.join(d, name + ".npy")
        np.save(p, a)
        args.append("--input %s=%s" % (name, p))
    print(" ".join(args))


def load(p):
    if os.path.isdir(p):
        return [np.load(os.path.join(p, "%d.npy" % i)) for i in range(len(os.listdir(p)))]
    return [np.load(p)]


def differs(a, b):
    """Why A and B differ, or None."""
    xs, ys = load(a), load(b)
    if len(xs) != len(ys):
        return "%d results against %d" % (len(xs), len(ys))
    for i, (x, y) in enumerate(zip(xs, ys)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return "result %d: %s %s against %s %s" % (i, x.dtype, x.shape, y.dtype, y.shape)
        if np.issubdtype(x.dtype, np.floating):
            ok = np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        if not ok:
            return "result %d differs: max |diff| %g" % (i, np.max(np.abs(x.astype(np.float64) - y)))
    return None


def same(pairs):
    if not pairs or len(pairs) % 2:
        sys.exit("same takes pairs of results")
    bad = 0
    for a, b in zip(pairs[::2], pairs[1::2]):
        why = differs(a, b)
        if why:
            bad += 1
            # one pair: the message alone, as before
            print(why if len(pairs) == 2 else "%s: %s" % (a, why), file=sys.stderr)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    if sys.argv[1] == "inputs":
        inputs(sys.argv[2], sys.argv[3])
    else:
        same(sys.argv[2:])
