"""bench/h100_models.sh's python side: torchvision models exported for
irpipe and for torch on a machine without torchvision, torch's timings,
and reading ir-run's --profile.

    h100_models.py export NAME DIR    (here: torch, torchvision, onnx)
        torchvision's NAME, random weights (torch.manual_seed(0)), eval
        mode, exported by torch.onnx (opset 13) for a 1x3x224x224 input x
        as DIR/onnx/NAME.onnx, with the input (seed 1) as DIR/x.npy.  For
        torch on the device: DIR/torch.fx.gz, the model traced by torch.fx
        (a GraphModule that calls torch.nn modules only, run eagerly) and
        DIR/torch.jit.gz, torch.jit.trace's module, both pickled with every
        floating-point tensor zeroed (they compress to nothing), and
        DIR/torch.stats, each such tensor's mean and std, from which the
        device draws new weights.
        NAME may also be encoder-bB-GELU-MASK (GELU erf or tanh, MASK mask
        or nomask): torch.nn.TransformerEncoder as tests/onnx/models.py
        makes it (d_model 512, 8 heads, 4 layers, sequence 128, batch B,
        batch_first), exported for a Bx128x512 input x (and, with mask, a
        Bx128 bool padding mask pm, DIR/pm.npy); torch needs nothing but
        itself to build it on the device, so no torch.fx or TorchScript.
    h100_models.py torch NAME DIR RUNS   (the device: torch, numpy)
        fp32, TF32 off: median wall ms of RUNS inferences (after 5
        warm-ups) of model(x) on the GPU with torch.cuda.synchronize, of
        the same with x uploaded from the host and the result read back,
        and of a CUDA graph's replay (static input); on a machine without
        CUDA, model(x) on the CPU (the other two: '-').  The model is
        torchvision's (seed 0) where torchvision imports, else torch.fx.gz,
        else torch.jit.gz (run with optimized_execution off), with weights
        drawn from torch.stats (TORCH_MODEL=torchvision, fx or jit: that
        one only).  Prints one line of key=value.
    h100_models.py profile FILE [PLAIN]
        from ir-run --profile --repeat's standard error: kernels' ms per run
        (kernel rows' total_ms / runs), launches per run (kernel rows'
        calls / runs), the runs' median (from PLAIN, the standard error of
        a run without --profile, when given), the host line's enqueue and
        wait.
    h100_models.py same GOT WANT TOL
        max |got - want| / max |want|, and "ok" or "DIFFERENT" against TOL.
"""
import gzip
import io
import os
import re
import statistics
import sys
import time

import numpy as np

SIZE = 224


ENCODER = re.compile(r"encoder-b(\d+)-(erf|tanh)-(mask|nomask)$")


def suite_models():
    """tests/onnx/models.py, the suite's model builders: from this
    checkout, or beside this file, where prep copies it for the device"""
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.path.join(here, "..", "tests", "onnx", "models.py"), os.path.join(here, "suite_models.py")):
        if os.path.exists(p):
            spec = importlib.util.spec_from_file_location("suite_models", p)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
            return m
    raise SystemExit("h100_models.py: no tests/onnx/models.py")


def encoder(name):
    """the suite's encoder (d_model 512, sequence 128, 4 layers): the
    model and its inputs"""
    b, gelu, mask = ENCODER.match(name).groups()
    return suite_models().encoder(512, 128, 4, int(b), gelu, mask == "mask")


def build(name):
    """torchvision's NAME as the suite builds it (seed 0; the weights
    torchvision leaves all zero, vit's head, drawn: else every result
    would be the head's bias), or an encoder"""
    if ENCODER.match(name):
        return encoder(name)[0]
    return suite_models().build(name)


def float_tensors(sd):
    return [(k, v) for k, v in sd.items() if v.is_floating_point()]


def export(name, out):
    import torch
    import torch.fx
    os.makedirs(out + "/onnx", exist_ok=True)
    if ENCODER.match(name):
        # outside no_grad: torch's fused fast path has no ONNX form
        model, args = encoder(name)
        torch.onnx.export(model, args, "%s/onnx/%s.onnx" % (out, name), opset_version=13,
                          input_names=["x", "pm"][:len(args)], output_names=["y"])
        for n, a in zip(("x", "pm"), args):
            np.save("%s/%s.npy" % (out, n), a.numpy())
        return
    model = build(name)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(1, 3, SIZE, SIZE, generator=g)
    torch.onnx.export(model, x, "%s/onnx/%s.onnx" % (out, name), opset_version=13,
                      input_names=["x"], output_names=["y"])
    np.save(out + "/x.npy", x.numpy())
    try:
        gm = torch.fx.symbolic_trace(model)
    except torch.fx.proxy.TraceError:
        gm = None   # (vit_b_16's shape checks): TorchScript only
    if gm is not None:
        # torchvision's stochastic_depth (efficientnet) is the identity in
        # eval mode; drop it so that the GraphModule needs torch alone
        for n in list(gm.graph.nodes):
            if n.op == "call_function" and "stochastic_depth" in getattr(n.target, "__name__", ""):
                n.replace_all_uses_with(n.args[0])
                gm.graph.erase_node(n)
        gm.graph.lint()
        gm.recompile()
    else:
        gm = model
    with open(out + "/torch.stats", "w") as f:
        for k, v in float_tensors(gm.state_dict()):
            f.write("%s %r %r\n" % (k, float(v.double().mean()), float(v.double().std()) if v.numel() > 1 else 0.0))
    with torch.no_grad():
        for _, v in float_tensors(gm.state_dict()):
            v.zero_()
        jit = torch.jit.trace(gm, x)
    for obj, path in ((gm, "torch.fx.gz"), (jit, "torch.jit.gz")):
        if path == "torch.fx.gz" and gm is model:
            continue
        b = io.BytesIO()
        (torch.jit.save if path == "torch.jit.gz" else torch.save)(obj, b)
        with gzip.open("%s/%s" % (out, path), "wb") as f:
            f.write(b.getvalue())


