"""A mutation campaign over the test files, through every tool (make fuzz).

    mutate.py [--seed S] [--count N] [--bin DIR] [--jobs J] [--out DIR]

Mutant i of seed S is a test file (tests/**/*.ir) changed by a few random
edits: bytes flipped, a range cut or repeated, lines swapped, dropped or
taken from another file, a number replaced by an extreme one, a token of
the IR inserted.  Each mutant goes through

    ir-parse, ir-plan-devices, ir-lower [random options], ir-flatten-texture,
    ir-alter-layout [random --layout] (its output re-parsed),
    ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture
    (as far as each stage accepts its input),
    any other tool of the build folder on the mutant and on that output,
    ir-run --interp (with random inputs for @main's parameters; only
    for modules whose tensors are small enough to run in time),

and a run fails when a tool exits other than 0 or 1 (a crash, a sanitizer
report: run the sanitizer build), runs past the time limit, or exits 1
with output on stdout or without a message on stderr.  A failure prints
the seed, the tool and the mutant's file under --out, and the exit status
is 1.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

TIMEOUT = 20

TOKENS = [
    "fn", "prim", "device", "default", "host", "pool", "return", "yield", "if", "else",
    "const", "on", "on_device", "device_copy", "call_lowered", "true", "false", "loc",
    "for", "in", "let", "alloc", "kernel", "barrier", "inf", "nan", "->", "..", "@cpu",
    "@gpu", "@gpu:texture", "@gpu:texture:weight", "@cpu:global", "@gpu:local", "%0", "%x",
    "%t.0", "%t.1", "f32[]", "f32[1,4,4,4,4]", "i32[0]", "bool[]", "f16", "u64", "(", ")",
    "[", "]", "{", "}", ",", "=", ":", "-", "%", "!", "\n", "  ", "// c\n", "// -----\n",
    "constrain_body=false", "constrain_result=true", "{texture=true}", "{axis=-1}",
    "{keepdims=true}", "{indices_or_sections=1}", "{newshape=[-1]}", "{axes=[1, 0]}",
    "nn.conv2d", "nn.dense", "split", "concatenate", "sum", "mean", "reshape",
    "layout_transform", "nn.max_pool2d", "nn.softmax", "cast", "texture2d_load",
    "bind(threadIdx.x)", "parallel", "vectorized", "unrolled", "select", "broadcast<f32x4>",
    "lane", "cast<i32>", "%A[0:4]", "%A[]", "loc(\"x.ir\":1:1)",
]
NUMBERS = ["0", "1", "-1", "2", "3", "4", "16", "17", "64", "65", "255", "256", "65535",
           "65536", "2147483647", "2147483648", "-2147483648", "4294967296",
           "9223372036854775807", "18446744073709551615", "18446744073709551616",
           "1099511627776", "1e308", "1e-320", "-0.0", "0.5", "nan", "inf"]


def mutate(r, text, others):
    b = bytearray(text)
    for _ in range(r.choice([1, 1, 2, 3, 5])):
        if not b:
            b = bytearray(r.choice(TOKENS).encode())
        k = r.randrange(10)
        i = r.randrange(len(b))
        if k == 0:      # flip a byte
            b[i] = r.randrange(256) if r.random() < 0.3 else r.choice(b" \n,()[]{}%@:=-.0123456789abxf")
        elif k == 1:    # cut a range
            del b[i:i + r.choice([1, 2, 5, 20, 200])]
        elif k == 2:    # repeat a range
            j = min(len(b), i + r.choice([1, 5, 40, 400]))
            b[i:i] = b[i:j] * r.choice([1, 2, 10])
        elif k in (3, 4):  # insert a token
            b[i:i] = r.choice(TOKENS).encode()
        elif k == 5:    # a number replaced
            ms = list(re.finditer(rb"-?[0-9]+(\.[0-9]+)?", bytes(b)))
            if ms:
                m = r.choice(ms)
                b[m.start():m.end()] = r.choice(NUMBERS).encode()
        else:           # whole lines: drop, swap, duplicate, take from another file
            lines = bytes(b).split(b"\n")
            a = r.randrange(len(lines))
            if k == 6:
                del lines[a]
            elif k == 7:
                c = r.randrange(len(lines))
                lines[a], lines[c] = lines[c], lines[a]
            elif k == 8:
                lines.insert(a, lines[a])
            else:
                other = r.choice(others).split(b"\n")
                lines.insert(a, r.choice(other))
            b = bytearray(b"\n".join(lines))
    return bytes(b)


def elements(text):
    """The elements of every tensor type the module writes: a model too big
    for the interpreter to run within the time limit is not run."""
    n = 0
    for m in re.finditer(rb"[a-z][0-9]+\[([0-9,]*)\]", text):
        k = 1
        for x in m.group(1).split(b","):
            k *= int(x) if x else 1
        n += k
    return n


def main_params(text):
    """@main's parameters from ir-parse's canonical output: [(name, dt, shape)]."""
    m = re.search(rb"^fn @main\((.*)\)[^(]*\{", text, re.M)
    if not m:
        return []
    out = []
    for p in re.finditer(rb"%([A-Za-z0-9_]+): ([a-z0-9]+)\[([0-9,]*)\]", m.group(1)):
        shape = [int(x) for x in p.group(3).split(b",") if x]
        out.append((p.group(1).decode(), p.group(2).decode(), shape))
    return out


def limits():
    """Huge tensors are refused only by the allocator for now (issue 10,
    item 10): keep a mutant from taking the machine's memory."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30))


