#!/usr/bin/python3
"""conformance.py: ONNX's own backend tests through ir-import-onnx and ir-run.

    /usr/bin/python3 tests/onnx/conformance.py [--bin DIR] [--data DIR]
        [--known FILE] [--subset N] [--mode interp|lowered|ocl]... [--jobs N]
        [--only REGEX] [--no-batch] [--verbose] [--write-known FILE] [FOLDER...]

Each case of Debian's libonnx-testdata (FOLDERs under --data, default node,
pytorch-converted, pytorch-operator, simple) is a model.onnx with
test_data_set_*/input_*.pb and output_*.pb.  For each case the model is
imported (`ir-import-onnx -o OUT.ir --data-dir DIR model.onnx`), every data
set's inputs are converted to .npy (onnx.numpy_helper) and bound, in order,
to @main's parameters, and each mode runs the module:

  interp   ir-run --interp on the imported module (the graph level)
  lowered  ir-plan-devices | ir-lower | ir-plan-devices | ir-run --interp
  ocl      ... | ir-flatten-texture | ir-codegen-ocl | ir-run (OpenCL; POCL)

The results are compared with output_*.pb at the tolerances of ONNX's
backend tests (numpy's isclose with rtol 1e-3, atol 1e-7; integers and
bools exactly; the same shape and element type).  A case is

  passed       every data set in every mode equals the expected outputs;
  unsupported  the importer refused it with a diagnostic (exit status 1,
               "error: ..."): an operator, an attribute, a type, a value
               it needs at import; or it has inputs that are not tensors;
  failed       anything else: an importer crash or hang, a run that fails,
               a wrong result.

The modes after the import compile with one run of each tool for many
cases (--split-input-file: each imported module a part; POCL's and the
sanitizers' start-up is most of a small case's cost): every case is
imported first, then the modules are compiled in --jobs batches, then
each case runs.  A batch that fails is left to its cases, which compile
on their own, so that a failure names its case.  The modes that run on
the interpreter (interp, lowered) run a data set in one start of ir-run
for all (--split-input-file, a mode's module a part, the same inputs); a
run that fails is left to the modes, each run alone, so that a failure
names its mode.  --no-batch compiles and runs every case and mode on its
own.

The importer refusing a case it used to pass shows as fewer passed: the
known-failures file holds, per folder, the least number of cases that must
pass (`min-passed FOLDER N`), checked on full runs.

--known FILE lists the failures we know, one `FOLDER/CASE: reason` a line
(# comments); `FOLDER/CASE [ocl]: reason` is a failure only when one of
the modes in brackets runs (make check runs interp and lowered).  A failure not listed, or a listed case of the run that did
not fail, is a mismatch: the script prints each and exits 1, so a
regression cannot hide and a fixed case is taken off the list.
--subset N runs the cases whose name's CRC-32 is 0 modulo N (a fixed
choice that does not shift when cases are added).  The last lines are the
counts per folder: `FOLDER: P passed, F failed, U unsupported`.
"""
import argparse
import functools
import glob
import multiprocessing
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import onnx
from onnx import numpy_helper

DATA = "/usr/share/libonnx-testdata/data"
FOLDERS = ["node", "pytorch-converted", "pytorch-operator", "simple"]
RTOL, ATOL = 1e-3, 1e-7
TIMEOUT = 120           # seconds per tool run: a hang is a failure, not a stall
ARGS = None             # the parsed options, for the workers


class Outcome(Exception):
    """Ends a case: status is 'unsupported' or 'failed'."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status, self.reason = status, reason


def first_error(text):
    """The first line that says `error`, else the first line, trimmed."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if "error" in l:
            return l[:300]
    return lines[0][:300] if lines else "(no message)"


def tool(name, args, stdin=None, what=None):
    """Runs a tool of --bin; its stdout (bytes).  Failed on a crash, a
    timeout or an exit status other than 0."""
    cmd = [os.path.join(ARGS.bin, name)] + args
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Outcome("failed", "%s: timed out after %d s" % (what or name, TIMEOUT))
    if p.returncode < 0 or p.returncode > 1:
        raise Outcome("failed", "%s: crashed (exit status %d): %s" % (
            what or name, p.returncode, first_error(p.stderr.decode(errors="replace"))))
    if p.returncode != 0:
        raise Outcome("failed", "%s: %s" % (what or name, first_error(p.stderr.decode(errors="replace"))))
    return p.stdout


