"""Writes resnet18-like and mobilenet_v2-like models in NCHW, as users write
them (conv2d, batch norm folded to multiply and add, relu or relu6 as
clip, max and global pooling, residual adds, dense), on a texture GPU.

    models.py resnet18|mobilenet_v2 [--size S] [--div D] [--no-texture]
              [--const-dir DIR]

--size is the input's height and width (224 for the real networks), --div
divides every channel count (by a power of two, keeping multiples of 4
where the network has them), so tests run small models of the same shape.
Weights are parameters of @main, after the input %x; with --const-dir,
constants read from .npy files of random values written there (the
scales and shifts near 1 and 0, so that values stay in range).
"""
import argparse
import sys


class Writer:
    def __init__(self, div, const_dir=None):
        self.div = div
        self.const_dir = const_dir
        self.rng = None
        self.params = []
        self.lines = []
        self.n = 0

    def ch(self, c):
        return max(4, c // self.div)

    def param(self, name, shape):
        if self.const_dir is None or name == "x":
            self.params.append("%%%s: f32[%s]" % (name, ",".join(map(str, shape))))
            return "%" + name
        import os
        import numpy as np
        if self.rng is None:
            self.rng = np.random.default_rng(0)
        fan = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        if name.endswith("_s"):
            a = self.rng.uniform(0.9, 1.1, shape)
        elif name.endswith("_b"):
            a = self.rng.uniform(-0.1, 0.1, shape)
        else:
            a = self.rng.uniform(-1, 1, shape) * np.sqrt(3.0 / max(fan, 1))
        np.save(os.path.join(self.const_dir, name + ".npy"), a.astype(np.float32))
        self.lines.append("  %%%s = const f32[%s] file=\"%s.npy\"" % (
            name, ",".join(map(str, shape)), name))
        return "%" + name

    def bind(self, text, name=None):
        self.n += 1
        name = name or "v%d" % self.n
        self.lines.append("  %%%s = %s" % (name, text))
        return "%" + name

    def conv(self, x, cin, cout, k, stride=1, groups=1, name="c"):
        tag = "%s%d" % (name, self.n + 1)
        w = self.param(tag + "_w", (cout, cin // groups, k, k))
        p = k // 2
        attrs = "padding=[%d,%d,%d,%d]" % (p, p, p, p)
        if stride != 1:
            attrs += ", strides=[%d,%d]" % (stride, stride)
        if groups != 1:
            attrs += ", groups=%d" % groups
        return self.bind("nn.conv2d(%s, %s) {%s}" % (x, w, attrs))

    def bn(self, x, c):
        tag = "bn%d" % (self.n + 1)
        s = self.param(tag + "_s", (c, 1, 1))
        b = self.param(tag + "_b", (c,))
        y = self.bind("multiply(%s, %s)" % (x, s))
        return self.bind("nn.bias_add(%s, %s)" % (y, b))

    def text(self, out_shape, texture):
        dev = "device @gpu = gpu(0) {texture=true}" if texture else "device @gpu = gpu(0)"
        return "%s\nfn @main(%s) -> f32[%s] {\n%s\n  return %%%s\n}\n" % (
            dev, ", ".join(self.params), ",".join(map(str, out_shape)), "\n".join(self.lines),
            "v%d" % self.n)


def resnet18(W, size):
    x = W.param("x", (1, 3, size, size))
    c = W.ch(64)
    y = W.bind("nn.relu(%s)" % W.bn(W.conv(x, 3, c, 7, 2), c))
    y = W.bind("nn.max_pool2d(%s) {pool_size=[3,3], strides=[2,2], padding=[1,1,1,1]}" % y)
    cin = c
    for stage, cout in enumerate([W.ch(64), W.ch(128), W.ch(256), W.ch(512)]):
        for blk in range(2):
            stride = 2 if stage > 0 and blk == 0 else 1
            h = W.bind("nn.relu(%s)" % W.bn(W.conv(y, cin, cout, 3, stride), cout))
            h = W.bn(W.conv(h, cout, cout, 3), cout)
            skip = y
            if stride != 1 or cin != cout:
                skip = W.bn(W.conv(y, cin, cout, 1, stride), cout)
            y = W.bind("nn.relu(%s)" % W.bind("add(%s, %s)" % (h, skip)))
            cin = cout
    y = W.bind("nn.global_avg_pool2d(%s)" % y)
    y = W.bind("reshape(%s) {newshape=[1,%d]}" % (y, cin))
    w = W.param("fc_w", (1000 // W.div, cin))
    W.bind("nn.dense(%s, %s)" % (y, w))
    return (1, 1000 // W.div)


def mobilenet_v2(W, size):
    relu6 = lambda v: W.bind("clip(%s) {a_min=0.0, a_max=6.0}" % v)  # noqa: E731
    x = W.param("x", (1, 3, size, size))
    c = W.ch(32)
    y = relu6(W.bn(W.conv(x, 3, c, 3, 2), c))
    cin = c
    for t, cout, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                          (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        cout = W.ch(cout)
        for i in range(n):
            stride = s if i == 0 else 1
            hid = cin * t
            h = y
            if t != 1:
                h = relu6(W.bn(W.conv(h, cin, hid, 1), hid))
            h = relu6(W.bn(W.conv(h, hid, hid, 3, stride, groups=hid), hid))
            h = W.bn(W.conv(h, hid, cout, 1), cout)
            if stride == 1 and cin == cout:
                h = W.bind("add(%s, %s)" % (h, y))
            y = h
            cin = cout
    last = W.ch(1280)
    y = relu6(W.bn(W.conv(y, cin, last, 1), last))
    y = W.bind("nn.global_avg_pool2d(%s)" % y)
    y = W.bind("reshape(%s) {newshape=[1,%d]}" % (y, last))
    w = W.param("fc_w", (1000 // W.div, last))
    W.bind("nn.dense(%s, %s)" % (y, w))
    return (1, 1000 // W.div)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", choices=["resnet18", "mobilenet_v2"])
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--div", type=int, default=1)
    ap.add_argument("--no-texture", action="store_true")
    ap.add_argument("--const-dir")
    a = ap.parse_args()
    W = Writer(a.div, a.const_dir)
    out = (resnet18 if a.model == "resnet18" else mobilenet_v2)(W, a.size)
    sys.stdout.write("// %s-like, input %dx%d, channels / %d (tests/alter/models.py)\n" % (
        a.model, a.size, a.size, a.div))
    sys.stdout.write(W.text(out, not a.no_texture))
    return 0


if __name__ == "__main__":
    sys.exit(main())
