#!/usr/bin/env python3
"""Graphs for ir-plan-memory's bench (bench/run.sh), printed as IR:

  gen_memplan.py resnet N      N residual blocks (conv, relu, conv, add,
                               relu), halving the image and doubling the
                               channels every 4 blocks
  gen_memplan.py mobilenet N   N inverted residual blocks (1x1 expand x6,
                               depthwise 3x3, 1x1 project, skip add)
  gen_memplan.py chain N       N bindings of one size, each adding its
                               predecessor and one up to 1000 back (a fixed
                               seed): many lifetimes of many lengths
"""
import random
import sys


def conv(out, x, w, pad, extra=""):
    return f"  %{out} = nn.conv2d(%{x}, %{w}) {{padding=[{pad}, {pad}, {pad}, {pad}]{extra}}}"


def resnet(n):
    c, h = 16, 64
    params, body = ["%x: f32[1,16,64,64]"], []
    x = "x"
    for b in range(n):
        if b and b % 4 == 0 and h > 4:
            params.append(f"%wd{b}: f32[{2 * c},{c},1,1]")
            body.append(f"  %p{b} = nn.max_pool2d(%{x}) {{pool_size=[2, 2], strides=[2, 2]}}")
            body.append(conv(f"d{b}", f"p{b}", f"wd{b}", 0))
            c, h, x = 2 * c, h // 2, f"d{b}"
        params += [f"%wa{b}: f32[{c},{c},3,3]", f"%wb{b}: f32[{c},{c},3,3]"]
        body.append(conv(f"a{b}", x, f"wa{b}", 1))
        body.append(f"  %r{b} = nn.relu(%a{b})")
        body.append(conv(f"c{b}", f"r{b}", f"wb{b}", 1))
        body.append(f"  %s{b} = add(%c{b}, %{x})")
        body.append(f"  %o{b} = nn.relu(%s{b})")
        x = f"o{b}"
    return params, body, x


def mobilenet(n):
    c, h = 16, 64
    params, body = ["%x: f32[1,16,64,64]"], []
    x = "x"
    for b in range(n):
        e = 6 * c
        params += [f"%we{b}: f32[{e},{c},1,1]", f"%wd{b}: f32[{e},1,3,3]",
                   f"%wp{b}: f32[{c},{e},1,1]"]
        body.append(conv(f"e{b}", x, f"we{b}", 0))
        body.append(f"  %re{b} = nn.relu(%e{b})")
        body.append(conv(f"d{b}", f"re{b}", f"wd{b}", 1, f", groups={e}"))
        body.append(f"  %rd{b} = nn.relu(%d{b})")
        body.append(conv(f"p{b}", f"rd{b}", f"wp{b}", 0))
        body.append(f"  %s{b} = add(%p{b}, %{x})")
        x = f"s{b}"
        if b % 3 == 2 and h > 4:
            params.append(f"%wx{b}: f32[{2 * c},{c},1,1]")
            body.append(f"  %q{b} = nn.avg_pool2d(%{x}) {{pool_size=[2, 2], strides=[2, 2]}}")
            body.append(conv(f"x{b}", f"q{b}", f"wx{b}", 0))
            c, h, x = 2 * c, h // 2, f"x{b}"
    return params, body, x


def chain(n):
    rng = random.Random(1)
    body = ["  %v0 = negative(%x)"]
    for i in range(1, n):
        j = max(0, i - 1 - rng.randrange(1000) if rng.random() < 0.1 else i - 2)
        body.append(f"  %v{i} = add(%v{i - 1}, %v{j})")
    return ["%x: f32[64]"], body, f"v{n - 1}"


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    params, body, out = {"resnet": resnet, "mobilenet": mobilenet, "chain": chain}[kind](n)
    print("device @cpu = cpu(0)")
    print()
    print(f"fn @main({', '.join(params)}) {{")
    print("\n".join(body))
    print(f"  return %{out}")
    print("}")


if __name__ == "__main__":
    main()
