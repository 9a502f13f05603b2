"""ir-alter-layout on random models (tests/gen/gen.py): for each seed and
each --layout mode, the altered module re-parses to itself, a second run
changes nothing, and `ir-run --interp` gives what the model gives, at the
graph level and after ir-plan-devices | ir-lower | ir-plan-devices |
ir-flatten-texture (within the generator's error bound, as check.py).

    random_models.py [--seed S] [--count N] [--bin DIR]

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
    d = tempfile.mkdtemp(prefix="irpipe-alter-%d." % seed)
    T = lambda name, a, s, what: C.tool(bindir, name, a, s, d, what)  # noqa: E731
    try:
        m, args = gen.write(seed, d)
        with open(os.path.join(d, "model.ir"), "rb") as f:
            s1 = T("ir-parse", [], f.read(), "ir-parse of the model")

        def run(k, text):
            with open(os.path.join(d, k + ".ir"), "wb") as f:
                f.write(text)
            out = os.path.join(d, k + ("" if m.tuple_result else ".npy"))
            T("ir-run", ["--interp", "--data-dir=."] + args + ["-o", out, k + ".ir"], b"",
              "ir-run of " + k)
            return out

        ref = run("s1", s1)
        for mode in MODES:
            flag = ["--layout=" + mode]
            a = T("ir-alter-layout", flag, s1, "ir-alter-layout " + flag[0])
            C.same("altered (%s) re-parsed" % mode, a, T("ir-parse", [], a, "ir-parse"))
            C.same("altered (%s) twice" % mode, a,
                   T("ir-alter-layout", flag, a, "ir-alter-layout, second run"))
            C.compare(m, ref, run("a_" + mode, a), what="altered (%s)" % mode)
            s = T("ir-plan-devices", m.plan_flags, a, "ir-plan-devices")
            s = T("ir-lower", m.lower_flags, s, "ir-lower " + " ".join(m.lower_flags))
            s = T("ir-plan-devices", [], s, "ir-plan-devices after ir-lower")
            s = T("ir-flatten-texture", [], s, "ir-flatten-texture")
            C.compare(m, ref, run("l_" + mode, s), what="altered (%s), lowered" % mode)
        shutil.rmtree(d, ignore_errors=True)
        return None
    except C.Failure as e:
        return "%s (folder %s)" % (e, d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=30)
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    a = ap.parse_args()
    bindir = os.path.abspath(a.bin)
    failed = 0
    for seed in range(a.seed, a.seed + a.count):
        msg = one(seed, bindir)
        if msg:
            failed += 1
            print("alter: FAIL seed %d: %s" % (seed, msg))
    print("alter: %d random models from seed %d, %d failed" % (a.count, a.seed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
