"""The models of tests/alter/models.py, run by torch, against ir-run.

    torch_check.py --bin DIR MODEL.ir [PIPELINE]

Runs MODEL.ir's @main with torch.nn.functional (each binding of the few
operators models.py writes: conv2d, multiply, bias_add, relu, clip,
max_pool2d, add, global_avg_pool2d, reshape, dense) in float64, and the
module made by PIPELINE (a shell command reading MODEL.ir on stdin,
default `ir-alter-layout | ir-plan-devices | ir-lower | ir-plan-devices`)
with `ir-run --interp`, on the same random inputs; they agree within 1e-4
of the result's scale.  Exit status 1 if not.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check  # noqa: E402


def ints(s):
    return [int(x) for x in re.findall(r"-?\d+", s)]


def attr(attrs, key, default=None):
    m = re.search(r"\b%s=(\[[^\]]*\]|[^,}]+)" % key, attrs)
    return m.group(1) if m else default


def run_torch(text, inputs):
    env = {k: torch.from_numpy(v.astype(np.float64)) for k, v in inputs.items()}
    last = None
    for line in text.splitlines():
        m = re.match(r"\s*%(\w+)(?::[^=]*)? = ([\w.]+)\(([^)]*)\)\s*(\{.*\})?", line)
        if not m:
            r = re.match(r"\s*return %(\w+)", line)
            if r:
                last = env[r.group(1)]
            continue
        name, op, args, attrs = m.group(1), m.group(2), m.group(3), m.group(4) or ""
        a = [env[x.strip()[1:]] for x in args.split(",") if x.strip()]
        if op == "nn.conv2d":
            pad = ints(attr(attrs, "padding", "[0,0,0,0]"))
            st = ints(attr(attrs, "strides", "[1,1]"))
            g = int(attr(attrs, "groups", "1"))
            x = F.pad(a[0], (pad[1], pad[3], pad[0], pad[2]))
            y = F.conv2d(x, a[1], stride=st, groups=g)
        elif op == "multiply":
            y = a[0] * a[1]
        elif op == "add":
            y = a[0] + a[1]
        elif op == "nn.bias_add":
            y = a[0] + a[1].reshape(1, -1, 1, 1)
        elif op == "nn.relu":
            y = torch.relu(a[0])
        elif op == "clip":
            y = torch.clamp(a[0], float(attr(attrs, "a_min")), float(attr(attrs, "a_max")))
        elif op == "nn.max_pool2d":
            pad = ints(attr(attrs, "padding", "[0,0,0,0]"))
            x = F.pad(a[0], (pad[1], pad[3], pad[0], pad[2]), value=-float("inf"))
            y = F.max_pool2d(x, ints(attr(attrs, "pool_size")), ints(attr(attrs, "strides", "[1,1]")))
        elif op == "nn.global_avg_pool2d":
            y = a[0].mean(dim=(2, 3), keepdim=True)
        elif op == "reshape":
            y = a[0].reshape(ints(attr(attrs, "newshape")))
        elif op == "nn.dense":
            y = a[0] @ a[1].T
        else:
            raise SystemExit("torch_check: no torch for %s" % op)
        env[name] = y
    return last.numpy()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("model")
    ap.add_argument("pipeline", nargs="?",
                    default="ir-alter-layout | ir-plan-devices | ir-lower | ir-plan-devices")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as d:
        args = check.inputs(bindir, a.model, d)
        inputs = {re.match(r"--input=(\w+)=", s).group(1): np.load(s.split("=", 2)[2]) for s in args}
        want = run_torch(open(a.model).read(), inputs)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        low = os.path.join(d, "low.ir")
        with open(a.model, "rb") as f, open(low, "wb") as o:
            subprocess.run(a.pipeline, shell=True, stdin=f, stdout=o, env=env, check=True)
        got = check.result(bindir, open(low, "rb").read(), args, d, "run")[0]
    scale = max(1.0, float(np.abs(want).max()))
    err = float(np.abs(got.astype(np.float64) - want).max())
    print("torch_check: %s: max error %g, scale %g" % (os.path.basename(a.model), err, scale))
    return 0 if got.shape == want.shape and err <= 1e-4 * scale else 1


if __name__ == "__main__":
    sys.exit(main())
