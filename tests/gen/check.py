"""Runs random models (tests/gen/gen.py) through the whole pipeline.

    check.py [--seed S] [--count N | --seeds S,S,...] [--bin DIR] [--jobs J] [--keep DIR]
             [--legacy] [--ocl] [--corpus DIR] [--no-batch]

For the models of seeds S .. S+N-1 (or of the seeds listed), each in a
folder of its own:

    s1 = ir-parse [--locations] model.ir
    s2 = ir-plan-devices s1
    s3 = ir-lower [--no-fuse] [--no-tile] [--no-texture] s2   (flags per seed)
    s4 = ir-plan-devices s3
    s5 = ir-flatten-texture s4

and checks that every tool exits 0; that each stage re-parses to the same
bytes (ir-parse s == s); that planning is idempotent (ir-plan-devices of
s2 and of s4 changes nothing); and that ir-run --interp gives, on the same
random inputs, the same bits for s1 and s2 and for s3, s4 and s5
(placement and images change no value), and for s4 what it gives for s1:
the same bits where the generator's error bound is 0, within the bound
elsewhere.

With --ocl, also on OpenCL (every declared device bound to POCL):

    o1 = ir-codegen-ocl s5
    o2 = ir-plan-memory s5 | ir-codegen-ocl

each run by ir-run --check, which runs every kernel on OpenCL and in the
interpreter on the same operands and compares them; and the result
compared with s1's, within the bound plus OpenCL's own rounding (exp
within a few ulp, contracted multiply-adds, f16 rounded from float), when
the model has no operator that a last-bit difference could flip (a
comparison, an argmax or argmin, a cast to an integer).

With --corpus DIR, every stage's output (the model, s1 to s5, p5 = s5
memory-planned, o1 and o2) is also written to DIR as seedS-STAGE.ir, the
fuzzers' seeds in make fuzz; o1, o2 and p5 are made without --ocl too.

The compile stages (s1 to s5, their re-parses, planning again, and the
OpenCL stages) run first for all models at once, each tool started once a
stage and set of flags with the models as the parts of one input
(--split-input-file --keep-going), a share of the models a job; what a
model's check finds there it takes as the same tool would give it alone,
and what failed or is missing there it runs alone (so a failure still
names the stage); ir-run runs once a model (the stages as parts), once
more for OpenCL.  --no-batch runs every stage of every model alone.

A failure prints the seed, what broke and the commands that reproduce it,
and the exit status is 1.  IRPIPE_BIN (or --bin) names the tools' folder.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cached_bytecode  # noqa: E402,F401 (before gen)
import gen  # noqa: E402

TIMEOUT = 120


class Failure(Exception):
    pass


def tool(bindir, name, args, stdin, cwd, what):
    cmd = [os.path.join(bindir, name)] + args
    try:
        p = subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise Failure("%s: timed out after %d s" % (what, TIMEOUT))
    if p.returncode != 0:
        raise Failure("%s: %s exited %d\n%s" % (what, name, p.returncode,
                                               p.stderr.decode(errors="replace")[-3000:]))
    return p.stdout


def same(what, a, b):
    if a != b:
        al, bl = a.decode(errors="replace").splitlines(), b.decode(errors="replace").splitlines()
        for i, (x, y) in enumerate(zip(al, bl)):
            if x != y:
                raise Failure("%s: line %d differs:\n  - %s\n  + %s" % (what, i + 1, x, y))
        raise Failure("%s: %d lines against %d" % (what, len(al), len(bl)))


SEPARATOR = b"// -----\n"
PART_FAILED = re.compile(rb": part ([0-9]+) of [0-9]+, from this line, failed$", re.M)


class Tools:
    """T(name, args, stdin, what): the output of tool name, run in folder d
    (raising Failure, which says what failed), or, when the same tool, args
    and input ran in a batch before (done, from batched()), what it gave
    there, the same bytes."""

    def __init__(self, bindir, d, done):
        self.bindir, self.d, self.done = bindir, d, done

    def cached(self, name, args, stdin):
        return self.done.get((name, tuple(args)), {}).get(stdin)

    def __call__(self, name, args, stdin, what):
        out = self.cached(name, args, stdin)
        return out if out is not None else tool(self.bindir, name, args, stdin, self.d, what)


def batched(bindir, name, flags, inputs, done):
    """Tool name with flags on each of inputs (bytes) in one start, as the
    parts of one input (--split-input-file --keep-going), into done (see
    Tools) for the inputs that succeeded.  Those that failed, or cannot be
    a part, or all of them if the batch went wrong, are left for the
    model's check to run alone, which names what failed."""
    ins = [x for x in dict.fromkeys(inputs) if x.endswith(b"\n") and SEPARATOR not in x]
    if not ins:
        return
    try:
        p = subprocess.run([os.path.join(bindir, name), "--split-input-file", "--keep-going"] +
                           flags + ["-"], input=SEPARATOR.join(ins), capture_output=True,
                           timeout=TIMEOUT * 4)
    except subprocess.TimeoutExpired:
        return
    if p.returncode not in (0, 1):
        return
    parts, part = [], []
    for line in p.stdout.splitlines(keepends=True):
        if line == SEPARATOR:
            parts.append(b"".join(part))
            part = []
        else:
            part.append(line)
    parts.append(b"".join(part))
    if len(parts) != len(ins):
        return
    failed = set(int(n) - 1 for n in PART_FAILED.findall(p.stderr))
    if (p.returncode == 1) != bool(failed):
        return   # a failure that names no part (a write error), or the reverse
    got = done.setdefault((name, tuple(flags)), {})
    for i, (x, out) in enumerate(zip(ins, parts)):
        if i not in failed:
            got[x] = out


