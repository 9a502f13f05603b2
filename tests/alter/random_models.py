"""ir-alter-layout on random models (tests/gen/gen.py): for each seed and
each --layout mode, the altered module re-parses to itself, a second run
changes nothing, and `ir-run --interp` gives what the model gives, at the
graph level and after ir-plan-devices | ir-lower | ir-plan-devices |
ir-flatten-texture (within the generator's error bound, as check.py).

    random_models.py [--seed S] [--count N] [--bin DIR] [--no-batch]

The models' checks run side by side (tests/gen/check.py's run_all): each
tool but ir-run starts once a stage for all models (--split-input-file
--keep-going, a model a part; what fails there runs alone, so a failure
names the model and the stage), ir-run once a model for its five modules;
--no-batch runs every tool once a model and stage.
A failure prints the seed and its folder, and the exit status is 1.
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "gen"))
import check as C  # noqa: E402
import gen  # noqa: E402

MODES = ("auto", "NCHW4c")


def one(seed, bindir):
    """The checks of seed's model, a generator for check.run_all, which
    batches the runs of every tool but ir-run (which reads the model's
    files, in its folder) across models; ir-run runs once for the model's
    five modules (check.ran_each)."""
    d = tempfile.mkdtemp(prefix="irpipe-alter-%d." % seed)
    T = lambda name, a, s, what: C.tool(bindir, name, a, s, d, what)  # noqa: E731
    B = lambda name, a, s, what: C.asked(T, name, a, s, what)  # noqa: E731
    try:
        m, args = gen.write(seed, d)
        with open(os.path.join(d, "model.ir"), "rb") as f:
            s1 = yield from B("ir-parse", [], f.read(), "ir-parse of the model")
        runs = [("s1", s1)]
        for mode in MODES:
            flag = ["--layout=" + mode]
            a = yield from B("ir-alter-layout", flag, s1, "ir-alter-layout " + flag[0])
            C.same("altered (%s) re-parsed" % mode, a, (yield from B("ir-parse", [], a, "ir-parse")))
            C.same("altered (%s) twice" % mode, a,
                   (yield from B("ir-alter-layout", flag, a, "ir-alter-layout, second run")))
            s = yield from B("ir-plan-devices", m.plan_flags, a, "ir-plan-devices")
            s = yield from B("ir-lower", m.lower_flags, s, "ir-lower " + " ".join(m.lower_flags))
            s = yield from B("ir-plan-devices", [], s, "ir-plan-devices after ir-lower")
            s = yield from B("ir-flatten-texture", [], s, "ir-flatten-texture")
            runs += [("a_" + mode, a), ("l_" + mode, s)]
        for k, text in runs:
            with open(os.path.join(d, k + ".ir"), "wb") as f:
                f.write(text)
        res = C.ran_each(T, d, runs, ["--interp", "--data-dir=."] + args,
                         "" if m.tuple_result else ".npy", "all", "ir-run of %s")
        for mode in MODES:
            C.compare(m, res["s1"], res["a_" + mode], what="altered (%s)" % mode)
            C.compare(m, res["s1"], res["l_" + mode], what="altered (%s), lowered" % mode)
        shutil.rmtree(d, ignore_errors=True)
    except C.Failure as e:
        raise C.Failure("%s (folder %s)" % (e, d))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--no-batch", action="store_true",
                    help="run every tool once a model and stage, not once a stage for all")
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    failed = 0
    seeds = range(a.seed, a.seed + a.count)
    res = C.run_all(bindir, {seed: one(seed, bindir) for seed in seeds}, not a.no_batch)
    for seed in seeds:
        msg = res[seed]
        if msg:
            failed += 1
            print("alter: FAIL seed %d: %s" % (seed, msg))
    print("alter: %d random models from seed %d, %d failed" % (a.count, a.seed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
