#!/usr/bin/python3
"""models.py: torchvision models as ONNX files, and comparing results.

    /usr/bin/python3 tests/onnx/models.py export NAME SIZE DIR [OPSET]
        torchvision's classification model NAME (resnet18, mobilenet_v2,
        any builder in torchvision.models) with random weights
        (torch.manual_seed(0); weight tensors torchvision leaves all zero,
        as vit's head, drawn from N(0, 0.02^2)), in eval mode, exported
        by torch.onnx (OPSET, default 13) for a 1x3xSIZExSIZE input named
        x, as DIR/NAME.onnx;
        a random input (seed 1) as DIR/x.npy and torch's output for it
        as DIR/y.npy.  Nothing is downloaded: the weights are random.

    /usr/bin/python3 tests/onnx/models.py encoder D SEQ LAYERS BATCH GELU MASK DIR [OPSET]
        torch.nn.TransformerEncoder: LAYERS layers of d_model D, 8 heads,
        feed-forward 4*D, batch_first, GELU erf (torch's 'gelu') or tanh
        (approximate='tanh'), random weights (seed 0), in eval mode,
        exported (OPSET, default 13) as DIR/encoder.onnx for a BATCHxSEQxD
        input named x; with MASK 'mask' also a src_key_padding_mask named
        pm (the last quarter of every sequence padded) as DIR/pm.npy, with
        'nomask' none; x (seed 1) as DIR/x.npy, torch's output as DIR/y.npy.

    /usr/bin/python3 tests/onnx/models.py encoder-times D SEQ LAYERS BATCH GELU MASK RUNS THREADS
        that encoder in torch: median wall time of RUNS inferences (after
        one warm-up, without gradients) and the process's CPU time per
        inference over them, in ms, on THREADS threads.

    /usr/bin/python3 tests/onnx/models.py same GOT WANT RTOL ATOL
        exit 0 if the .npy files have one shape and element type and
        |got - want| <= ATOL * max|want| + RTOL * |want| everywhere:
        the absolute tolerance scales with the output, since random
        weights make some models' outputs tiny (mobilenet_v2's are about
        1e-9); prints the largest differences either way.  A WANT of all
        zeros fails: nothing would differ from it.

    /usr/bin/python3 tests/onnx/models.py torch-time NAME SIZE RUNS [THREADS]
        median wall time of RUNS inferences of the model in torch (after
        one warm-up), in ms, on this machine's CPU threads or on THREADS
        (torch.set_num_threads).

    /usr/bin/python3 tests/onnx/models.py torch-times NAME SIZE RUNS THREADS
        the same median wall time, then the process's CPU time per
        inference over the RUNS (every thread), both in ms.
"""
import sys
import time

import numpy as np


def build(name):
    import torch
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.get_model(name, weights=None).eval()
    # torchvision zero-initializes some weights (vit's head): the output
    # would be the (zero) bias whatever came before, and any result equal
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2 and not p.any():
                p.copy_(torch.randn(p.shape, generator=g) * 0.02)
    return model


def export(name, size, out, opset=13):
    import torch
    model = build(name)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(1, 3, size, size, generator=g)
    with torch.no_grad():
        y = model(x)
    torch.onnx.export(model, x, "%s/%s.onnx" % (out, name), opset_version=opset,
                      input_names=["x"], output_names=["y"])
    np.save("%s/x.npy" % out, x.numpy())
    np.save("%s/y.npy" % out, y.numpy())