def asked(T, name, args, stdin, what):
    """In a check that run_all runs (a generator: `out = yield from
    asked(...)`): tool name's output for stdin, from run_all's batch, or,
    where that has none (it failed there), from T(name, args, stdin,
    what) alone, which raises Failure saying what failed.  Only for tools
    that read no files beside their input (parse, plan, lower, flatten,
    alter the layout, plan memory, generate code): the batch runs in no
    model's folder."""
    out = yield (name, tuple(args), stdin)
    return out if out is not None else T(name, args, stdin, what)


def run_all(bindir, checks, batch=True):
    """Runs checks (generators, by key; see asked) side by side: each
    round, the tools they wait for start once for all of them a tool and
    set of flags (batched: the same bytes as alone), not once a model: a
    start under ASan costs 8 ms of CPU; batch False runs each alone.
    Returns the Failure's text, or None, by key."""
    res, wait = {}, {}

    def step(k, value):
        try:
            wait[k] = checks[k].send(value)
        except StopIteration:
            res[k] = None
        except Failure as e:
            res[k] = str(e)

    for k in checks:
        step(k, None)
    while wait:
        asked, wait = wait, {}
        done = {}
        if batch:
            groups = {}
            for name, flags, s in asked.values():
                groups.setdefault((name, flags), []).append(s)
            for (name, flags), ins in groups.items():
                batched(bindir, name, list(flags), ins, done)
        for k, (name, flags, s) in asked.items():
            step(k, done.get((name, flags), {}).get(s))
    return res