def import_model(model, out, tmp):
    cmd = [os.path.join(ARGS.bin, "ir-import-onnx"), "-o", out, "--data-dir", tmp, model]
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Outcome("failed", "import: timed out after %d s" % TIMEOUT)
    err = p.stderr.decode(errors="replace")
    if p.returncode == 1 and "error:" in err:
        raise Outcome("unsupported", first_error(err))
    if p.returncode != 0:
        raise Outcome("failed", "import%s: %s" % (
            "" if p.returncode == 1 else " crashed (exit status %d)" % p.returncode,
            first_error(err)))


def params_of(irfile):
    """@main's parameter names, in order (the graph's inputs, sanitized by
    the importer)."""
    text = open(irfile, encoding="utf-8", errors="replace").read()
    m = re.search(r"^fn @main\((.*?)\)\s*(->|\{)", text, re.M)
    if not m:
        raise Outcome("failed", "import: no fn @main in the module")
    return re.findall(r"%([A-Za-z0-9_.$-]+)\s*:", m.group(1))


def read_pb(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        data = f.read()
    try:
        t.ParseFromString(data)
        if not t.dims and not t.raw_data and t.data_type == 0:
            raise ValueError
        return numpy_helper.to_array(t)
    except Exception:
        raise Outcome("unsupported", "%s is not a tensor (a sequence or an optional)"
                      % os.path.basename(path))


def compare(got, want, name):
    """None if got equals want at ONNX's tolerances, else why not."""
    if got.dtype != want.dtype:
        return "%s: element type %s, expected %s" % (name, got.dtype, want.dtype)
    if got.shape != want.shape:
        return "%s: shape %s, expected %s" % (name, got.shape, want.shape)
    if want.dtype.kind in "fc":
        ok = np.isclose(got, want, rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        ok = got == want
    if not ok.all():
        bad = np.argwhere(~ok)
        i = tuple(bad[0])
        return "%s: %d of %d elements differ, first at %s: %r, expected %r" % (
            name, len(bad), want.size, list(i), got[i].item(), want[i].item())
    return None


def compile_stages(irfile, mode, split=False):
    """What the tools make of irfile for `mode` (lowered, ocl), as bytes;
    split: irfile holds many modules (--split-input-file)."""
    opt = ["--split-input-file"] if split else []
    stage = tool("ir-plan-devices", opt + [irfile], what="ir-plan-devices")
    stage = tool("ir-lower", opt, stdin=stage)
    stage = tool("ir-plan-devices", opt, stdin=stage, what="ir-plan-devices (after ir-lower)")
    if mode == "ocl":
        stage = tool("ir-flatten-texture", opt, stdin=stage)
        stage = tool("ir-codegen-ocl", opt, stdin=stage)
    return stage


def pipeline(irfile, mode, out):
    """The module `mode` runs, written to out (there already when a batch
    compiled it); the ir-run options."""
    if mode == "interp":
        return irfile, ["--interp"]
    if not os.path.exists(out):
        stage = compile_stages(irfile, mode)
        with open(out, "wb") as f:
            f.write(stage)
    return out, ["--interp"] if mode == "lowered" else []


SEPARATOR = b"// -----\n"


def compile_batch(job):
    """Compiles the modules of a batch in one run of each tool: each
    module's result to its out file, or nothing when a tool fails (its
    cases then compile alone)."""
    mode, pairs, joined = job
    with open(joined, "wb") as f:
        for i, (irfile, _) in enumerate(pairs):
            text = open(irfile, "rb").read()
            f.write((SEPARATOR if i else b"") + text + (b"" if text.endswith(b"\n") else b"\n"))
    try:
        out = compile_stages(joined, mode, split=True)
    except Outcome:
        return False
    parts = out.split(SEPARATOR)
    # a part's module ends with a newline: a separator is always a line
    if len(parts) != len(pairs) or not out.endswith(b"\n"):
        return False
    for (_, dest), text in zip(pairs, parts):
        with open(dest, "wb") as f:
            f.write(text)
    return True


# Operand slots that say a shape, an axis, a bound or a count, which the
# importer needs as constants (shapes are static): ONNX's node tests feed
# them as graph inputs (test_slice's starts, test_reshape's shape), torch
# exports them as initializers.  A graph input used in one of these slots
# is frozen: the data set's value becomes an initializer of the model that
# is imported, so the case tests the operator, not the import of a dynamic
# shape.
FROZEN_SLOTS = {
    "Reshape": {1}, "Slice": {1, 2, 3, 4}, "Pad": {1, 2, 3}, "Expand": {1}, "Tile": {1},
    "Squeeze": {1}, "Unsqueeze": {1}, "Split": {1}, "ReduceSum": {1}, "ReduceMean": {1},
    "ReduceMax": {1}, "ReduceMin": {1}, "ReduceProd": {1}, "ReduceL1": {1}, "ReduceL2": {1},
    "ReduceLogSum": {1}, "ReduceLogSumExp": {1}, "ReduceSumSquare": {1}, "Clip": {1, 2},
    "TopK": {1}, "ConstantOfShape": {0}, "Range": {0, 1, 2}, "OneHot": {1},
    "Resize": {1, 2, 3}, "Upsample": {1}, "CumSum": {1}, "Dropout": {1, 2},
}


def graph_inputs(model):
    """The graph's inputs that input_N.pb feed: those without an initializer."""
    inits = {i.name for i in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def frozen_inputs(model):
    names = set(graph_inputs(model))
    return {x for n in model.graph.node for j, x in enumerate(n.input)
            if j in FROZEN_SLOTS.get(n.op_type, ()) and x in names}


def read_sets(d):
    data = []
    for s in sorted(glob.glob(os.path.join(d, "test_data_set_*"))):
        ins = sorted(glob.glob(os.path.join(s, "input_*.pb")),
                     key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))
        outs = sorted(glob.glob(os.path.join(s, "output_*.pb")),
                      key=lambda p: int(re.search(r"_(\d+)\.pb$", p).group(1)))
        data.append(([read_pb(p) for p in ins], [read_pb(p) for p in outs]))
    if not data:
        raise Outcome("failed", "no test_data_set_* folder")
    return data


def case_dir(case):
    return os.path.join(ARGS.tmp, "%s__%s" % case)


def check_outputs(mode, files, want):
    for i, (f, w) in enumerate(zip(files, want)):
        if not os.path.exists(f):
            raise Outcome("failed", "%s: output %d missing" % (mode, i))
        why = compare(np.load(f), w, "%s: output %d" % (mode, i))
        if why:
            raise Outcome("failed", why)


def run_together(data, tmp):
    """When every mode runs on the interpreter (interp, lowered), each data
    set's run of every mode in one start of ir-run (--split-input-file, a
    mode's module a part, the same inputs): {(mode, k): the result files
    of data set k}, compared afterwards in the order run_case compares.
    None when there is one mode, --no-batch is given, or a run fails:
    then each mode runs alone, so that a failure names it."""
    if len(ARGS.mode) < 2 or ARGS.no_batch or any(m not in ("interp", "lowered")
                                                   for m in ARGS.mode):
        return None
    out = {}
    try:
        for k, (ins, want, sub, irfile, params) in enumerate(data):
            if len(ins) != len(params):
                return None
            parts = []
            for mode in ARGS.mode:
                module, opts = pipeline(irfile, mode, os.path.join(sub, mode + ".ir"))
                parts.append(open(module, "rb").read())
            joined = os.path.join(tmp, "modes%d.ir" % k)
            with open(joined, "wb") as f:
                f.write(SEPARATOR.join(p if p.endswith(b"\n") else p + b"\n" for p in parts))
            args = ["--interp", "--split-input-file"]
            for i, (p, a) in enumerate(zip(params, ins)):
                f = os.path.join(tmp, "in%d_%d.npy" % (k, i))
                np.save(f, a)
                args.append("--input=%s=%s" % (p, f))
            res = os.path.join(tmp, "out_modes_%d" % k)
            tool("ir-run", args + ["--data-dir", sub, "-o", res, joined])
            for j, mode in enumerate(ARGS.mode):
                out[(mode, k)] = [os.path.join(res, "%d.npy" % j)] if len(want) == 1 else [
                    os.path.join(res, str(j), "%d.npy" % i) for i in range(len(want))]
    except Outcome:
        return None
    return out


def run_case(case, import_only=False):
    """The case's outcome (folder, name, status, reason); with import_only
    a None status once it imported, its modules in case_dir(case)/m*/ and
    its folder kept for the run."""
    folder, name = case
    d = os.path.join(ARGS.data, folder, name)
    tmp = case_dir(case)
    keep_dir = False
    try:
        os.makedirs(tmp, exist_ok=True)
        path = os.path.join(d, "model.onnx")
        model = onnx.load(path)
        names = graph_inputs(model)
        frozen = frozen_inputs(model)
        data = read_sets(d)
        # One import, or one per data set where inputs are frozen.
        imports = []
        for k, (ins, want) in enumerate(data):
            if len(ins) != len(names):
                raise Outcome("failed", "data set %d has %d inputs, the graph %d"
                              % (k, len(ins), len(names)))
            if frozen or k == 0:
                sub = os.path.join(tmp, "m%d" % k)
                irfile = os.path.join(sub, "model.ir")
                if not os.path.exists(irfile):     # else imported before the batches
                    os.mkdir(sub)
                    src = path
                    if frozen:
                        m = onnx.ModelProto()
                        m.CopyFrom(model)
                        keep = [i for i in m.graph.input if i.name not in frozen]
                        del m.graph.input[:]
                        m.graph.input.extend(keep)
                        for nm, a in zip(names, ins):
                            if nm in frozen:
                                m.graph.initializer.append(numpy_helper.from_array(a, nm))
                        src = os.path.join(sub, "model.onnx")
                        onnx.save(m, src)
                    import_model(src, irfile, sub)
                imports.append((sub, irfile, params_of(irfile)))
            sub, irfile, params = imports[-1]
            feed = [a for nm, a in zip(names, ins) if nm not in frozen]
            data[k] = (feed, want, sub, irfile, params)
        if import_only:
            keep_dir = True
            return folder, name, None, ""
        together = run_together(data, tmp)
        for mode in ARGS.mode:
            modules = {}
            for k, (ins, want, sub, irfile, params) in enumerate(data):
                if irfile not in modules:
                    modules[irfile] = pipeline(irfile, mode, os.path.join(sub, mode + ".ir"))
                module, opts = modules[irfile]
                if len(ins) != len(params):
                    raise Outcome("failed", "data set %d feeds %d inputs, @main has %d "
                                  "parameters" % (k, len(ins), len(params)))
                if together:
                    check_outputs(mode, together[(mode, k)], want)
                    continue
                args = list(opts)
                for i, (p, a) in enumerate(zip(params, ins)):
                    f = os.path.join(tmp, "in%d_%d.npy" % (k, i))
                    np.save(f, a)
                    args.append("--input=%s=%s" % (p, f))
                res = os.path.join(tmp, "out_%s_%d" % (mode, k))
                if len(want) == 1:
                    res += ".npy"
                args += ["--data-dir", sub, "-o", res, module]
                tool("ir-run", args, what="ir-run (%s)" % mode)
                files = [res] if len(want) == 1 else [
                    os.path.join(res, "%d.npy" % i) for i in range(len(want))]
                check_outputs(mode, files, want)
        return folder, name, "passed", ""
    except Outcome as o:
        return folder, name, o.status, o.reason
    except Exception as e:      # the runner's own trouble, reported as such
        return folder, name, "failed", "runner: %s: %s" % (type(e).__name__, e)
    finally:
        if not keep_dir:
            shutil.rmtree(tmp, ignore_errors=True)


def read_known(path):
    """The listed failures {FOLDER/CASE: reason} and floors {FOLDER: N}."""
    known, floors = {}, {}
    if not path:
        return known, floors
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = re.fullmatch(r"min-passed\s+(\S+)\s+(\d+)", line)
            if m:
                floors[m.group(1)] = int(m.group(2))
                continue
            key, sep, reason = line.partition(":")
            m = re.fullmatch(r"(\S+/\S+)(?:\s+\[([a-z ,]+)\])?", key.strip())
            if not sep or not m or not reason.strip():
                sys.exit("%s:%d: error: expected `FOLDER/CASE: reason`, "
                         "`FOLDER/CASE [MODE,...]: reason` or `min-passed FOLDER N`"
                         % (path, n))
            modes = m.group(2)
            # A failure listed for some modes only is expected when one runs.
            if modes and not set(x.strip() for x in modes.split(",")) & set(ARGS.mode):
                continue
            known[m.group(1)] = reason.strip()
    return known, floors


BATCH = 64             # modules a batch: one that fails leaves that many to compile alone


def run_all(pool, cases):
    """Every case's outcome, in the order of cases: imported, compiled in
    batches (unless --no-batch, or no mode compiles), run."""
    done = {}
    modes = [m for m in ARGS.mode if m != "interp"]
    if modes and not ARGS.no_batch:
        for folder, name, status, reason in pool.map(
                functools.partial(run_case, import_only=True), cases, chunksize=1):
            if status is not None:      # ended at its import
                done[(folder, name)] = (folder, name, status, reason)
        irfiles = [f for c in cases if c not in done
                   for f in sorted(glob.glob(os.path.join(case_dir(c), "m*", "model.ir")))]
        jobs = []
        for mode in modes:
            for i in range(0, len(irfiles), BATCH):
                pairs = [(f, os.path.join(os.path.dirname(f), mode + ".ir"))
                         for f in irfiles[i:i + BATCH]]
                jobs.append((mode, pairs, os.path.join(ARGS.tmp, "batch.%s.%d.ir" % (mode, i))))
        pool.map(compile_batch, jobs, chunksize=1)
    rest = [c for c in cases if c not in done]
    for r in pool.map(run_case, rest, chunksize=1):
        done[r[:2]] = r
    return [done[c] for c in cases]


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--known")
    ap.add_argument("--subset", type=int, default=1)
    ap.add_argument("--mode", action="append", choices=["interp", "lowered", "ocl"])
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1))
    ap.add_argument("--only", metavar="REGEX", help="the cases whose FOLDER/CASE matches")
    ap.add_argument("--no-batch", action="store_true",
                    help="compile each case on its own, not in batches")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--write-known", metavar="FILE",
                    help="write the failures of this run, with reasons kept from --known")
    ap.add_argument("folders", nargs="*")
    ARGS = ap.parse_args()
    ARGS.bin = os.path.abspath(ARGS.bin)
    ARGS.mode = ARGS.mode or ["interp"]
    folders = ARGS.folders or FOLDERS
    cases = []
    for folder in folders:
        for c in sorted(os.listdir(os.path.join(ARGS.data, folder))):
            if not os.path.exists(os.path.join(ARGS.data, folder, c, "model.onnx")):
                continue
            key = "%s/%s" % (folder, c)
            if ARGS.only and not re.search(ARGS.only, key):
                continue
            if zlib.crc32(key.encode()) % ARGS.subset == 0:
                cases.append((folder, c))
    known, floors = read_known(ARGS.known)
    ARGS.tmp = tempfile.mkdtemp(prefix="onnxconf.")
    try:
        with multiprocessing.Pool(ARGS.jobs) as pool:
            results = run_all(pool, cases)
    finally:
        shutil.rmtree(ARGS.tmp, ignore_errors=True)

    counts = {f: {"passed": 0, "failed": 0, "unsupported": 0} for f in folders}
    mismatches = []
    for folder, name, status, reason in results:
        key = "%s/%s" % (folder, name)
        counts[folder][status] += 1
        if ARGS.verbose or (status == "failed" and key not in known):
            print("%-11s %s%s" % (status, key, ": " + reason if reason else ""))
        if status == "failed" and key not in known:
            mismatches.append("new failure: %s: %s" % (key, reason))
        elif status != "failed" and key in known:
            mismatches.append("listed in %s but %s now: %s (take it off the list)"
                              % (ARGS.known, status, key))
    if ARGS.subset == 1 and not ARGS.only:
        for folder in folders:
            got, floor = counts[folder]["passed"], floors.get(folder, 0)
            if got < floor:
                mismatches.append("%s: %d passed, fewer than the %d of `min-passed %s %d` "
                                  "in %s" % (folder, got, floor, folder, floor, ARGS.known))
            elif got > floor and ARGS.known:
                print("note: %s: %d passed; `min-passed %s %d` in %s may be raised"
                      % (folder, got, folder, floor, ARGS.known))
    if ARGS.write_known:
        with open(ARGS.write_known, "w", encoding="utf-8") as f:
            f.write("# ONNX backend test cases that fail, with the reason, and the least\n"
                    "# number of cases of each folder that pass (tests/onnx/conformance.py\n"
                    "# reads it; see tests/onnx.bats).\n")
            for folder in folders:
                f.write("min-passed %s %d\n" % (folder, counts[folder]["passed"]))
            for folder, name, status, reason in sorted(results):
                key = "%s/%s" % (folder, name)
                if status == "failed":
                    f.write("%s: %s\n" % (key, known.get(key, reason)))
    for m in mismatches:
        print("MISMATCH " + m)
    for folder in folders:
        c = counts[folder]
        print("%s: %d passed, %d failed, %d unsupported" % (
            folder, c["passed"], c["failed"], c["unsupported"]))
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