def encoder(d, seq, layers, batch, gelu, mask):
    """The encoder (wrapped to take the padding mask as its second input
    when MASK), its inputs and its output."""
    import torch
    torch.manual_seed(0)
    act = "gelu"
    if gelu == "tanh":
        def act(x):
            return torch.nn.functional.gelu(x, approximate="tanh")
    layer = torch.nn.TransformerEncoderLayer(d, 8, dim_feedforward=4 * d, dropout=0.0,
                                             activation=act, batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).eval()

    class Masked(torch.nn.Module):
        def __init__(self, enc):
            super().__init__()
            self.enc = enc

        def forward(self, x, pm):
            return self.enc(x, src_key_padding_mask=pm)

    g = torch.Generator().manual_seed(1)
    x = torch.randn(batch, seq, d, generator=g)
    if not mask:
        return enc, (x,)
    pm = torch.zeros(batch, seq, dtype=torch.bool)
    pm[:, seq - seq // 4:] = True
    return Masked(enc).eval(), (x, pm)


def export_encoder(d, seq, layers, batch, gelu, mask, out, opset=13):
    import torch
    model, args = encoder(d, seq, layers, batch, gelu, mask)
    with torch.no_grad():
        y = model(*args)
    # outside no_grad: torch's fused fast path (aten::_transformer_encoder_layer_fwd)
    # has no ONNX form and is taken only without gradients
    torch.onnx.export(model, args, "%s/encoder.onnx" % out, opset_version=opset,
                      input_names=["x", "pm"][:len(args)], output_names=["y"])
    np.save("%s/x.npy" % out, args[0].numpy())
    if mask:
        np.save("%s/pm.npy" % out, args[1].numpy())
    np.save("%s/y.npy" % out, y.numpy())


def same(got, want, rtol, atol):
    a, b = np.load(got), np.load(want)
    if a.shape != b.shape or a.dtype != b.dtype:
        print("%s is %s %s, %s is %s %s" % (got, a.dtype, a.shape, want, b.dtype, b.shape))
        return 1
    diff = np.abs(a.astype(np.float64) - b.astype(np.float64))
    rel = diff / np.maximum(np.abs(b.astype(np.float64)), 1e-30)
    scale = float(np.abs(b.astype(np.float64)).max()) if b.size else 0.0
    ok = np.isclose(a, b, rtol=rtol, atol=atol * scale)
    print("max |diff| %.3g, max relative %.3g, max |want| %.3g, %d of %d outside "
          "rtol %g atol %g x %.3g" % (diff.max(), rel.max(), scale, (~ok).sum(), b.size,
                                      rtol, atol, scale))
    if b.size and scale == 0:
        # every result equals zeros within a tolerance that scales with them:
        # the comparison would say nothing (vit's zero head did this)
        print("%s is all zeros: nothing to compare against" % want)
        return 1
    return 0 if ok.all() else 1


def torch_time(name, size, runs, threads=0, cpu=False, encoder_args=None):
    import torch
    if threads > 0:
        torch.set_num_threads(threads)
    if encoder_args:
        model, args = encoder(*encoder_args)
    else:
        model, args = build(name), (torch.randn(1, 3, size, size),)
    times = []
    with torch.no_grad():
        model(*args)
        c = time.process_time()
        for _ in range(runs):
            t = time.perf_counter()
            model(*args)
            times.append(time.perf_counter() - t)
        c = time.process_time() - c
    wall = "%.2f" % (sorted(times)[len(times) // 2] * 1e3)
    print(wall + (" %.2f" % (c / runs * 1e3) if cpu else ""))


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "export":
        export(argv[2], int(argv[3]), argv[4], int(argv[5]) if len(argv) == 6 else 13)
        return 0
    if len(argv) in (9, 10) and argv[1] == "encoder" and argv[6] in ("erf", "tanh") \
            and argv[7] in ("mask", "nomask"):
        export_encoder(*[int(a) for a in argv[2:6]], argv[6], argv[7] == "mask", argv[8],
                       int(argv[9]) if len(argv) == 10 else 13)
        return 0
    if len(argv) == 10 and argv[1] == "encoder-times" and argv[6] in ("erf", "tanh") \
            and argv[7] in ("mask", "nomask"):
        torch_time("encoder", 0, int(argv[8]), int(argv[9]), cpu=True,
                   encoder_args=[int(a) for a in argv[2:6]] + [argv[6], argv[7] == "mask"])
        return 0
    if len(argv) == 6 and argv[1] == "same":
        return same(argv[2], argv[3], float(argv[4]), float(argv[5]))
    if len(argv) in (5, 6) and argv[1] == "torch-time":
        torch_time(argv[2], int(argv[3]), int(argv[4]), int(argv[5]) if len(argv) == 6 else 0)
        return 0
    if len(argv) == 6 and argv[1] == "torch-times":
        torch_time(argv[2], int(argv[3]), int(argv[4]), int(argv[5]), cpu=True)
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
