"""ir-fold-constants on random models (tests/gen/gen.py) and on the models
of tests/ir-run.

    check_fold.py [--seed S] [--count N] [--bin DIR] [--no-batch]     random models
    check_fold.py --model FILE.ir --inputs DIR [--bin DIR]

For each model (in a folder of its own, with its inputs DIR/<param>.npy):

    f1 = ir-fold-constants --data-dir=. model.ir
    c1 = ir-fold-constants --data-dir=. on the model with every parameter
         of @main made a constant (const ... file="<param>.npy")

and checks that f1 and c1 re-parse to themselves, that folding them again
changes nothing (idempotence), and that ir-run --interp gives the model's
bits for f1 (with the inputs) and for c1 (without: everything that does
not depend on an if or a call is folded); then that f1 through
ir-plan-devices | ir-lower | ir-plan-devices gives the model's result
within the generator's error bound (random models; lowering reads the
folded constants, HWIO weights included).  A failure prints the seed or
model and what broke; the exit status is then 1.

The models' checks run side by side, each in its order; ir-fold-constants
and ir-run (which read and write constant files) run once a model, in
its folder (ir-run once for the model, f1 and f1 lowered, once for c1,
once for w1 and w1 lowered: --split-input-file, each before the next
fold replaces the files it reads), but ir-parse, ir-plan-devices and ir-lower once a stage for
all models (--split-input-file --keep-going, a model a part); what failed
there runs alone, so that the failure names the model and the stage.
--no-batch runs them once a model too.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cached_bytecode  # noqa: E402,F401 (before gen)
import gen  # noqa: E402
from check import Failure, asked, compare, ran_each, run_all, same, tool  # noqa: E402

import numpy as np  # noqa: E402

def split_params(s):
    """The parameters in the text between fn @main( and its ), split at the
    commas outside brackets."""
    out, depth, cur = [], 0, b""
    for ch in s:
        c = bytes([ch])
        depth += c in b"([" and 1 or (c in b")]" and -1 or 0)
        if c == b"," and depth == 0:
            out.append(cur.strip())
            cur = b""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def constify(text, keep=0):
    """The module with @main's parameters but the first keep made
    constants from <param>.npy (tensor parameters only; a model with a
    tuple parameter stays)."""
    out = []
    for line in text.splitlines():
        if not line.startswith(b"fn @main("):
            out.append(line)
            continue
        depth, end = 0, None
        for i in range(len(b"fn @main"), len(line)):
            depth += line[i] == ord("(") and 1 or (line[i] == ord(")") and -1 or 0)
            if depth == 0:
                end = i
                break
        params = split_params(line[len(b"fn @main("):end])
        if any(p.split(b": ", 1)[1].startswith(b"(") for p in params):
            return text
        out.append(b"fn @main(" + b", ".join(params[:keep]) + b")" + line[end + 1:])
        for p in params[keep:]:
            name, rest = p.lstrip(b"%").split(b": ", 1)
            ty = rest.split(b" on ")[0].split(b" loc(")[0]
            out.append(b"  %" + p.lstrip(b"%").split(b" loc(")[0] + b" = const " + ty +
                       b" file=\"" + name + b".npy\"")
    return b"\n".join(out) + b"\n"


def run(bindir, d, name, args, what):
    out = os.path.join(d, name + ".res")
    tool(bindir, "ir-run", ["--interp", "--data-dir=."] + args + ["-o", out, name + ".ir"], b"", d,
         what)
    return out


def same_result(a, b, what):
    """Two ir-run outputs (a .npy or a folder of them) hold the same bits."""
    fa = sorted(os.listdir(a)) if os.path.isdir(a) else [""]
    for f in fa:
        x = np.load(os.path.join(a, f) if f else a)
        y = np.load(os.path.join(b, f) if f else b)
        if x.dtype != y.dtype or x.shape != y.shape:
            raise Failure("%s: %s %s against %s %s" % (what, x.dtype, x.shape, y.dtype, y.shape))
        bad = (x != y) & ~(np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else x != y
        if bad.any():
            idx = tuple(int(j) for j in np.argwhere(bad)[0])
            raise Failure("%s: %d elements differ; at %s: %r against %r" % (
                what, int(bad.sum()), list(idx), x[idx].item(), y[idx].item()))


def fold_checks(bindir, d, text, args, m=None):
    """The checks of one model, a generator for check.run_all, which
    batches its runs of ir-parse, ir-plan-devices and ir-lower (B): they
    read no constant files, while ir-fold-constants and ir-run read and
    write them in the model's folder, and run there (T), in order."""
    T = lambda name, a, s, what: tool(bindir, name, a, s, d, what)  # noqa: E731
    B = lambda name, a, s, what: asked(T, name, a, s, what)  # noqa: E731

    s0 = yield from B("ir-parse", [], text, "ir-parse of the model")
    with open(os.path.join(d, "s0.ir"), "wb") as f:
        f.write(s0)
    ref = None
    first = re.search(rb"^fn @main\(%([A-Za-z0-9_]+)", s0, re.M)
    a1 = [x for x in args if first and x.startswith("--input=%s=" % first.group(1).decode())]
    for k, src, a in (("f1", s0, args), ("c1", constify(s0), []), ("w1", constify(s0, 1), a1)):
        out = T("ir-fold-constants", ["--data-dir=."], src, "ir-fold-constants (%s)" % k)
        same("%s re-parsed" % k, out, (yield from B("ir-parse", [], out, "ir-parse of " + k)))
        same("%s folded again" % k, out,
             T("ir-fold-constants", ["--data-dir=."], out, "ir-fold-constants of " + k))
        with open(os.path.join(d, k + ".ir"), "wb") as f:
            f.write(out)
        if k == "c1":
            same_result(ref, run(bindir, d, k, a, "ir-run of " + k), "%s against the model" % k)
            continue
        # lowered: reads the folded constants, HWIO weights included
        s2 = yield from B("ir-plan-devices", m.plan_flags if m else [], out,
                          "ir-plan-devices of " + k)
        s3 = yield from B("ir-lower", m.lower_flags if m else [], s2, "ir-lower of " + k)
        s4 = yield from B("ir-plan-devices", [], s3, "ir-plan-devices after ir-lower of " + k)
        with open(os.path.join(d, k + "4.ir"), "wb") as f:
            f.write(s4)
        # k and k lowered (and first the model, which has the same inputs
        # as f1) in one start of ir-run (ran_each), before the next fold
        # replaces the constant files they read: half the starts, each 8
        # ms of CPU under ASan
        runs = ([("s0", s0)] if ref is None else []) + [(k, out), (k + "4", s4)]
        res = ran_each(lambda name, a2, s, what: tool(bindir, name, a2, s, d, what), d, runs,
                       ["--interp", "--data-dir=."] + a, ".npy", k + "_runs",
                       "ir-run of %s (s0: the model; " + k + "4: " + k + " lowered)")
        res = {x: r if os.path.exists(r) else r[:-len(".npy")] for x, r in res.items()}
        if ref is None:
            ref = res["s0"]
        same_result(ref, res[k], "%s against the model" % k)
        low = res[k + "4"]
        if m is not None:
            compare(m, ref, low, what="%s folded and lowered" % k)
        else:
            for f in sorted(os.listdir(ref)) if os.path.isdir(ref) else [""]:
                x = np.load(os.path.join(ref, f) if f else ref)
                y = np.load(os.path.join(low, f) if f else low)
                if x.shape != y.shape or not np.allclose(x, y, rtol=1e-4, atol=1e-5):
                    raise Failure("%s folded and lowered differs from the model" % k)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--model")
    ap.add_argument("--inputs")
    ap.add_argument("--no-batch", action="store_true",
                    help="run ir-parse, ir-plan-devices and ir-lower once a model and stage, "
                         "not once a stage for all models")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    failed = 0
    if a.model:
        d = tempfile.mkdtemp(prefix="irpipe-fold.")
        for f in os.listdir(a.inputs):
            if f.endswith(".npy"):
                shutil.copy(os.path.join(a.inputs, f), d)
        args = ["--input=%s=%s.npy" % (f[:-4], f[:-4]) for f in sorted(os.listdir(a.inputs))
                if f.endswith(".npy")]
        with open(a.model, "rb") as f:
            msg = run_all(bindir, {0: fold_checks(bindir, d, f.read(), args)})[0]
        if msg is None:
            shutil.rmtree(d)
        else:
            print("fold: FAIL %s (in %s): %s" % (a.model, d, msg))
            failed = 1
        return failed
    # every model's checks side by side (run_all), each in a folder of its own
    dirs, checks = {}, {}
    for seed in range(a.seed, a.seed + a.count):
        d = dirs[seed] = tempfile.mkdtemp(prefix="irpipe-fold-%d." % seed)
        m, args = gen.write(seed, d)
        with open(os.path.join(d, "model.ir"), "rb") as f:
            checks[seed] = fold_checks(bindir, d, f.read(), args, m)
    res = run_all(bindir, checks, not a.no_batch)
    for seed in range(a.seed, a.seed + a.count):
        if res[seed] is None:
            shutil.rmtree(dirs[seed])
            continue
        print("fold: FAIL seed %d (in %s): %s" % (seed, dirs[seed], res[seed]))
        print("reproduce: python3 tests/gen/check_fold.py --seed %d --count 1 --bin %s"
              % (seed, bindir))
        failed += 1
    print("fold: %d of %d models passed" % (a.count - failed, a.count))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
