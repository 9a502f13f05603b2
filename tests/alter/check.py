"""ir-alter-layout changes no value: for each model, `ir-run --interp` of
the model and of `ir-alter-layout --layout=MODE` of it (and of that
through ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture)
give the same result on the same random inputs, and a second
ir-alter-layout changes nothing.

    check.py --bin DIR [--mode auto,NCHW4c] [--lower] [--ocl] [--no-batch] MODEL.ir...

--ocl also generates OpenCL C for the lowered module (ir-codegen-ocl) and
runs it with `ir-run --check` (every kernel against the interpreter, on
POCL where there is no GPU).

The models' checks run side by side (tests/gen/check.py's run_all): each
tool but ir-run starts once a stage for all models (--split-input-file
--keep-going; what fails there runs alone, so a failure names the model
and the tool), ir-run once a model for all its modules (twice with
--ocl); --no-batch runs every tool once a model and stage.

Inputs are drawn from a seed made of the model's name, so a failure
repeats.  Floating-point results may differ by rounding only (a packed
convolution sums in another order): within 1e-4 of the result's scale.
Prints one line per failure and exits 1 if any.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "gen"))
import check as C  # noqa: E402

DT = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
      "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
      "u32": np.uint32, "u64": np.uint64, "bool": np.bool_}


def tool(bindir, args, stdin=None, cwd=None):
    p = subprocess.run([os.path.join(bindir, args[0])] + args[1:], input=stdin, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    if p.returncode:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(args), p.returncode,
                                                p.stderr.decode(errors="replace")[-2000:]))
    return p.stdout


def inputs(bindir, path, d):
    """Random .npy files for @main's parameters; the --input arguments."""
    return inputs_of(tool(bindir, ["ir-parse", path]), path, d)


def inputs_of(text, path, d):
    """inputs() of text, the module of path, parsed."""
    text = text.decode()
    m = re.search(r"^fn @main\((.*?)\)( ->|\s*\{)", text, re.M)
    args = []
    rng = np.random.default_rng(zlib.crc32(os.path.basename(path).encode()))
    for name, dt, dims in re.findall(r"%(\w+): (\w+)\[([0-9,]*)\]", m.group(1) if m else ""):
        shape = tuple(int(x) for x in dims.split(",")) if dims else ()
        t = DT[dt]
        if t == np.bool_:
            a = rng.integers(0, 2, shape).astype(t)
        elif np.issubdtype(t, np.integer):
            a = rng.integers(0, 5, shape).astype(t)
        else:
            a = rng.uniform(-1, 1, shape).astype(t)
        f = os.path.join(d, "in_" + name + ".npy")
        np.save(f, a)
        args.append("--input=%s=%s" % (name, f))
    return args


def result(bindir, text, args, d, k, run=("--interp",)):
    """ir-run of text, one module (torch_check.py), as a list of arrays."""
    src = os.path.join(d, k + ".ir")
    with open(src, "wb") as f:
        f.write(text)
    out = os.path.join(d, k + ".out")
    tool(bindir, ["ir-run"] + list(run) + args + ["-o", out, src])
    if os.path.isdir(out):
        return [np.load(os.path.join(out, "%d.npy" % i)) for i in range(len(os.listdir(out)))]
    return [np.load(out)]


def results(T, d, runs, args, what):
    """ir-run ARGS of each (name, text) of runs (written as name.ir in d):
    one start for all (check.ran_each), each result a list of arrays, by
    name."""
    for k, text in runs:
        with open(os.path.join(d, k + ".ir"), "wb") as f:
            f.write(text)
    out = {}
    for k, o in C.ran_each(T, d, runs, args, "", "all" + what.split()[0], what).items():
        if os.path.isdir(o):
            out[k] = [np.load(os.path.join(o, "%d.npy" % i)) for i in range(len(os.listdir(o)))]
        else:
            out[k] = [np.load(o + ".npy" if os.path.exists(o + ".npy") else o)]
    return out


