#!/usr/bin/python3
"""bench/models.py (make models): every classification architecture of
torchvision through irpipe, as a table: imported, compiled, equal to
torch, and time against torch (issue 27).

    /usr/bin/python3 bench/models.py [options] [NAME...]

Each builder of torchvision.models (its classification models: 80 in
Debian's python3-torchvision 0.14) is built with random weights
(torch.manual_seed(0)) in eval mode and exported by torch.onnx at each
opset asked for, for the smallest input 1x3xSxS in --sizes that the model
takes (torch runs it), with a random input (seed 1) and torch's output.
Then, each step under its own time limit (--timeout seconds):

    import   ir-import-onnx
    compile  for each target (--targets):
             cpu  ir-plan-devices | ir-lower | ir-plan-devices |
                  ir-flatten-texture | ir-codegen-ocl   (a cpu device)
             tex  ir-alter-layout | ir-fold-constants | ir-plan-devices |
                  ir-lower | ir-plan-devices | ir-flatten-texture |
                  ir-codegen-ocl   (gpu(0) {texture=true}: NCHW4c, in
                  images where they fit the device's image2d_max, else
                  in buffers)
    equal    ir-run on OpenCL (POCL) equals torch: |got - want| <=
             1e-3 |want| + 1e-4 max|want| (tests/onnx/models.py same)
    time     ir-run's median over --repeat runs against torch's median on
             this machine's CPU, same input (ms, and the ratio)

Each model's cells are kept in WORK/NAME/row.json: a run of some opsets,
targets or models replaces those cells and keeps the others, and --report
prints the table of what is kept without running anything.

A model of more than --max-params million parameters is skipped, with the
reason in the table.  --stage import stops after the import: the first
error of each refusal is in the table, and a count of the operators
refused ends it.  Work files go to --work (build/models by default).
Prints a markdown table on stdout and progress on stderr; nothing is
asserted.
"""
import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SAME = os.path.join(HERE, "..", "tests", "onnx", "models.py")
PY = "/usr/bin/python3"


def builders():
    import torchvision.models as m
    return sorted(m.list_models(module=m))


