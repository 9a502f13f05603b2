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
    compile  ir-plan-devices | ir-lower | ir-plan-devices |
             ir-flatten-texture | ir-codegen-ocl   (a cpu device)
    equal    ir-run on OpenCL (POCL) equals torch: |got - want| <=
             1e-3 |want| + 1e-4 max|want| (tests/onnx/models.py same)
    time     ir-run's median over --repeat runs against torch's median on
             this machine's CPU, same input (ms, and the ratio)

A model of more than --max-params million parameters is skipped, with the
reason in the table.  --stage import stops after the import: the first
error of each refusal is in the table, and a count of the operators
refused ends it.  Work files go to --work (build/models by default).
Prints a markdown table on stdout and progress on stderr; nothing is
asserted.
"""
import argparse
import collections
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
    import torchvision.models as m
    torch.set_num_threads(max(1, (os.cpu_count() or 1)))
    torch.manual_seed(0)
    model = m.get_model(name, weights=None).eval()
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


def row(name, a, work):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    r = collections.OrderedDict(name=name)
    # the export, in its own process (memory back, a time limit); kept
    # from an earlier run with the same sizes and opsets unless --fresh
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
        r["note"] = "not exported: " + ("timeout" if st == "timeout" else first_error(err))
        return r
    r["size"] = info["size"]
    r["params"] = "%.1fM" % (int(info["params"]) / 1e6)
    r["torch_ms"] = info["torch_ms"]
    b = a.bin
    for o in a.opsets.split(","):
        key = "op%s" % o
        st, err, t = sh("%s/ir-import-onnx -o %s/m%s.ir --data-dir %s %s/m%s.onnx" % (b, d, o, d, d, o),
                        a.timeout)
        if st != 0:
            r[key] = "no"
            msg = "timeout" if st == "timeout" else first_error(err)
            r.setdefault("note", "opset %s: %s" % (o, msg))
            r.setdefault("refused", []).append(refused_op(msg) if st != "timeout" else None)
            continue
        r[key] = "yes"
        if a.stage == "import" or (a.full_opsets and o not in a.full_opsets.split(",")):
            continue
        st, err, t = sh("%s/ir-plan-devices %s/m%s.ir | %s/ir-lower | %s/ir-plan-devices | "
                        "%s/ir-flatten-texture | %s/ir-codegen-ocl -o %s/m%s.ocl.ir" % (
                            b, d, o, b, b, b, b, d, o), a.timeout)
        if st != 0:
            r[key] = "imported"
            r.setdefault("note", "opset %s compile: %s" % (o, "timeout" if st == "timeout" else first_error(err)))
            continue
        r[key] = "compiled"
        st, err, t = sh("%s/ir-run --repeat=%d --data-dir %s --input x=%s/x.npy -o %s/got%s.npy %s/m%s.ocl.ir" % (
            b, a.repeat, d, d, d, o, d, o), a.timeout)
        if st != 0:
            r.setdefault("note", "opset %s run: %s" % (o, "timeout" if st == "timeout" else first_error(err)))
            continue
        m = re.search(r"median ([0-9.]+) ms", err)
        if m and "ir_ms" not in r:
            r["ir_ms"] = m.group(1)
        p = subprocess.run([PY, SAME, "same", "%s/got%s.npy" % (d, o), "%s/y.npy" % d, "1e-3", "1e-4"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if p.returncode == 0:
            r[key] = "equal"
        else:
            r.setdefault("note", "opset %s differs: %s" % (o, p.stdout.decode().strip().split(",")[0]))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--bin", default=os.environ.get("IRPIPE_BIN", "build/bin"))
    ap.add_argument("--work", default="build/models")
    ap.add_argument("--sizes", default="32,64,96,128,224,299")
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--stage", choices=["import", "all"], default="all")
    ap.add_argument("--full-opsets", default="",
                    help="compile and run these opsets only (the others: import)")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-params", type=float, default=100.0)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--export", help=argparse.SUPPRESS)
    ap.add_argument("--torch-runs", type=int, default=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.export:
        import contextlib
        with open(os.path.join(a.work, "export.txt"), "w") as f, contextlib.redirect_stdout(f):
            ok = export(a.export, [int(s) for s in a.sizes.split(",")],
                        [int(o) for o in a.opsets.split(",")], a.work, a.torch_runs)
        return 0 if ok else 1
    a.bin = os.path.abspath(a.bin)
    a.work = os.path.abspath(a.work)
    os.makedirs(a.work, exist_ok=True)
    names = a.names or builders()
    big = param_counts(names, a.work)
    opsets = a.opsets.split(",")
    rows = []
    for n in names:
        sys.stderr.write("%s ...\n" % n)
        if big.get(n, 0) > a.max_params * 1e6:
            r = collections.OrderedDict(name=n, params="%.1fM" % (big[n] / 1e6))
            r["note"] = "skipped: more than %g M parameters (--max-params)" % a.max_params
        else:
            r = row(n, a, a.work)
        rows.append(r)
        sys.stderr.write("  %s\n" % dict(r))
        # the table so far, for a run stopped part way
        with open(os.path.join(a.work, "table.md"), "w") as f:
            print_table(rows, opsets, a, f)
    print_table(rows, opsets, a, sys.stdout)
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


def print_table(rows, opsets, a, f):
    cols = ["model", "size", "params"] + ["opset %s" % o for o in opsets] + ["torch ms", "ir-run ms", "ratio", "note"]
    print("| " + " | ".join(cols) + " |", file=f)
    print("|" + "---|" * len(cols), file=f)
    for r in rows:
        ratio = ""
        if r.get("ir_ms") and r.get("torch_ms"):
            ratio = "%.2f" % (float(r["ir_ms"]) / max(float(r["torch_ms"]), 1e-9))
        cells = [r["name"], r.get("size", ""), r.get("params", "")] + \
                [r.get("op%s" % o, "") for o in opsets] + \
                [r.get("torch_ms", ""), r.get("ir_ms", ""), ratio, r.get("note", "").replace("|", "/")]
        print("| " + " | ".join(cells) + " |", file=f)
    print(file=f)
    print("Each opset's column: equal (imported, compiled, run on POCL, equal to torch); "
          "compiled (run, but it failed or differs: see the note); imported (the "
          "compilation failed); yes (imported; not compiled in this run: --stage import "
          "or --full-opsets); no (ir-import-onnx refused it).", file=f)
    print(file=f)
    print("On this machine's CPU (%d threads; load average %s as the table was written): "
          "torch (its threads) and ir-run on POCL, median of %d runs each." % (
              os.cpu_count() or 0, " ".join("%.1f" % x for x in os.getloadavg()), a.repeat), file=f)
    print(file=f)
    n = len(rows)
    for o in opsets:
        c = collections.Counter(r.get("op%s" % o, "") for r in rows)
        imp = sum(v for k, v in c.items() if k in ("yes", "imported", "compiled", "equal"))
        comp = c["compiled"] + c["equal"]
        print("opset %s: %d of %d imported, %d compiled, %d equal torch" % (o, imp, n, comp, c["equal"]), file=f)
    refused = collections.Counter(op for r in rows for op in set(r.get("refused", [])) if op)
    if refused:
        print(file=f)
        print("operators refused (models): " + ", ".join("%s %d" % kv for kv in refused.most_common()), file=f)


if __name__ == "__main__":
    sys.exit(main())