def load(name, d):
    """the model for torch on this machine, and where it came from"""
    import torch
    want = os.environ.get("TORCH_MODEL", "")  # torchvision, fx or jit: that one only
    if want in ("", "torchvision"):
        try:
            return build(name), ("torch.nn" if ENCODER.match(name) else "torchvision")
        except Exception as e:  # none, or one that does not fit this torch
            sys.stderr.write("h100_models.py: torchvision: %s\n" % e)
    for path in ("torch.fx.gz", "torch.jit.gz"):
        if want and path != "torch.%s.gz" % want:
            continue
        try:
            with gzip.open("%s/%s" % (d, path), "rb") as f:
                b = io.BytesIO(f.read())
            if path == "torch.jit.gz":
                m, src = torch.jit.load(b, map_location="cpu"), "torchscript"
            else:
                try:
                    m = torch.load(b, map_location="cpu", weights_only=False)
                except TypeError:  # torch before weights_only
                    m = torch.load(b, map_location="cpu")
                src = "torch.fx"
            break
        except Exception as e:  # a torch too old or too new for the file
            sys.stderr.write("h100_models.py: %s: %s\n" % (path, e))
    else:
        raise SystemExit("h100_models.py: no model for torch")
    g = torch.Generator().manual_seed(0)
    sd = m.state_dict()
    with torch.no_grad():
        for line in open(d + "/torch.stats"):
            k, mean, std = line.split()
            v = sd[k]
            v.copy_(torch.randn(v.shape, generator=g, dtype=torch.float64) * float(std) + float(mean))
    return m.eval(), src


def median_ms(f, runs, sync):
    for _ in range(5):
        f()
    sync()
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        f()
        sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def torch_time(name, d, runs):
    import contextlib
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = os.environ.get("TORCH_CUDNN_BENCHMARK", "0") == "1"
    model, src = load(name, d)
    xh = torch.from_numpy(np.load(d + "/x.npy"))
    # an encoder's padding mask: a second input, on the device throughout
    extra = [torch.from_numpy(np.load(d + "/pm.npy"))] if os.path.exists(d + "/pm.npy") else []
    cuda = torch.cuda.is_available()
    dev = "cuda" if cuda else "cpu"
    ctx = torch.jit.optimized_execution(False) if src == "torchscript" else contextlib.nullcontext()
    r = {"source": src, "device": torch.cuda.get_device_name() if cuda else "cpu",
         "torch": torch.__version__, "eager_ms": "-", "updown_ms": "-", "graph_ms": "-"}
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    with torch.no_grad(), ctx:
        model = model.to(dev)
        x = xh.to(dev)
        extra = [e.to(dev) for e in extra]
        r["eager_ms"] = "%.4f" % median_ms(lambda: model(x, *extra), runs, sync)
        if cuda:
            r["updown_ms"] = "%.4f" % median_ms(lambda: model(xh.to(dev), *extra).cpu(), runs, sync)
            xs = x.clone()
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    model(xs, *extra)
            torch.cuda.current_stream().wait_stream(s)
            cg = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(cg):
                    model(xs, *extra)
                r["graph_ms"] = "%.4f" % median_ms(cg.replay, runs, sync)
            except RuntimeError as e:  # a model that syncs with the host
                sys.stderr.write("h100_models.py: no CUDA graph: %s\n" % e)
    print(" ".join("%s=%s" % (k, str(v).replace(" ", "_")) for k, v in r.items()))


def profile(path, plain=None):
    """The profile's figures; the run's median from plain (the stderr of
    a run without --profile, whose events cost the host) when given."""
    t = open(path).read()
    runs = re.search(r"profile of (\d+) run", t)
    runs = int(runs.group(1)) if runs else 0
    kms = calls = 0.0
    for line in t.splitlines():
        f = line.split()
        # total_ms share calls mean_us flop/call GFLOP/s GB/s device @kernel
        if len(f) >= 9 and f[1].endswith("%") and f[8].startswith("@") and re.match(r"[0-9.]+$", f[0]):
            kms += float(f[0])
            calls += float(f[2])
    med = re.search(r"runs, median ([0-9.]+) ms", open(plain).read() if plain else t)
    host = re.search(r"host per run: enqueue ([0-9.]+) ms, wait ([0-9.]+) ms", t)
    print("kernel_ms=%s launches=%s run_ms=%s enqueue_ms=%s wait_ms=%s" % (
        "%.4f" % (kms / runs) if runs else "-", "%.0f" % (calls / runs) if runs else "-",
        med.group(1) if med else "-", host.group(1) if host else "-", host.group(2) if host else "-"))


def same(got, want, tol):
    a, b = np.load(got).astype(np.float64), np.load(want).astype(np.float64)
    if a.shape != b.shape:
        print("shape DIFFERENT")
        return 1
    e = np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)
    print("%.1e %s" % (e, "ok" if e <= tol else "DIFFERENT"))
    return 0 if e <= tol else 1


def main(a):
    if len(a) == 4 and a[1] == "export":
        export(a[2], a[3])
    elif len(a) == 5 and a[1] == "torch":
        torch_time(a[2], a[3], int(a[4]))
    elif len(a) in (3, 4) and a[1] == "profile":
        profile(a[2], a[3] if len(a) == 4 else None)
    elif len(a) == 5 and a[1] == "same":
        return same(a[2], a[3], float(a[4]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