def export(name, sizes, opsets, out, torch_runs):
    """Runs in a child process: the model, its smallest size, its files."""
    import numpy as np
    import torch
    torch.set_num_threads(max(1, (os.cpu_count() or 1)))
    zero_symbolic(torch)
    # torchvision's builder, seed 0, with the weights it leaves all zero
    # (vit's head) drawn: else every result equals the zero output
    import importlib.util
    spec = importlib.util.spec_from_file_location("onnx_models", SAME)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    model = helper.build(name)
    params = sum(p.numel() for p in model.parameters())
    g = torch.Generator().manual_seed(1)
    why = "no size in --sizes runs"
    for s in sizes:
        x = torch.randn(1, 3, s, s, generator=g)
        try:
            with torch.no_grad():
                y = model(x)
        except Exception as e:
            why = "size %d: torch: %s" % (s, str(e).splitlines()[0][:120])
            continue
        # torch.onnx refuses some sizes torch runs (an adaptive pool whose
        # output is not a factor of its input): the next size then
        try:
            for o in opsets:
                torch.onnx.export(model, x, "%s/m%d.onnx" % (out, o), opset_version=o,
                                  input_names=["x"], output_names=["y"])
        except Exception as e:
            why = "size %d: torch.onnx: %s" % (s, str(e).splitlines()[0][:120])
            continue
        break
    else:
        print("size none")
        sys.stderr.write("error: %s\n" % why)
        return False
    times = []
    with torch.no_grad():
        model(x)    # a warm-up run, as ir-run's first (untimed) one
        for _ in range(torch_runs):
            t = time.perf_counter()
            model(x)
            times.append(time.perf_counter() - t)
    np.save(out + "/x.npy", x.numpy())
    np.save(out + "/y.npy", y.numpy())
    print("size %d" % s)
    print("params %d" % params)
    print("torch_ms %.3f" % (sorted(times)[len(times) // 2] * 1e3))
    return True


def zero_symbolic(torch):
    """torch.onnx (1.13) has no symbolic for aten::zero, the in-place
    zero_ that torchvision's swin_v2 attention applies to a slice of its
    cloned qkv bias, so it refuses swin_v2_* at every size; its own
    register_custom_op_symbolic maps it to zeros_like."""
    from torch.onnx import symbolic_opset9 as s9
    torch.onnx.register_custom_op_symbolic(
        "aten::zero", lambda g, self: s9.zeros_like(g, self), 9)


def sh(cmd, timeout, cwd=None):
    """(status, stderr, seconds); status 'timeout' when over the limit."""
    t = time.time()
    # its own process group: a timeout ends the whole pipeline
    p = subprocess.Popen(cmd, shell=True, cwd=cwd, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return "timeout", "", time.time() - t
    return p.returncode, err.decode(errors="replace"), time.time() - t


def first_error(err):
    for line in err.splitlines():
        if "error:" in line:
            return line.split("error:", 1)[1].strip()
    for line in reversed(err.splitlines()):
        if re.match(r"^[A-Za-z_][\w.]*(Error|Exception): ", line):
            return line.strip()[:200]
    lines = [l for l in err.splitlines() if l.strip()]
    return lines[-1].strip() if lines else "failed"


def refused_op(msg):
    m = re.search(r"operator '?([A-Za-z0-9_]+)'?", msg)
    return m.group(1) if m else None


# Each target's compilation after ir-import-onnx (a cpu device, as
# imported), and how its module is placed first.  The texture gpu is
# compiled as a user would for one (bench/models_tex.sh, tests/onnx_models.bats):
# ir-alter-layout packs the NCHW model to NCHW4c and every tensor whose
# image fits the device's image2d_max goes to an image.
TARGETS = collections.OrderedDict([
    ("cpu", "{b}/ir-plan-devices {src} | {b}/ir-lower | {b}/ir-plan-devices | "
            "{b}/ir-flatten-texture | {b}/ir-codegen-ocl -o {out}"),
    ("tex", "{b}/ir-alter-layout {src} | {b}/ir-fold-constants --data-dir={d} | "
            "{b}/ir-plan-devices | {b}/ir-lower | {b}/ir-plan-devices | "
            "{b}/ir-flatten-texture | {b}/ir-codegen-ocl -o {out}"),
])


def retarget(src, dst, target):
    """The imported module (on `device @cpu = cpu(0)`) on TARGET's device."""
    text = open(src).read()
    if target == "tex":
        text = re.sub(r"^device @cpu = cpu\(0\)( \{[^}]*\})?$",
                      "device @gpu = gpu(0) {texture=true}", text, count=1, flags=re.M)
        text = re.sub(r"@cpu\b", "@gpu", text)
    open(dst, "w").write(text)


def say(st, err):
    return "timeout" if st == "timeout" else first_error(err)


def export_info(name, a, d):
    """The export (in its own process: memory back, a time limit), kept
    from an earlier run with the same sizes and opsets unless --fresh:
    (info, None) or (None, why)."""
    p = os.path.join(d, "export.txt")
    key = "%s %s" % (a.sizes, a.opsets)
    have = os.path.exists(p) and os.path.exists(p + ".key") and open(p + ".key").read() == key
    st, err = 0, ""
    if a.fresh or not have:
        st, err, _ = sh("%s %s --export %s --sizes %s --opsets %s --work %s --torch-runs %d" % (
            PY, os.path.abspath(__file__), name, a.sizes, a.opsets, d, a.repeat),
            a.timeout * 2)
        if st == 0:
            open(p + ".key", "w").write(key)
    info = {}
    if st == 0 and os.path.exists(p):
        for line in open(p):
            k, v = line.split()
            info[k] = v
    if st != 0 or info.get("size") in (None, "none"):
        return None, "not exported: " + say(st, err)
    return info, None


def row(name, a, work):
    """NAME's row: the cells run now (--opsets x --targets) over those kept
    in WORK/NAME/row.json from earlier runs."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    r = load_row(work, name)
    info, why = export_info(name, a, d)
    if info is None:
        r["export"] = why
        save_row(work, r)
        return r
    r.pop("export", None)
    r["size"] = info["size"]
    r["params"] = "%.1fM" % (int(info["params"]) / 1e6)
    r["torch_ms"] = info["torch_ms"]
    r["repeat"] = a.repeat
    b = a.bin
    for o in a.opsets.split(","):
        st, err, t = sh("%s/ir-import-onnx -o %s/m%s.ir --data-dir %s %s/m%s.onnx" % (b, d, o, d, d, o),
                        a.timeout)
        for tg in a.targets.split(","):
            r["cells"].pop(tg + o, None)
            r["notes"].pop(tg + o, None)
            r["ms"].pop(tg + o, None)
        if st != 0:
            msg = say(st, err)
            for tg in a.targets.split(","):
                r["cells"][tg + o] = "no"
                r["notes"][tg + o] = "import: " + msg
            r["refused"][o] = refused_op(msg) if st != "timeout" else None
            continue
        r["refused"].pop(o, None)
        for tg in a.targets.split(","):
            cell(r, tg, o, d, a)
            save_row(work, r)
    save_row(work, r)
    return r


def cell(r, tg, o, d, a):
    """Opset O's module compiled for target TG, run and compared."""
    c = tg + o
    r["cells"][c] = "yes"
    if a.stage == "import" or (a.full_opsets and o not in a.full_opsets.split(",")):
        return
    src = "%s/m%s.%s.ir" % (d, o, tg)
    out = "%s/m%s.%s.ocl.ir" % (d, o, tg)
    retarget("%s/m%s.ir" % (d, o), src, tg)
    st, err, t = sh(TARGETS[tg].format(b=a.bin, src=src, out=out, d=d), a.timeout)
    if st != 0:
        r["cells"][c] = "imported"
        r["notes"][c] = "compile: " + say(st, err)
        return
    r["cells"][c] = "compiled"
    got = "%s/got%s.npy" % (d, c)
    st, err, t = sh("%s/ir-run --repeat=%d --data-dir %s --input x=%s/x.npy -o %s %s" % (
        a.bin, a.repeat, d, d, got, out), a.timeout)
    if st != 0:
        r["notes"][c] = "run: " + say(st, err)
        return
    m = re.search(r"median ([0-9.]+) ms", err)
    if m:
        r["ms"][c] = m.group(1)
    p = subprocess.run([PY, SAME, "same", got, "%s/y.npy" % d, "1e-3", "1e-4"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode == 0:
        r["cells"][c] = "equal"
    else:
        r["notes"][c] = "differs: " + p.stdout.decode().strip().split(",")[0]


def load_row(work, name):
    p = os.path.join(work, name, "row.json")
    r = json.load(open(p)) if os.path.exists(p) else {}
    r["name"] = name
    for k in ("cells", "notes", "ms", "refused"):
        r.setdefault(k, {})
    return r


def save_row(work, r):
    d = os.path.join(work, r["name"])
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "row.json.tmp"), "w") as f:
        json.dump(r, f, indent=1, sort_keys=True)
    os.replace(os.path.join(d, "row.json.tmp"), os.path.join(d, "row.json"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--work", default="build/models")
    ap.add_argument("--sizes", default="32,64,96,128,224,299")
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--targets", default="cpu,tex",
                    help="cpu (a cpu device), tex (a gpu with textures), or both")
    ap.add_argument("--stage", choices=["import", "all"], default="all")
    ap.add_argument("--full-opsets", default="",
                    help="compile and run these opsets only (the others: import)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-params", type=float, default=100.0)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="print the table of the rows kept in --work; run nothing")
    ap.add_argument("--export", help=argparse.SUPPRESS)
    ap.add_argument("--torch-runs", type=int, default=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.export:
        import contextlib
        with open(os.path.join(a.work, "export.txt"), "w") as f, contextlib.redirect_stdout(f):
            ok = export(a.export, [int(s) for s in a.sizes.split(",")],
                        [int(o) for o in a.opsets.split(",")], a.work, a.torch_runs)
        return 0 if ok else 1
    for t in a.targets.split(","):
        if t not in TARGETS:
            ap.error("--targets: %s is none of %s" % (t, ", ".join(TARGETS)))
    a.bin = os.path.abspath(a.bin)
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    names = a.names or builders()
    if a.report:
        print_table([load_row(a.work, n) for n in names], a, sys.stdout)
        return 0
    big = param_counts(names, a.work)
    rows = []
    for n in names:
        sys.stderr.write("%s ...\n" % n)
        if big.get(n, 0) > a.max_params * 1e6:
            r = load_row(a.work, n)
            if not r["cells"]:
                r["params"] = "%.1fM" % (big[n] / 1e6)
                r["export"] = "skipped: more than %g M parameters (--max-params)" % a.max_params
                save_row(a.work, r)
        else:
            r = row(n, a, a.work)
        rows.append(r)
        sys.stderr.write("  %s\n" % json.dumps(r["cells"], sort_keys=True))
        # the table so far, for a run stopped part way
        with open(os.path.join(a.work, "table.md"), "w") as f:
            print_table(rows, a, f)
    print_table(rows, a, sys.stdout)
    return 0


def param_counts(names, work):
    """Parameters of each builder, from its module built on the meta
    device where torch has one, else on the CPU; kept in WORK/params.txt."""
    import torch
    import torchvision.models as m
    out = {}
    p = os.path.join(work, "params.txt")
    if os.path.exists(p):
        for line in open(p):
            k, v = line.split()
            out[k] = int(v)
    for n in names:
        if n in out:
            continue
        torch.manual_seed(0)
        try:
            with torch.device("meta"):
                mod = m.get_model(n, weights=None)
        except Exception:
            mod = None
        if mod is None:
            # torch 1.13 has no meta-device context: count from the
            # architecture on the CPU (random init; a few seconds each)
            mod = m.get_model(n, weights=None)
        out[n] = sum(x.numel() for x in mod.parameters())
        del mod
        with open(p, "a") as f:
            f.write("%s %d\n" % (n, out[n]))
    return out


def note(r):
    """The row's notes, each once, with the cells it concerns."""
    if r.get("export"):
        return r["export"]
    by = collections.OrderedDict()
    if r.get("remark"):
        by[r["remark"]] = []
    for c in sorted(r["notes"], key=lambda c: (c.rstrip("0123456789"), int(c.lstrip("cpuxte")))):
        by.setdefault(r["notes"][c], []).append(c[:3] + " " + c[3:])
    return "; ".join(("%s: %s" % (", ".join(cs), m)) if cs else m for m, cs in by.items())


def print_table(rows, a, f):
    opsets = ["13", "17"]
    targets = list(TARGETS)
    cells = [t + o for t in targets for o in opsets]
    cols = ["model", "size", "params"] + [c[:3] + " " + c[3:] for c in cells] + \
        ["torch ms"] + ["%s ms" % t for t in targets] + ["%s/torch" % t for t in targets] + ["note"]
    print("| " + " | ".join(cols) + " |", file=f)
    print("|" + "---|" * len(cols), file=f)
    for r in rows:
        ms = []
        for t in targets:
            v = r["ms"].get(t + "13") or r["ms"].get(t + "17") or ""
            ms.append(v)
        ratios = ["%.2f" % (float(v) / max(float(r["torch_ms"]), 1e-9)) if v and r.get("torch_ms") else ""
                  for v in ms]
        row = [r["name"], r.get("size", ""), r.get("params", "")] + \
            [r["cells"].get(c, "") for c in cells] + [r.get("torch_ms", "")] + ms + ratios + \
            [note(r).replace("|", "/")]
        print("| " + " | ".join(row) + " |", file=f)
    print(file=f)
    print("Columns cpu 13 ... tex 17: the target (cpu: a cpu device; tex: a gpu "
          "with textures, packed by ir-alter-layout) and the opset.  equal (imported, "
          "compiled, run on POCL, equal to torch); compiled (run, but it failed or "
          "differs: see the note); imported (the compilation failed); yes (imported; "
          "not compiled: --stage import or --full-opsets); no (ir-import-onnx refused "
          "it); empty: not tried.  The ms columns: ir-run's median at opset 13 (else 17).",
          file=f)
    print(file=f)
    runs = sorted(set(r.get("repeat", a.repeat) for r in rows if r.get("torch_ms")))
    # rows are kept from earlier runs (--only), each timed at its own
    # run's load: the load now says nothing about them
    print("On this machine's CPU (%d threads): torch (its threads) and ir-run on POCL, "
          "median of %s runs each unless a row's note says otherwise, each row timed in "
          "its own run at that run's load (a row's note names its session; the load "
          "average was %s as the table was written)." % (
              os.cpu_count() or 0, " or ".join(map(str, runs)) or a.repeat,
              " ".join("%.1f" % x for x in os.getloadavg())), file=f)
    print(file=f)
    n = len(rows)
    for c in cells:
        k = collections.Counter(r["cells"].get(c, "") for r in rows)
        imp = sum(v for s, v in k.items() if s in ("yes", "imported", "compiled", "equal"))
        comp = k["compiled"] + k["equal"]
        print("%s opset %s: %d of %d imported, %d compiled, %d equal torch" % (
            c[:3], c[3:], imp, n, comp, k["equal"]), file=f)
    refused = collections.Counter(op for r in rows for op in set(r["refused"].values()) if op)
    if refused:
        print(file=f)
        print("operators refused (models): " + ", ".join("%s %d" % kv for kv in refused.most_common()), file=f)


if __name__ == "__main__":
    sys.exit(main())