def batch_stages(seeds, bindir, legacy, ocl, corpus):
    """What check() runs of the compile stages (s1 .. s5, their re-parses,
    planning again, and for --ocl or --corpus ir-plan-memory and
    ir-codegen-ocl), for the models of seeds: one start of each tool a
    stage and set of flags for all (batched), not one a model: a start
    under ASan costs 8 ms of CPU.  ir-parse --locations of a model runs
    alone (its loc(...) name the lines of its own input)."""
    done = {}
    ms = []
    for seed in seeds:
        try:
            ms.append(gen.generate(seed, legacy))
        except Exception:
            pass   # check() says so
    T = Tools(bindir, None, done)

    def stage(name, flags_of, inputs_of):
        groups = {}
        for m in ms:
            ins = [x for x in inputs_of(m) if x is not None]
            groups.setdefault(tuple(flags_of(m)), []).extend(ins)
        for flags, ins in groups.items():
            batched(bindir, name, list(flags), ins, done)

    def out(name, flags, x):
        return None if x is None else T.cached(name, flags, x)

    text = {id(m): m.text.encode() for m in ms}
    for m in ms:
        if m.locations:
            try:
                done.setdefault(("ir-parse", ("--locations",)), {})[text[id(m)]] = \
                    tool(bindir, "ir-parse", ["--locations"], text[id(m)], None, "")
            except Failure:
                pass
    stage("ir-parse", lambda m: [], lambda m: [] if m.locations else [text[id(m)]])
    s = {}
    for m in ms:
        s[id(m), 1] = out("ir-parse", ["--locations"] if m.locations else [], text[id(m)])
    for k, name, flags_of in ((2, "ir-plan-devices", lambda m: m.plan_flags),
                              (3, "ir-lower", lambda m: m.lower_flags),
                              (4, "ir-plan-devices", lambda m: []),
                              (5, "ir-flatten-texture", lambda m: [])):
        stage(name, flags_of, lambda m: [s[id(m), k - 1]])
        for m in ms:
            s[id(m), k] = out(name, flags_of(m), s[id(m), k - 1])
    stage("ir-parse", lambda m: [], lambda m: [s[id(m), k] for k in range(1, 6)])
    stage("ir-plan-devices", lambda m: m.plan_flags, lambda m: [s[id(m), 2]])
    stage("ir-plan-devices", lambda m: [], lambda m: [s[id(m), 4]])
    if ocl or corpus:
        stage("ir-plan-memory", lambda m: [], lambda m: [s[id(m), 5]])
        stage("ir-codegen-ocl", lambda m: [], lambda m: [
            s[id(m), 5], out("ir-plan-memory", [], s[id(m), 5])])
    return done


def unchanged(T, name, flags, stages, said, what):
    """Tool name (with flags) gives each (k, text) of stages back to the
    byte: first all at once, as the parts of one --split-input-file input
    (one start of the tool, not one a stage: a start under ASan costs 8 ms
    of CPU), and only if that differs or fails, stage by stage, which
    names the one (said % k, what % k).  Outputs of a batch (Tools) are
    taken as they are."""
    outs = [T.cached(name, flags, s) for _, s in stages]
    if all(o is not None for o in outs):
        for (k, s), o in zip(stages, outs):
            same(said % k, s, o)
        return
    if all(s.endswith(b"\n") and SEPARATOR not in s for _, s in stages):
        joined = SEPARATOR.join(s for _, s in stages)
        try:
            if T(name, ["--split-input-file"] + flags + ["-"], joined,
                 "%s of the stages" % name) == joined:
                return
        except Failure:
            pass
    for k, s in stages:
        same(said % k, s, T(name, flags, s, what % k))


def reparsed(T, stages):
    """Each (name, text) of stages parses back to the same bytes."""
    unchanged(T, "ir-parse", [], stages, "%s re-parsed", "ir-parse of %s")


def ran_each(T, d, stages, args, ext, tag, what):
    """ir-run ARGS of each (name, text) of stages, written as name.ir in the
    folder d before: each result's path, by name.  One start of ir-run for
    all, as the parts of one --split-input-file input (their results in
    the folder tag.res, as i.npy or, for a tuple (ext ""), i/), and only if
    that fails, stage by stage into name.npy (or name/), which names the
    one; what % name says what failed."""
    if all(s.endswith(b"\n") and SEPARATOR not in s for _, s in stages):
        with open(os.path.join(d, tag + ".ir"), "wb") as f:
            f.write(SEPARATOR.join(s for _, s in stages))
        try:
            T("ir-run", ["--split-input-file"] + args + ["-o", tag + ".res", tag + ".ir"], b"",
              what % tag)
            return {k: os.path.join(d, "%s.res" % tag, "%d%s" % (i, ext))
                    for i, (k, _) in enumerate(stages)}
        except Failure:
            pass
    res = {}
    for k, _ in stages:
        res[k] = os.path.join(d, k + ext)
        T("ir-run", args + ["-o", res[k], k + ".ir"], b"", what % k)
    return res


