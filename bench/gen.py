#!/usr/bin/env python3
"""Generates benchmark modules, deterministically (fixed seed).

  gen.py ir N      a function of N binary float ops, operands among the
                   previous 64 values (as research/perf.md section 5)
  gen.py mlir N    the same program for mlir-opt (arith dialect)
  gen.py chain N   N unary ops in a chain with an on_device every 100
  gen.py dag N     a random DAG of N binary ops, one in 50 annotated
  gen.py net N     N operators in residual blocks (conv2d, bias_add, relu,
                   add) on 1x8x8x8 tensors, for ir-lower
  gen.py tex N     a prim of N statements that read and write images in
                   each texture scope, for ir-flatten-texture
  gen.py npy D,D.. FILE   an f32 .npy of that shape, values in [-1, 1)
"""
import array
import struct
import random
import sys

OPS = ["add", "multiply", "subtract", "divide"]
MLIR = ["arith.addf", "arith.mulf", "arith.subf", "arith.divf"]


def operands(rng, i):
    lo = max(0, i - 64)
    return rng.randint(lo, i - 1), rng.randint(lo, i - 1)


def gen_ir(n, out):
    rng = random.Random(1)
    w = out.write
    w("device @cpu = cpu(0)\n")
    w("fn @main(%a: f32[], %b: f32[]) {\n")
    w("  %0 = add(%a, %b)\n")
    for i in range(1, n):
        x, y = operands(rng, i)
        w(f"  %{i} = {OPS[i % 4]}(%{x}, %{y})\n")
    w(f"  return %{n - 1}\n}}\n")


def gen_mlir(n, out):
    rng = random.Random(1)
    w = out.write
    w("func.func @main(%a: f32, %b: f32) -> f32 {\n")
    w("  %v0 = arith.addf %a, %b : f32\n")
    for i in range(1, n):
        x, y = operands(rng, i)
        w(f"  %v{i} = {MLIR[i % 4]} %v{x}, %v{y} : f32\n")
    w(f"  return %v{n - 1} : f32\n}}\n")


def gen_chain(n, out):
    w = out.write
    w("device @cpu = cpu(0)\ndevice @gpu = gpu(0)\ndefault @gpu\n")
    w("fn @main(%x: f32[16]) {\n")
    w("  %0 = negative(%x)\n")
    for i in range(1, n):
        if i % 100 == 0:
            dev = "@cpu" if (i // 100) % 2 else "@gpu"
            w(f"  %{i} = on_device(%{i - 1}, {dev})\n")
        else:
            w(f"  %{i} = negative(%{i - 1})\n")
    w(f"  return %{n - 1}\n}}\n")


def gen_dag(n, out):
    rng = random.Random(2)
    w = out.write
    w("device @cpu = cpu(0)\ndevice @gpu = gpu(0)\ndefault @gpu\n")
    w("fn @main(%a: f32[16], %b: f32[16]) {\n")
    w("  %0 = add(%a, %b)\n")
    for i in range(1, n):
        x, y = operands(rng, i)
        if i % 50 == 0:
            dev = "@cpu" if rng.random() < 0.5 else "@gpu"
            w(f"  %{i} = on_device(%{i - 1}, {dev})\n")
        else:
            w(f"  %{i} = {OPS[i % 4]}(%{x}, %{y})\n")
    w(f"  return %{n - 1}\n}}\n")


def gen_net(n, out):
    w = out.write
    w("device @cpu = cpu(0)\n")
    w("fn @main(%x: f32[1,8,8,8], %w: f32[8,8,3,3], %b: f32[8]) {\n")
    prev, res, i = "%x", "%x", 0
    while i < n:
        w(f"  %c{i} = nn.conv2d({prev}, %w) {{padding=[1,1,1,1]}}\n")
        w(f"  %b{i} = nn.bias_add(%c{i}, %b)\n")
        w(f"  %r{i} = nn.relu(%b{i})\n")
        w(f"  %a{i} = add(%r{i}, {res})\n")
        prev = res = f"%a{i}"
        i += 4
    w(f"  return {prev}\n}}\n")


def gen_tex(n, out):
    w = out.write
    w("device @gpu = gpu(0) {texture=true}\n")
    w("prim @p(%A: f32[4,16,16,4] @gpu:texture, %W: f32[8,4,3,3,4] @gpu:texture:weight, "
      "%N: f32[4,4,16,16,4] @gpu:texture:nhwc, %B: f32[4,16,16,4] @gpu:texture) {\n")
    w("  for %i in 0..4 {\n    for %j in 0..16 {\n      for %k in 0..16 {\n")
    for i in range(n // 2):
        w(f"        let %v{i}: f32x4 = %A[%i, %j, %k, 0:4] + %W[%i * 2 + 1, %i, %j % 3, %k % 3, 0:4]"
          f" * broadcast<f32x4>(%N[%i, (%j + {i % 5 + 1}) % 4, %j, %k, {i % 4}])\n")
        w(f"        %B[%i, %j, %k, 0:4] = %v{i}\n")
    w("      }\n    }\n  }\n}\n")


def gen_npy(shape, path):
    dims = [int(d) for d in shape.split(",")]
    count = 1
    for d in dims:
        count *= d
    rng = random.Random(3)
    data = array.array("f", (rng.random() * 2 - 1 for _ in range(count)))
    if sys.byteorder != "little":
        data.byteswap()
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}, " for d in dims).rstrip(" ") if len(dims) > 1 else f"{dims[0]},")
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(data.tobytes())


def main():
    if sys.argv[1] == "npy":
        gen_npy(sys.argv[2], sys.argv[3])
        return
    kind, n = sys.argv[1], int(sys.argv[2])
    gen = {"ir": gen_ir, "mlir": gen_mlir, "chain": gen_chain, "dag": gen_dag, "net": gen_net,
           "tex": gen_tex}[kind]
    gen(n, sys.stdout)


if __name__ == "__main__":
    main()