class Runner:
    def __init__(self, bindir, outdir):
        self.bindir, self.outdir = bindir, outdir
        known = {"ir-parse", "ir-plan-devices", "ir-lower", "ir-flatten-texture", "ir-run",
                 "ir-alter-layout"}
        self.others = sorted(t for t in os.listdir(bindir)
                             if t.startswith("ir-") and t not in known)
        # a sanitizer build cannot run under an address-space limit: its
        # allocator refuses huge tensors instead (a clean exit 1)
        self.asan = subprocess.run(["nm", os.path.join(bindir, "ir-parse")], capture_output=True,
                                   text=True).stdout.find("__asan_init") >= 0
        if self.asan:
            os.environ.setdefault("ASAN_OPTIONS", "")
            os.environ["ASAN_OPTIONS"] += ":allocator_may_return_null=1:max_allocation_size_mb=4096"

    def run(self, tool, args, stdin, cwd):
        cmd = [os.path.join(self.bindir, tool)] + args
        try:
            p = subprocess.run(cmd, input=stdin, cwd=cwd, capture_output=True, timeout=TIMEOUT,
                               preexec_fn=None if self.asan else limits)
        except subprocess.TimeoutExpired:
            return None, "timed out after %d s" % TIMEOUT
        rc = p.returncode
        err = p.stderr.decode(errors="replace")
        if rc not in (0, 1):
            return p, "exit status %d\n%s" % (rc, err[-2000:])
        if rc == 1 and p.stdout:
            return p, "exit 1 with %d bytes on stdout" % len(p.stdout)
        if rc == 1 and not err.strip():
            return p, "exit 1 without a message"
        if "runtime error:" in err or "AddressSanitizer" in err or "LeakSanitizer" in err:
            return p, "sanitizer report\n" + err[-2000:]
        return p, None

    def one(self, seed, files, texts):
        r = random.Random(seed)
        k = r.randrange(len(files))
        mut = mutate(r, texts[k], texts)
        flags = [f for f in ("--no-fuse", "--no-tile", "--no-texture") if r.random() < 0.3]
        d = tempfile.mkdtemp(prefix="irpipe-mutant-%d." % seed)
        failures = []

        def step(tool, args, stdin, what):
            p, why = self.run(tool, args, stdin, d)
            if why:
                failures.append("%s: %s" % (what, why))
            return p.stdout if p is not None and p.returncode == 0 else None

        try:
            step("ir-parse", [], mut, "ir-parse")
            step("ir-lower", flags, mut, "ir-lower " + " ".join(flags))
            planned = step("ir-plan-devices", [], mut, "ir-plan-devices")
            lowered = planned and step("ir-lower", flags, planned,
                                       "ir-plan-devices | ir-lower " + " ".join(flags))
            final = lowered and step("ir-plan-devices", [], lowered,
                                     "ir-plan-devices | ir-lower | ir-plan-devices")
            canon = step("ir-parse", [], final, "... | ir-parse") if final else None
            if canon is not None and canon != final:
                failures.append("the pipeline's output does not re-parse to itself")
            step("ir-flatten-texture", [], mut, "ir-flatten-texture")
            layout = ["--layout=" + r.choice(("auto", "NCHW4c"))]
            altered = step("ir-alter-layout", layout, mut, "ir-alter-layout " + layout[0])
            if altered is not None and step("ir-parse", [], altered, "ir-alter-layout | ir-parse") \
                    not in (altered, None):
                failures.append("ir-alter-layout's output does not re-parse to itself")
            flat = final and step("ir-flatten-texture", [], final,
                                  "ir-plan-devices | ir-lower | ir-plan-devices | ir-flatten-texture")
            if flat is not None and step("ir-parse", [], flat, "... | ir-flatten-texture | ir-parse") \
                    not in (flat, None):
                failures.append("ir-flatten-texture's output does not re-parse to itself")
            args = []
            parsed = self.run("ir-parse", [], mut, d)[0]
            if parsed is not None and parsed.returncode == 0:
                import numpy as np
                rng = np.random.default_rng(seed)
                for name, dt, shape in main_params(parsed.stdout):
                    n = 1
                    for x in shape:
                        n *= x
                    if n > 1 << 20:
                        break
                    npdt = {"f16": "float16", "f32": "float32", "f64": "float64", "bool": "bool",
                            "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
                            "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}.get(dt)
                    if npdt is None:
                        break
                    a = (rng.uniform(-2, 2, size=shape) if dt[0] == "f" else
                         rng.integers(-3, 4, size=shape) if dt[0] == "i" else
                         rng.integers(0, 4, size=shape)).astype(npdt)
                    np.save(os.path.join(d, name + ".npy"), a)
                    args.append("--input=%s=%s.npy" % (name, name))
            # tools beyond these (ir-codegen-ocl, ...): the mutant and the
            # pipeline's output, with no options
            for t in self.others:
                step(t, [], mut, t)
                if flat:
                    step(t, [], flat, "... | ir-flatten-texture | " + t)
            run_in = flat or final or mut
            if elements(run_in) <= 200000:
                step("ir-run", ["--interp", "--data-dir=."] + args, run_in, "ir-run --interp")
            if failures:
                path = os.path.join(self.outdir, "mutant-%d.ir" % seed)
                with open(path, "wb") as f:
                    f.write(mut)
                return "seed %d (from %s): %s\n  mutant: %s" % (seed, files[k], "; ".join(failures), path)
            return None
        finally:
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
            os.rmdir(d)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default="build-fuzz/mutants")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = sorted(glob.glob(os.path.join(root, "tests", "**", "*.ir"), recursive=True))
    texts = [open(f, "rb").read() for f in files]
    files = [os.path.relpath(f, root) for f in files]
    os.makedirs(a.out, exist_ok=True)
    runner = Runner(os.path.abspath(a.bin), os.path.abspath(a.out))
    seeds = range(a.seed, a.seed + a.count)
    failed = 0
    with cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for msg in ex.map(lambda s: runner.one(s, files, texts), seeds):
            if msg:
                failed += 1
                print("mutate: FAIL " + msg)
                sys.stdout.flush()
    print("mutate: %d mutants from seed %d of %d files, %d failed; reproduce one with "
          "%s %s --seed N --count 1 --bin %s" % (a.count, a.seed, len(files), failed,
                                                 sys.executable, os.path.relpath(__file__),
                                                 a.bin))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