def compare(m, ref, out, exact=False, what="lowered", ocl=False):
    """Compares the outputs of the graph level (ref) and the lowered module
    (or, exact, of two stages that must give the same bits; or, ocl, of
    OpenCL: within the bound plus ir-run --check's tolerance, tenfold)."""
    files = ["%d.npy" % i for i in range(len(m.outputs))] if m.tuple_result else [""]
    for i, ((dt, shape, err), f) in enumerate(zip(m.outputs, files)):
        a = np.load(os.path.join(ref, f) if f else ref)
        b = np.load(os.path.join(out, f) if f else out)
        where = "output %d" % i
        if a.shape != tuple(shape) or b.shape != a.shape or a.dtype != b.dtype:
            raise Failure("%s: graph level %s %s, %s %s %s, expected %s" % (
                where, a.dtype, a.shape, what, b.dtype, b.shape, shape))
        if ocl and a.dtype.kind == "f":
            af, bf = a.astype(np.float64), b.astype(np.float64)
            rtol, atol = (1e-2, 1e-3) if dt == "f16" else (1e-4, 1e-5)
            tol = 2 * err + 10 * (rtol * np.abs(af) + atol)
            bad = ~(np.abs(af - bf) <= tol) & ~(np.isnan(af) & np.isnan(bf))
        elif exact or err == 0 or a.dtype.kind in "biu":
            bad = (a != b) & ~(np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a != b
            tol = 0.0
        else:
            af, bf = a.astype(np.float64), b.astype(np.float64)
            tol = 2 * err + 1e-30
            bad = ~(np.abs(af - bf) <= tol) & ~(np.isnan(af) & np.isnan(bf))
        if bad.any():
            idx = tuple(int(j) for j in np.argwhere(bad)[0])
            raise Failure("%s: %d of %d elements differ; at %s: graph level %r, %s %r "
                          "(tolerance %g)" % (where, int(bad.sum()), a.size, list(idx),
                                              a[idx].item(), what, b[idx].item(),
                                              tol if np.isscalar(tol) else tol[idx]))


COPY = re.compile(rb"^( *)%([A-Za-z0-9_]+)[^=]*= device_copy\(%([A-Za-z0-9_.]+), \S+ -> (\S+)\)")


def copies_once(what, s, written):
    """At most one copy of a value to a destination where its uses are (the
    same block or one inside it): the planner's, not copies the model wrote."""
    path = [0]
    nblocks = 0
    seen = {}
    for line in s.splitlines():
        body = line.split(b" loc(")[0].rstrip()
        if body.startswith(b"fn ") or body.startswith(b"prim "):
            path, seen = [0], {}
        if body.endswith(b"} else {"):
            nblocks += 1
            path[-1] = nblocks
            continue
        if body.endswith(b"{"):
            nblocks += 1
            path.append(nblocks)
        elif body.strip() == b"}":
            path.pop()
            if not path:
                path = [0]
        m = COPY.match(body)
        if m and m.group(2) not in written:
            key = (m.group(3), m.group(4))
            for other in seen.get(key, []):
                if other == path[:len(other)]:
                    raise Failure("%s: a second copy of %%%s to %s, %%%s" % (
                        what, key[0].decode(), key[1].decode(), m.group(2).decode()))
            seen.setdefault(key, []).append(list(path))


# Operators whose result a last-bit difference of an operand may change by
# a whole step: on OpenCL, exp is within a few ulp and multiply-adds may
# be contracted, so such a result is checked kernel by kernel only.
STEP_OPS = re.compile(rb"= (equal|not_equal|less|less_equal|greater|greater_equal|argmax|"
                      rb"argmin|cast)\(")
DEVICE = re.compile(rb"^device @([A-Za-z0-9_]+) ", re.M)


def ocl_stages(s5, T):
    """s5 memory-planned, and the OpenCL C of s5 as it is and planned."""
    p5 = T("ir-plan-memory", [], s5, "ir-plan-memory")
    return (p5, T("ir-codegen-ocl", [], s5, "ir-codegen-ocl"),
            T("ir-codegen-ocl", [], p5, "ir-codegen-ocl after ir-plan-memory"))


def ocl_checks(m, d, args, text, s5, o1, o2, ref, T):
    """s5 on OpenCL, as it is (o1) and memory-planned (o2); ir-run --check
    runs every kernel against the interpreter.  Every device runs on POCL."""
    binds = []
    for name in DEVICE.findall(s5):
        binds += ["--device", "@%s=Portable" % name.decode()]
    stages = (("o1", o1), ("o2", o2))
    for k, o in stages:
        with open(os.path.join(d, k + ".ir"), "wb") as f:
            f.write(o)
    res = ran_each(T, d, stages, ["--check", "--data-dir=."] + binds + args,
                   "" if m.tuple_result else ".npy", "o", "ir-run --check of %s (OpenCL)")
    for k, _ in stages:
        if not STEP_OPS.search(text):
            compare(m, ref, res[k], what="OpenCL (%s)" % k, ocl=True)


def pipeline(m, args, ocl=False):
    """The shell commands check() runs, for the reproducer."""
    loc = " --locations" if m.locations else ""
    low = "".join(" " + f for f in m.lower_flags)
    plan = "".join(" " + f for f in m.plan_flags)
    inp = " ".join(args)
    ext = "" if m.tuple_result else ".npy"
    return ("ir-parse%s model.ir > s1.ir\n"
            "ir-plan-devices%s s1.ir > s2.ir\n"
            "ir-lower%s s2.ir > s3.ir\n"
            "ir-plan-devices s3.ir > s4.ir\n"
            "ir-flatten-texture s4.ir > s5.ir\n"
            "for s in s1 s2 s3 s4 s5; do ir-parse $s.ir | cmp - $s.ir; done\n"
            "ir-plan-devices%s s2.ir | cmp - s2.ir\n"
            "ir-plan-devices s4.ir | cmp - s4.ir\n"
            "for s in s1 s2 s3 s4 s5; do ir-run --interp --data-dir=. %s -o $s%s $s.ir; done\n"
            "# s1 = s2, s3 = s4 = s5 exactly, s1 = s4 within the generator's error bound\n"
            % (loc, plan, low, plan, inp, ext) +
            ("" if not ocl else
             "ir-codegen-ocl s5.ir > o1.ir\n"
             "ir-plan-memory s5.ir | ir-codegen-ocl > o2.ir\n"
             "B=$(sed -n 's/^device @\\([A-Za-z0-9_]*\\) .*/--device @\\1=Portable/p' s5.ir)\n"
             "for s in o1 o2; do ir-run --check $B --data-dir=. %s -o $s%s $s.ir; done\n"
             % (inp, ext)))


def check(seed, bindir, keep, legacy=False, ocl=False, corpus=None, done=None):
    d = tempfile.mkdtemp(prefix="irpipe-random-%d." % seed)
    ok = False
    try:
        try:
            m, args = gen.write(seed, d, legacy)
        except Exception:
            import traceback
            raise Failure("the generator failed:\n" + traceback.format_exc())
        with open(os.path.join(d, "repro.sh"), "w") as f:
            f.write("# seed %d: cd here and run with the tools on PATH\nset -e\n" % seed)
            f.write(pipeline(m, args, ocl))
        with open(os.path.join(d, "model.ir"), "rb") as f:
            text = f.read()
        T = Tools(bindir, d, done or {})
        s1 = T("ir-parse", ["--locations"] if m.locations else [], text, "ir-parse of the model")
        s2 = T("ir-plan-devices", m.plan_flags, s1, "ir-plan-devices " + " ".join(m.plan_flags))
        s3 = T("ir-lower", m.lower_flags, s2, "ir-lower " + " ".join(m.lower_flags))
        s4 = T("ir-plan-devices", [], s3, "ir-plan-devices after ir-lower")
        s5 = T("ir-flatten-texture", [], s4, "ir-flatten-texture")
        reparsed(T, (("s1", s1), ("s2", s2), ("s3", s3), ("s4", s4), ("s5", s5)))
        # planning again changes nothing (s2 with the model's flags)
        for flags, stages in (([], (("s2", s2), ("s4", s4))),) if not m.plan_flags else \
                ((m.plan_flags, (("s2", s2),)), ([], (("s4", s4),))):
            unchanged(T, "ir-plan-devices", flags, stages, "%s planned again",
                      "ir-plan-devices of %s")
        if ocl or corpus:
            p5, o1, o2 = ocl_stages(s5, T)
        if corpus:
            # every stage's output, as seeds for the fuzzers (make fuzz)
            for k, s in (("model", text), ("s1", s1), ("s2", s2), ("s3", s3), ("s4", s4),
                         ("s5", s5), ("p5", p5), ("o1", o1), ("o2", o2)):
                with open(os.path.join(corpus, "seed%d-%s.ir" % (seed, k)), "wb") as f:
                    f.write(s)
        if gen.CHECK_COPIES_ONCE:
            written = set(c.group(2) for c in map(COPY.match, text.splitlines()) if c)
            copies_once("s2", s2, written)
        stages = (("s1", s1), ("s2", s2), ("s3", s3), ("s4", s4), ("s5", s5))
        for k, s in stages:
            with open(os.path.join(d, k + ".ir"), "wb") as f:
                f.write(s)
        res = ran_each(T, d, stages, ["--interp", "--data-dir=."] + args,
                       "" if m.tuple_result else ".npy", "s", "ir-run of %s")
        # placement changes no value: s2 is s1, s4 is s3, to the bit
        compare(m, res["s1"], res["s2"], exact=True, what="planned (s2)")
        compare(m, res["s3"], res["s4"], exact=True, what="planned again (s4)")
        compare(m, res["s4"], res["s5"], exact=True, what="flattened (s5)")
        compare(m, res["s1"], res["s4"], what="lowered (s4)")
        if ocl:
            ocl_checks(m, d, args, text, s5, o1, o2, res["s1"], T)
        ok = True
        return None
    except Failure as e:
        return str(e)
    finally:
        if ok and not keep:
            shutil.rmtree(d, ignore_errors=True)
        elif not ok:
            check.dirs[seed] = d


check.dirs = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--seeds", metavar="S,S,...",
                    help="the models of these seeds (instead of --seed and --count): one run, "
                         "its stages batched, for the seeds a test names")
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", action="store_true", help="keep the folders of passing models too")
    ap.add_argument("--max-failures", type=int, default=10)
    ap.add_argument("--ocl", action="store_true",
                    help="also generate OpenCL C and run it on POCL (ir-run --check)")
    ap.add_argument("--corpus", metavar="DIR",
                    help="write every stage's output of every model into DIR (seedS-STAGE.ir: "
                         "model, s1 to s5, p5 = s5 memory-planned, o1 and o2 = OpenCL C of s5 "
                         "and p5), as seeds for the fuzzers")
    ap.add_argument("--no-batch", action="store_true",
                    help="run every model's compile stages on their own, not first for all "
                         "models at once (a start of each tool a stage)")
    ap.add_argument("--legacy", action="store_true",
                    help="the models of gen.py --legacy (the seeds of older tests)")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    corpus = os.path.abspath(a.corpus) if a.corpus else None
    if corpus:
        os.makedirs(corpus, exist_ok=True)
    seeds = [int(x) for x in a.seeds.split(",")] if a.seeds else range(a.seed, a.seed + a.count)
    failed = 0
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        # the compile stages of all models first, a share of the models a
        # job (batch_stages), then each model's checks
        done = {}
        if not a.no_batch:
            chunks = [seeds[i::a.jobs] for i in range(a.jobs)]
            for part in ex.map(lambda c: batch_stages(c, bindir, a.legacy, a.ocl, corpus),
                               chunks):
                for key, outs in part.items():
                    done.setdefault(key, {}).update(outs)
        run = lambda s: check(s, bindir, a.keep, a.legacy, a.ocl, corpus, done)  # noqa: E731
        for seed, msg in zip(seeds, ex.map(run, seeds)):
            if msg is None:
                continue
            failed += 1
            if failed <= a.max_failures:
                d = check.dirs.get(seed, "")
                print("random: FAIL seed %d: %s" % (seed, msg))
                print("  reproduce: %s %s/check.py%s%s --seed %d --count 1 --bin %s" % (
                    sys.executable, os.path.relpath(HERE), " --legacy" if a.legacy else "",
                    " --ocl" if a.ocl else "", seed, bindir))
                print("  or: cd %s && PATH=%s:$PATH sh repro.sh   (model, inputs, commands)" % (
                    d, bindir))
                sys.stdout.flush()
    if a.seeds:
        print("random: %d models (seeds %s), %d failed" % (len(seeds), a.seeds, failed))
    else:
        print("random: %d models from seed %d, %d failed" % (a.count, a.seed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