def same(a, b):
    if len(a) != len(b):
        return "%d results, not %d" % (len(b), len(a))
    for i, (x, y) in enumerate(zip(a, b)):
        if x.shape != y.shape or x.dtype != y.dtype:
            return "result %d: %s %s, not %s %s" % (i, y.dtype, y.shape, x.dtype, x.shape)
        if np.issubdtype(x.dtype, np.floating):
            fx, fy = x.astype(np.float64), y.astype(np.float64)
            ok = np.isfinite(fx)
            if not np.array_equal(np.isfinite(fy), ok) or \
               not np.array_equal(fx[~ok], fy[~ok], equal_nan=True):
                return "result %d: inf or nan differ" % i
            scale = max(1.0, float(np.abs(fx[ok]).max())) if ok.any() else 1.0
            tol = 1e-4 if x.dtype != np.float16 else 1e-2
            err = float(np.abs(fx[ok] - fy[ok]).max()) if ok.any() else 0.0
            if err > tol * scale:
                return "result %d differs by %g (scale %g)" % (i, err, scale)
        elif not np.array_equal(x, y):
            return "result %d: elements differ" % i
    return None


def check(bindir, path, modes, lower, ocl):
    """The checks of one model, a generator for check.run_all (C), which
    batches the runs of every tool but ir-run across models; ir-run runs
    once for the model's modules (once more for OpenCL).  Raises
    C.Failure with the reason."""
    with tempfile.TemporaryDirectory() as d:
        def T(name, a, s, what):
            try:
                return tool(bindir, [name] + a, s, d)
            except RuntimeError as e:
                raise C.Failure(str(e))

        def B(name, a, s):
            return C.asked(T, name, a, s, name)

        with open(path, "rb") as f:
            text = yield from B("ir-parse", [], f.read())
        args = inputs_of(text, path, d)
        runs, ocls = [("ref", text)], []
        for mode in modes:
            alt = yield from B("ir-alter-layout", ["--layout=" + mode], text)
            if (yield from B("ir-alter-layout", ["--layout=" + mode], alt)) != alt:
                raise C.Failure("--layout=%s: a second run changes the module" % mode)
            if (yield from B("ir-parse", [], alt)) != alt:
                raise C.Failure("--layout=%s: the output does not re-parse to itself" % mode)
            runs.append(("alt_" + mode, alt))
            if lower:
                s = yield from B("ir-plan-devices", [], alt)
                s = yield from B("ir-lower", [], s)
                s = yield from B("ir-plan-devices", [], s)
                s = yield from B("ir-flatten-texture", [], s)
                runs.append(("low_" + mode, s))
                if ocl:
                    s = yield from B("ir-codegen-ocl", [], s)
                    ocls.append(("ocl_" + mode, s))
        res = results(T, d, runs, ["--interp"] + args, "--interp %s")
        if ocls:
            res.update(results(T, d, ocls, ["--check"] + args, "--check %s"))
        for mode in modes:
            for k, said in (("alt_", ""), ("low_", ", lowered and flattened"),
                            ("ocl_", ", on OpenCL")):
                why = k + mode in res and same(res["ref"], res[k + mode])
                if why:
                    raise C.Failure("--layout=%s%s: %s" % (mode, said, why))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--mode", default="auto,NCHW4c")
    ap.add_argument("--lower", action="store_true")
    ap.add_argument("--ocl", action="store_true")
    ap.add_argument("--no-batch", action="store_true",
                    help="run every tool once a model and stage, not once a stage for all")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    failed = 0
    # every model's checks side by side, the tools but ir-run once a stage
    # for all (check.run_all)
    bindir = os.path.abspath(a.bin)   # tools run in the models' folders
    res = C.run_all(bindir, {i: check(bindir, path, a.mode.split(","), a.lower or a.ocl, a.ocl)
                             for i, path in enumerate(a.models)}, not a.no_batch)
    for i, path in enumerate(a.models):
        why = res[i]
        if why:
            failed += 1
            print("alter: FAIL %s: %s" % (path, why))
    print("alter: %d models, %d failed" % (len(a.models), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
