"""Small ONNX models for tests/onnx.bats, built here with onnx.helper (no
binary is committed), with their expected outputs computed by numpy; run
through cases.py (its docstring says how), which imports this module, its
bytecode cached.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

CASES = {}


def case(opset=13):
    def reg(fn):
        CASES[fn.__name__] = (fn, opset)
        return fn
    return reg


def rng(seed=0):
    return np.random.default_rng(seed)


def f32(a):
    return np.asarray(a, dtype=np.float32)


def vi(name, shape, et=T.FLOAT):
    return h.make_tensor_value_info(name, et, shape)


def init(name, a):
    return nh.from_array(np.asarray(a), name)


# --- numpy references ---------------------------------------------------------

def conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1), group=1):
    n, c, hh, ww = x.shape
    o, i, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (hh + pads[0] + pads[2] - ((kh - 1) * dil[0] + 1)) // strides[0] + 1
    ow = (ww + pads[1] + pads[3] - ((kw - 1) * dil[1] + 1)) // strides[1] + 1
    out = np.zeros((n, o, oh, ow))
    og = o // group
    for g in range(group):
        xs = xp[:, g * i:(g + 1) * i]
        ws = w[g * og:(g + 1) * og].astype(np.float64)
        for y in range(kh):
            for z in range(kw):
                p = xs[:, :, y * dil[0]:y * dil[0] + strides[0] * (oh - 1) + 1:strides[0],
                       z * dil[1]:z * dil[1] + strides[1] * (ow - 1) + 1:strides[1]]
                out[:, g * og:(g + 1) * og] += np.einsum('nihw,oi->nohw', p, ws[:, :, y, z])
    if b is not None:
        out += b.reshape(1, -1, 1, 1)
    return out


def pool2d(x, k, strides, pads, kind, ceil=False, count_pad=False):
    n, c, hh, ww = x.shape

    def osz(i, kk, s, p0, p1):
        span = i + p0 + p1 - kk
        return (-(-span // s) if ceil else span // s) + 1
    oh = osz(hh, k[0], strides[0], pads[0], pads[2])
    ow = osz(ww, k[1], strides[1], pads[1], pads[3])
    out = np.zeros((n, c, oh, ow))
    for y in range(oh):
        for z in range(ow):
            y0, z0 = y * strides[0] - pads[0], z * strides[1] - pads[1]
            ys, ye = max(y0, 0), min(y0 + k[0], hh)
            zs, ze = max(z0, 0), min(z0 + k[1], ww)
            win = x[:, :, ys:ye, zs:ze].astype(np.float64)
            if kind == 'max':
                out[:, :, y, z] = win.max(axis=(2, 3))
            else:
                cnt = (ye - ys) * (ze - zs)
                if count_pad:
                    cnt = (min(y0 + k[0], hh + pads[2]) - y0) * (min(z0 + k[1], ww + pads[3]) - z0)
                out[:, :, y, z] = win.sum(axis=(2, 3)) / cnt
    return out


# --- the cases: each returns (nodes, inputs, outputs, initializers, feeds, wants) ------

@case()
def conv_relu_add_gemm():
    r = rng(1)
    x = f32(r.standard_normal((1, 3, 6, 6)))
    w = f32(r.standard_normal((8, 3, 3, 3)))
    b = f32(r.standard_normal(8))
    g = f32(r.standard_normal((10, 8 * 6 * 6)))
    c = np.maximum(conv2d(x, w, b, pads=(1, 1, 1, 1)), 0)
    y = (c + c).reshape(1, -1) @ g.T
    nodes = [h.make_node('Conv', ['x', 'W', 'B'], ['c'], pads=[1, 1, 1, 1]),
             h.make_node('Relu', ['c'], ['r']),
             h.make_node('Add', ['r', 'r'], ['a']),
             h.make_node('Flatten', ['a'], ['f']),
             h.make_node('Gemm', ['f', 'G'], ['y'], transB=1)]
    return (nodes, [vi('x', [1, 3, 6, 6])], [vi('y', [1, 10])],
            [init('W', w), init('B', b), init('G', g)], {'x': x}, [y])


@case()
def matmul_chain_64mib():
    # four 2048x2048 f32 weights, 64 MiB: onnx.bats measures the import's
    # peak memory against them (issue 28, item 17)
    r = rng(2)
    x = f32(r.standard_normal((1, 2048)))
    ws = [f32(r.standard_normal((2048, 2048)) / 45) for _ in range(4)]
    y = x
    for w in ws:
        y = y @ w
    names = ['x', 'h1', 'h2', 'h3', 'y']
    nodes = [h.make_node('MatMul', [names[i], 'W%d' % i], [names[i + 1]]) for i in range(4)]
    return (nodes, [vi('x', [1, 2048])], [vi('y', [1, 2048])],
            [init('W%d' % i, w) for i, w in enumerate(ws)], {'x': x}, [y])


@case(opset=11)
def conv_groups_strides_dilation():
    r = rng(2)
    x = f32(r.standard_normal((2, 4, 9, 8)))
    w = f32(r.standard_normal((6, 2, 3, 2)))
    y = conv2d(x, w, strides=(2, 1), pads=(1, 0, 2, 1), dil=(2, 1), group=2)
    nodes = [h.make_node('Conv', ['x', 'W'], ['y'], group=2, strides=[2, 1],
                         pads=[1, 0, 2, 1], dilations=[2, 1], kernel_shape=[3, 2])]
    return (nodes, [vi('x', [2, 4, 9, 8])], [vi('y', list(y.shape))], [init('W', w)],
            {'x': x}, [y])


def same_pads(i, k, s, upper):
    o = -(-i // s)
    total = max((o - 1) * s + k - i, 0)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


@case()
def conv_auto_pad_same_upper():
    r = rng(3)
    x = f32(r.standard_normal((1, 2, 7, 6)))
    w = f32(r.standard_normal((3, 2, 4, 3)))
    ph, pw = same_pads(7, 4, 2, True), same_pads(6, 3, 2, True)
    y = conv2d(x, w, strides=(2, 2), pads=(ph[0], pw[0], ph[1], pw[1]))
    nodes = [h.make_node('Conv', ['x', 'W'], ['y'], auto_pad='SAME_UPPER', strides=[2, 2])]
    return (nodes, [vi('x', [1, 2, 7, 6])], [vi('y', list(y.shape))], [init('W', w)],
            {'x': x}, [y])


@case()
def conv_auto_pad_same_lower_depthwise():
    r = rng(4)
    x = f32(r.standard_normal((1, 3, 6, 5)))
    w = f32(r.standard_normal((3, 1, 4, 4)))
    b = f32(r.standard_normal(3))
    ph, pw = same_pads(6, 4, 1, False), same_pads(5, 4, 1, False)
    y = conv2d(x, w, b, pads=(ph[0], pw[0], ph[1], pw[1]), group=3)
    nodes = [h.make_node('Conv', ['x', 'W', 'B'], ['y'], auto_pad='SAME_LOWER', group=3)]
    return (nodes, [vi('x', [1, 3, 6, 5])], [vi('y', list(y.shape))],
            [init('W', w), init('B', b)], {'x': x}, [y])


@case()
def conv_valid_weights_as_input():
    r = rng(5)
    x = f32(r.standard_normal((1, 2, 5, 5)))
    w = f32(r.standard_normal((4, 2, 3, 3)))
    y = conv2d(x, w)
    nodes = [h.make_node('Conv', ['x', 'w'], ['y'], auto_pad='VALID')]
    return (nodes, [vi('x', [1, 2, 5, 5]), vi('w', [4, 2, 3, 3])], [vi('y', [1, 4, 3, 3])], [],
            {'x': x, 'w': w}, [y])


@case()
def gemm_alpha_beta_trans():
    r = rng(6)
    a = f32(r.standard_normal((5, 3)))   # transA: A is [K,M]
    b = f32(r.standard_normal((5, 4)))   # [K,N]
    c = f32(r.standard_normal(4))
    y = 0.5 * a.T.astype(np.float64) @ b + 2.0 * c
    nodes = [h.make_node('Gemm', ['a', 'B', 'C'], ['y'], alpha=0.5, beta=2.0, transA=1)]
    return (nodes, [vi('a', [5, 3])], [vi('y', [3, 4])], [init('B', b), init('C', c)],
            {'a': a}, [y])


@case(opset=11)
def gemm_inputs_alpha_no_c():
    r = rng(7)
    a = f32(r.standard_normal((2, 6)))
    b = f32(r.standard_normal((3, 6)))
    y = 3.0 * (a.astype(np.float64) @ b.T)
    nodes = [h.make_node('Gemm', ['a', 'b'], ['y'], alpha=3.0, transB=1)]
    return (nodes, [vi('a', [2, 6]), vi('b', [3, 6])], [vi('y', [2, 3])], [],
            {'a': a, 'b': b}, [y])


@case()
def broadcasting_arith():
    r = rng(8)
    x = f32(r.standard_normal((2, 3, 4)))
    v = f32(r.standard_normal((3, 1)))
    s = f32(r.uniform(1, 2, (4,)))
    t = f32(r.standard_normal((1, 1, 1)))
    y = ((x + v) - t) * s / (s + 1)
    nodes = [h.make_node('Add', ['x', 'v'], ['a']),
             h.make_node('Sub', ['a', 't'], ['b']),
             h.make_node('Mul', ['b', 's'], ['c']),
             h.make_node('Add', ['s', 'one'], ['s1']),
             h.make_node('Div', ['c', 's1'], ['y'])]
    return (nodes, [vi('x', [2, 3, 4]), vi('v', [3, 1])], [vi('y', [2, 3, 4])],
            [init('s', s), init('t', t), init('one', f32(1.0))], {'x': x, 'v': v}, [y])


@case()
def flatten_empty():
    # found by tests/fuzz/fuzz_onnx.c: a size 0 after Flatten was written
    # as newshape's 0, which copies the input's size (4) instead
    x = np.zeros((5, 4, 3, 0), np.float32)
    nodes = [h.make_node('Flatten', ['x'], ['f']),
             h.make_node('Flatten', ['x'], ['g'], axis=3),
             h.make_node('Relu', ['g'], ['r'])]
    return (nodes, [vi('x', [5, 4, 3, 0])], [vi('f', [5, 0]), vi('r', [60, 0])], [],
            {'x': x}, [x.reshape(5, 0), x.reshape(60, 0)])


@case()
def conv_no_output_channels():
    # found by tests/fuzz/fuzz_onnx.c: a weight of 0 output channels was
    # imported with channels=0, which nn.conv2d refuses
    x = f32(rng(3).standard_normal((1, 1, 5, 5)))
    w = np.zeros((0, 1, 3, 3), np.float32)
    nodes = [h.make_node('Conv', ['x', 'w'], ['y'], pads=[3, 1, 1, 1])]
    return (nodes, [vi('x', [1, 1, 5, 5]), vi('w', [0, 1, 3, 3])], [vi('y', [1, 0, 7, 5])], [],
            {'x': x, 'w': w}, [np.zeros((1, 0, 7, 5), np.float32)])


@case()
def maxpool_bool():
    # found by tests/fuzz/fuzz_onnx.c: not valid ONNX, but was refused as
    # "internal: does not verify" (nn.max_pool2d takes no bool)
    x = np.zeros((1, 1, 4, 4), bool)
    nodes = [h.make_node('MaxPool', ['x'], ['y'], kernel_shape=[2, 2]),
             h.make_node('GlobalAveragePool', ['x'], ['z'])]
    return (nodes, [vi('x', [1, 1, 4, 4], T.BOOL)],
            [vi('y', [1, 1, 3, 3], T.BOOL), vi('z', [1, 1, 1, 1], T.BOOL)], [], {'x': x}, [])


@case()
def clip_bool():
    x = np.zeros((3,), bool)
    nodes = [h.make_node('Clip', ['x'], ['y'])]
    return (nodes, [vi('x', [3], T.BOOL)], [vi('y', [3], T.BOOL)], [], {'x': x}, [])


@case()
def global_avgpool_bool():
    x = np.zeros((1, 1, 4, 4), bool)
    nodes = [h.make_node('GlobalAveragePool', ['x'], ['z'])]
    return (nodes, [vi('x', [1, 1, 4, 4], T.BOOL)], [vi('z', [1, 1, 1, 1], T.BOOL)], [],
            {'x': x}, [])


@case()
def two_outputs():
    r = rng(9)
    x = f32(r.standard_normal((2, 3)))
    nodes = [h.make_node('Relu', ['x'], ['r']),
             h.make_node('Mul', ['x', 'x'], ['m'])]
    return (nodes, [vi('x', [2, 3])], [vi('r', [2, 3]), vi('m', [2, 3])], [],
            {'x': x}, [np.maximum(x, 0), x * x])


# --- normalization, pooling, reductions -------------------------------------------

def bn_ref(x, s, b, m, v, eps=1e-5):
    sh = (1, -1) + (1,) * (x.ndim - 2)
    return (x - m.reshape(sh)) / np.sqrt(v.reshape(sh) + eps) * s.reshape(sh) + b.reshape(sh)


def bn_params(r, c):
    return (f32(r.uniform(0.5, 1.5, c)), f32(r.standard_normal(c)), f32(r.standard_normal(c)),
            f32(r.uniform(0.5, 2, c)))


@case()
def batchnorm_folded_into_conv():
    r = rng(11)
    x = f32(r.standard_normal((1, 3, 5, 5)))
    w = f32(r.standard_normal((4, 3, 3, 3)))
    b = f32(r.standard_normal(4))
    s, bb, m, v = bn_params(r, 4)
    y = np.maximum(bn_ref(conv2d(x, w, b), s, bb, m, v, 1e-3), 0)
    nodes = [h.make_node('Conv', ['x', 'W', 'B'], ['c']),
             h.make_node('BatchNormalization', ['c', 's', 'bb', 'm', 'v'], ['n'], epsilon=1e-3),
             h.make_node('Relu', ['n'], ['y'])]
    return (nodes, [vi('x', [1, 3, 5, 5])], [vi('y', [1, 4, 3, 3])],
            [init('W', w), init('B', b), init('s', s), init('bb', bb), init('m', m),
             init('v', v)], {'x': x}, [y])


@case()
def batchnorm_not_foldable():
    # the conv's output has two users: the BN stays a multiply and an add
    r = rng(12)
    x = f32(r.standard_normal((1, 2, 4, 4)))
    w = f32(r.standard_normal((3, 2, 1, 1)))
    s, bb, m, v = bn_params(r, 3)
    c = conv2d(x, w)
    y = bn_ref(c, s, bb, m, v) + c
    nodes = [h.make_node('Conv', ['x', 'W'], ['c']),
             h.make_node('BatchNormalization', ['c', 's', 'bb', 'm', 'v'], ['n']),
             h.make_node('Add', ['n', 'c'], ['y'])]
    return (nodes, [vi('x', [1, 2, 4, 4])], [vi('y', [1, 3, 4, 4])],
            [init('W', w), init('s', s), init('bb', bb), init('m', m), init('v', v)],
            {'x': x}, [y])


@case(opset=15)
def batchnorm_params_as_inputs():
    r = rng(13)
    x = f32(r.standard_normal((2, 3, 4)))
    s, bb, m, v = bn_params(r, 3)
    nodes = [h.make_node('BatchNormalization', ['x', 's', 'bb', 'm', 'v'], ['y'])]
    return (nodes, [vi('x', [2, 3, 4]), vi('s', [3]), vi('bb', [3]), vi('m', [3]), vi('v', [3])],
            [vi('y', [2, 3, 4])], [], {'x': x, 's': s, 'bb': bb, 'm': m, 'v': v},
            [bn_ref(x, s, bb, m, v)])


@case(opset=12)
def pools():
    r = rng(14)
    x = f32(r.standard_normal((1, 2, 7, 8)))
    mp = pool2d(x, (3, 3), (2, 2), (1, 1, 1, 1), 'max')
    ap = pool2d(x, (2, 3), (2, 2), (0, 1, 0, 1), 'avg', ceil=True)
    ai = pool2d(x, (3, 3), (1, 1), (1, 1, 1, 1), 'avg', count_pad=True)
    ga = x.mean(axis=(2, 3), keepdims=True)
    nodes = [h.make_node('MaxPool', ['x'], ['mp'], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1]),
             h.make_node('AveragePool', ['x'], ['ap'], kernel_shape=[2, 3], strides=[2, 2],
                         pads=[0, 1, 0, 1], ceil_mode=1),
             h.make_node('AveragePool', ['x'], ['ai'], kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], count_include_pad=1),
             h.make_node('GlobalAveragePool', ['x'], ['ga'])]
    return (nodes, [vi('x', [1, 2, 7, 8])],
            [vi('mp', list(mp.shape)), vi('ap', list(ap.shape)), vi('ai', list(ai.shape)),
             vi('ga', [1, 2, 1, 1])], [], {'x': x}, [mp, ap, ai, ga])


@case()
def maxpool_same_upper():
    r = rng(15)
    x = f32(r.standard_normal((1, 1, 5, 5)))
    ph = same_pads(5, 2, 2, True)
    y = pool2d(x, (2, 2), (2, 2), (ph[0], ph[0], ph[1], ph[1]), 'max')
    nodes = [h.make_node('MaxPool', ['x'], ['y'], kernel_shape=[2, 2], strides=[2, 2],
                         auto_pad='SAME_UPPER')]
    return (nodes, [vi('x', [1, 1, 5, 5])], [vi('y', [1, 1, 3, 3])], [], {'x': x}, [y])


@case(opset=13)
def reduce_mean_sum():
    r = rng(16)
    x = f32(r.standard_normal((2, 3, 4)))
    nodes = [h.make_node('ReduceMean', ['x'], ['a'], axes=[1, -1]),
             h.make_node('ReduceSum', ['x', 'ax'], ['b'], keepdims=0),
             h.make_node('ReduceSum', ['x'], ['c'])]
    return (nodes, [vi('x', [2, 3, 4])], [vi('a', [2, 1, 1]), vi('b', [2, 4]), vi('c', [1, 1, 1])],
            [init('ax', np.array([1], dtype=np.int64))], {'x': x},
            [x.mean(axis=(1, 2), keepdims=True), x.sum(axis=1), x.sum(keepdims=True)])


@case(opset=11)
def reduce_sum_axes_attribute():
    r = rng(17)
    x = f32(r.standard_normal((3, 2, 2)))
    nodes = [h.make_node('ReduceSum', ['x'], ['y'], axes=[0, 2], keepdims=0)]
    return (nodes, [vi('x', [3, 2, 2])], [vi('y', [2])], [], {'x': x}, [x.sum(axis=(0, 2))])


def softmax_ref(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@case(opset=13)
def softmax_13():
    x = f32(rng(18).standard_normal((2, 3, 4)))
    nodes = [h.make_node('Softmax', ['x'], ['a'], axis=1),
             h.make_node('Softmax', ['x'], ['b']),
             h.make_node('LogSoftmax', ['x'], ['c'], axis=-1)]
    return (nodes, [vi('x', [2, 3, 4])], [vi('a', [2, 3, 4]), vi('b', [2, 3, 4]),
                                          vi('c', [2, 3, 4])], [], {'x': x},
            [softmax_ref(x, 1), softmax_ref(x, -1), np.log(softmax_ref(x, -1))])


@case(opset=11)
def softmax_11_coerced():
    # before opset 13, Softmax flattens the axes from `axis` on
    x = f32(rng(19).standard_normal((2, 3, 4)))
    want = softmax_ref(x.reshape(2, 12), 1).reshape(2, 3, 4)
    nodes = [h.make_node('Softmax', ['x'], ['y'])]
    return (nodes, [vi('x', [2, 3, 4])], [vi('y', [2, 3, 4])], [], {'x': x}, [want])


# --- elementwise ------------------------------------------------------------------

@case(opset=13)
def clip_sigmoid_tanh():
    x = f32(rng(20).standard_normal((3, 4)) * 3)
    nodes = [h.make_node('Clip', ['x', 'lo', 'hi'], ['a']),
             h.make_node('Clip', ['x', '', 'hi'], ['b']),
             h.make_node('Sigmoid', ['x'], ['c']),
             h.make_node('Tanh', ['x'], ['d'])]
    return (nodes, [vi('x', [3, 4])], [vi(n, [3, 4]) for n in 'abcd'],
            [init('lo', f32(-1.0)), init('hi', f32(0.5))], {'x': x},
            [np.clip(x, -1, 0.5), np.minimum(x, 0.5), 1 / (1 + np.exp(-x.astype(np.float64))),
             np.tanh(x)])


@case(opset=9)
def clip_attributes_opset9():
    x = f32(rng(21).standard_normal((5,)) * 3)
    nodes = [h.make_node('Clip', ['x'], ['y'], min=0.0, max=6.0)]
    return (nodes, [vi('x', [5])], [vi('y', [5])], [], {'x': x}, [np.clip(x, 0, 6)])


def hard_sigmoid_ref(x, alpha, beta):
    return np.clip(alpha * x.astype(np.float64) + beta, 0, 1)


@case(opset=14)
def erf_hard_sigmoid_hard_swish():
    # Erf as in torch's GELU (x/2 (1 + erf(x/sqrt 2))), HardSigmoid with its
    # attributes and without (ONNX's 0.2, 0.5), HardSwish (1/6, 1/2)
    import math
    x = f32(rng(23).standard_normal((2, 3, 4)) * 4)
    nodes = [h.make_node('Div', ['x', 'sqrt2'], ['xs']),
             h.make_node('Erf', ['xs'], ['e']),
             h.make_node('Add', ['e', 'one'], ['e1']),
             h.make_node('Mul', ['x', 'e1'], ['xe']),
             h.make_node('Mul', ['xe', 'half'], ['gelu']),
             h.make_node('HardSigmoid', ['x'], ['hs'], alpha=1 / 6, beta=0.5),
             h.make_node('HardSigmoid', ['x'], ['hd']),
             h.make_node('HardSwish', ['x'], ['hw']),
             h.make_node('Erf', ['k'], ['ek']),
             h.make_node('Add', ['x', 'ek'], ['xk'])]
    erf = np.vectorize(math.erf)
    x64 = x.astype(np.float64)
    k = f32([-1, 0, 0.5, 2])
    return (nodes, [vi('x', [2, 3, 4])], [vi(n, [2, 3, 4]) for n in ('gelu', 'hs', 'hd', 'hw', 'xk')],
            [init('sqrt2', f32(math.sqrt(2))), init('one', f32(1)), init('half', f32(0.5)),
             init('k', k)], {'x': x},
            [0.5 * x64 * (1 + erf(x64 / math.sqrt(2))), hard_sigmoid_ref(x, 1 / 6, 0.5),
             hard_sigmoid_ref(x, 0.2, 0.5), x64 * hard_sigmoid_ref(x, 1 / 6, 0.5),
             x64 + erf(k.astype(np.float64))])


def layernorm_ref(x, axis, scale, bias, eps):
    x = x.astype(np.float64)
    axes = tuple(range(axis % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(((x - mean) ** 2).mean(axis=axes, keepdims=True) + eps)
    y = (x - mean) * inv * scale
    return (y + bias if bias is not None else y), mean, inv


@case(opset=17)
def layer_normalization():
    # torch.onnx's nn.LayerNorm from opset 17 (the last axis, Scale and B),
    # the last two axes without B, and the optional Mean and InvStdDev
    x = f32(rng(24).standard_normal((2, 3, 8)) * 3 + 1)
    s1, b1 = f32(rng(25).standard_normal(8)), f32(rng(26).standard_normal(8))
    s2 = f32(rng(27).standard_normal((3, 8)))
    nodes = [h.make_node('LayerNormalization', ['x', 's1', 'b1'], ['y1'], epsilon=1e-6),
             h.make_node('LayerNormalization', ['x', 's2'], ['y2', 'm2', 'i2'], axis=-2)]
    y1, _, _ = layernorm_ref(x, -1, s1, b1, f32(1e-6))
    y2, m2, i2 = layernorm_ref(x, -2, s2, None, f32(1e-5))
    return (nodes, [vi('x', [2, 3, 8])],
            [vi('y1', [2, 3, 8]), vi('y2', [2, 3, 8]), vi('m2', [2, 1, 1]), vi('i2', [2, 1, 1])],
            [init('s1', s1), init('b1', b1), init('s2', s2)], {'x': x}, [y1, y2, m2, i2])


def layernorm_chain(p, x, axes, two, eps, gamma=None, beta=None, gamma_first=False):
    """torch.onnx's nn.LayerNorm before opset 17 (ReduceMean, Sub, Pow,
    ReduceMean, Add, Sqrt, Div, Mul, Add), its names prefixed by p."""
    nodes = [h.make_node('ReduceMean', [x], [p + 'm'], axes=axes),
             h.make_node('Sub', [x, p + 'm'], [p + 'd']),
             h.make_node('Pow', [p + 'd', two], [p + 'p']),
             h.make_node('ReduceMean', [p + 'p'], [p + 'v'], axes=axes),
             h.make_node('Add', [p + 'v', eps], [p + 've']),
             h.make_node('Sqrt', [p + 've'], [p + 's']),
             h.make_node('Div', [p + 'd', p + 's'], [p + 'n'])]
    last = p + 'n'
    if gamma:
        ins = [gamma, last] if gamma_first else [last, gamma]
        nodes.append(h.make_node('Mul', ins, [p + 'g']))
        last = p + 'g'
    if beta:
        nodes.append(h.make_node('Add', [last, beta], [p + 'y']))
        last = p + 'y'
    return nodes, last


@case(opset=13)
def layernorm_decomposed():
    # torch.onnx's nn.LayerNorm at opset 13, its exponent and eps Constant
    # nodes written just before their use (one nn.layer_norm); over the
    # last two axes, gamma first and no beta (one more); the variance read
    # outside the chain, and the centered x read by a Relu too (each stays
    # the reductions and arithmetic)
    x = f32(rng(28).standard_normal((2, 3, 8)) * 3 + 1)
    g1, b1 = f32(rng(29).standard_normal(8)), f32(rng(30).standard_normal(8))
    g2 = f32(rng(31).standard_normal((3, 8)))
    const = lambda name, v: h.make_node('Constant', [], [name], value=nh.from_array(f32(v)))
    a, ya = layernorm_chain('a_', 'x', [-1], 'a_two', 'a_eps', 'g1', 'b1')
    a = a[:2] + [const('a_two', 2)] + a[2:4] + [const('a_eps', 1e-5)] + a[4:]
    b, yb = layernorm_chain('b_', 'x', [1, 2], 'two', 'eps3', 'g2', gamma_first=True)
    c, yc = layernorm_chain('c_', 'x', [-1], 'two', 'eps5', 'g1', 'b1')
    d, yd = layernorm_chain('d_', 'x', [-1], 'two', 'eps5', 'g1', 'b1')
    d.append(h.make_node('Relu', ['d_d'], ['d_r']))
    # an eps of shape [1,1,1,1] broadcasts the result to rank 4: stays
    e, ye = layernorm_chain('e_', 'x', [-1], 'two', 'eps4d', 'g1', 'b1')
    ref = lambda axis, g, b, eps: layernorm_ref(x, axis, g, b, f32(eps))[0]
    xd = x.astype(np.float64)
    xc = xd - xd.mean(-1, keepdims=True)
    return (a + b + c + d + e, [vi('x', [2, 3, 8])],
            [vi(ya, [2, 3, 8]), vi(yb, [2, 3, 8]), vi(yc, [2, 3, 8]), vi('c_v', [2, 3, 1]),
             vi(yd, [2, 3, 8]), vi('d_r', [2, 3, 8]), vi(ye, [1, 2, 3, 8])],
            [init('g1', g1), init('b1', b1), init('g2', g2), init('two', f32(2)),
             init('eps3', f32(1e-3)), init('eps5', f32(1e-5)),
             init('eps4d', f32(1e-5).reshape(1, 1, 1, 1))], {'x': x},
            [ref(-1, g1, b1, 1e-5), ref(-2, g2, None, 1e-3), ref(-1, g1, b1, 1e-5),
             (xc ** 2).mean(-1, keepdims=True), ref(-1, g1, b1, 1e-5), np.maximum(xc, 0),
             ref(-1, g1, b1, 1e-5)[None]])


@case()
def layernorm_bad_eps():
    # the decomposed chain's eps a Constant node without a name whose
    # value's raw data is 4 bytes short: one error, naming that node
    x = f32(rng(28).standard_normal((2, 3, 8)))
    c = lambda name, v: h.make_node('Constant', [], [name], value=nh.from_array(f32(v)))
    a, ya = layernorm_chain('a_', 'x', [-1], 'a_two', 'a_eps')
    eps = c('a_eps', [1e-5])
    eps.attribute[0].t.raw_data = b''
    eps.attribute[0].t.ClearField('float_data')
    eps.attribute[0].t.raw_data = b'\0\0'
    a = a[:2] + [c('a_two', 2)] + a[2:4] + [eps] + a[4:]
    return (a, [vi('x', [2, 3, 8])], [vi(ya, [2, 3, 8])], [], {'x': x}, None)


@case(opset=16)
def scatternd_known_dropout_mask():
    # swin's shifted-window mask: slices of zeros set to counts (ScatterND
    # over constants, folded), then reduction add; Dropout's mask (trues)
    x = f32(rng(28).standard_normal((4, 3)))
    z = np.zeros((4, 3), np.float32)
    idx = np.array([[0], [2], [-1]], np.int64)          # rows 0, 2 and 3
    upd = f32([[1, 1, 1], [2, 2, 2], [3, 3, 3]])
    want = z.copy()
    want[[0, 2, 3]] = upd
    idx2 = np.array([[1, 1], [1, 1], [0, 2]], np.int64)  # one element twice
    upd2 = f32([5, 6, 7])
    want2 = want.copy()
    want2[1, 1] += 11
    want2[0, 2] += 7
    nodes = [h.make_node('ScatterND', ['z', 'idx', 'upd'], ['m']),
             h.make_node('ScatterND', ['m', 'idx2', 'upd2'], ['m2'], reduction='add'),
             h.make_node('Add', ['x', 'm2'], ['y']),
             h.make_node('Dropout', ['x'], ['d', 'mask']),
             h.make_node('Cast', ['mask'], ['maskf'], to=T.FLOAT),
             h.make_node('Mul', ['d', 'maskf'], ['y2'])]
    return (nodes, [vi('x', [4, 3])], [vi('y', [4, 3]), vi('y2', [4, 3])],
            [init('z', z), init('idx', idx), init('upd', upd), init('idx2', idx2),
             init('upd2', upd2)], {'x': x}, [x + want2, x])


@case()
def scatternd_computed():
    x = f32(rng(29).standard_normal((4, 3)))
    nodes = [h.make_node('ScatterND', ['x', 'idx', 'upd'], ['y'])]
    return (nodes, [vi('x', [4, 3])], [vi('y', [4, 3])],
            [init('idx', np.array([[0]], np.int64)), init('upd', f32([[1, 2, 3]]))], {'x': x}, [])


@case(opset=12)
def einsum_batched_matmul():
    # maxvit's attention: scores q k^T and their product with v, and a
    # product whose left operand is [k,i]
    q, k, v = (f32(rng(30 + i).standard_normal((2, 3, 4, 5))) for i in range(3))
    w = f32(rng(33).standard_normal((2, 5, 4)))
    nodes = [h.make_node('Einsum', ['q', 'k'], ['s'], equation='BGID,BGJD->BGIJ'),
             h.make_node('Einsum', ['s', 'v'], ['o'], equation='bhij, bhjd -> bhid'),
             h.make_node('Einsum', ['w', 'w'], ['g'], equation='nki,nkj->nij')]
    s = np.einsum('bgid,bgjd->bgij', q.astype(np.float64), k)
    return (nodes, [vi('q', [2, 3, 4, 5]), vi('k', [2, 3, 4, 5]), vi('v', [2, 3, 4, 5]),
                    vi('w', [2, 5, 4])],
            [vi('s', [2, 3, 4, 4]), vi('o', [2, 3, 4, 5]), vi('g', [2, 4, 4])], [],
            {'q': q, 'k': k, 'v': v, 'w': w},
            [s, np.einsum('bhij,bhjd->bhid', s, v), np.einsum('nki,nkj->nij', w.astype(np.float64), w)])


@case(opset=12)
def einsum_unsupported():
    x = f32(rng(34).standard_normal((3, 3)))
    nodes = [h.make_node('Einsum', ['x', 'x'], ['y'], equation='ij,ij->ij')]
    return (nodes, [vi('x', [3, 3])], [vi('y', [3, 3])], [], {'x': x}, [])


@case(opset=12)
def einsum_rank1():
    # terms of fewer than two labels: refused, never read before their
    # first label (UBSan in make check's sanitizer pass)
    x = f32(rng(35).standard_normal((3,)))
    nodes = [h.make_node('Einsum', ['x', 'x'], ['y'], equation='i,i->i')]
    return (nodes, [vi('x', [3])], [vi('y', [3])], [], {'x': x}, [])


@case()
def identity_constant_dropout():
    x = f32(rng(22).standard_normal((2, 2)))
    k = f32([[1, 2], [3, 4]])
    nodes = [h.make_node('Constant', [], ['k'], value=nh.from_array(k)),
             h.make_node('Identity', ['x'], ['i']),
             h.make_node('Dropout', ['i'], ['d']),
             h.make_node('Mul', ['d', 'k'], ['y'])]
    return (nodes, [vi('x', [2, 2])], [vi('y', [2, 2])], [], {'x': x}, [x * k])


# --- matrix products --------------------------------------------------------------

@case()
def matmuls():
    r = rng(23)
    a = f32(r.standard_normal((2, 3, 4)))
    w = f32(r.standard_normal((4, 5)))
    b = f32(r.standard_normal((2, 4, 6)))
    c = f32(r.standard_normal((3, 4)))
    v = f32(r.standard_normal(4))
    nodes = [h.make_node('MatMul', ['a', 'W'], ['p']),       # [2,3,4] x [4,5]: dense
             h.make_node('MatMul', ['a', 'b'], ['q']),       # batched
             h.make_node('MatMul', ['c', 'b'], ['s']),       # [3,4] x [2,4,6]: broadcast
             h.make_node('MatMul', ['v', 'W'], ['t']),       # 1-D left
             h.make_node('MatMul', ['a', 'v'], ['u'])]       # 1-D right
    return (nodes, [vi('a', [2, 3, 4]), vi('b', [2, 4, 6]), vi('c', [3, 4]), vi('v', [4])],
            [vi('p', [2, 3, 5]), vi('q', [2, 3, 6]), vi('s', [2, 3, 6]), vi('t', [5]),
             vi('u', [2, 3])], [init('W', w)], {'a': a, 'b': b, 'c': c, 'v': v},
            [a @ w, a @ b, c @ b, v @ w, a @ v])


# --- data movement and shapes -----------------------------------------------------

@case(opset=13)
def transpose_concat_split_slice():
    r = rng(24)
    x = f32(r.standard_normal((2, 6, 4)))
    k = f32(r.standard_normal((2, 1, 4)))
    nodes = [h.make_node('Transpose', ['x'], ['t'], perm=[2, 0, 1]),
             h.make_node('Concat', ['x', 'k'], ['c'], axis=1),
             h.make_node('Split', ['x'], ['s0', 's1', 's2'], axis=1),
             h.make_node('Split', ['x', 'sz'], ['u0', 'u1'], axis=-1),
             h.make_node('Slice', ['x', 'st', 'en', 'ax'], ['sl']),
             h.make_node('Slice', ['k2', 'st2', 'en2', 'ax2', 'sp2'], ['ks']),
             h.make_node('Mul', ['sl', 'ks'], ['m'])]
    k2 = f32(r.standard_normal((13,)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    return (nodes, [vi('x', [2, 6, 4])],
            [vi('t', [4, 2, 6]), vi('c', [2, 7, 4]), vi('s0', [2, 2, 4]), vi('s1', [2, 2, 4]),
             vi('s2', [2, 2, 4]), vi('u0', [2, 6, 1]), vi('u1', [2, 6, 3]), vi('m', [1, 4, 4])],
            [init('k', k), init('sz', i64([1, 3])), init('st', i64([1, -1])),
             init('en', i64([-1, 1000])), init('ax', i64([1, 0])), init('k2', k2),
             init('st2', i64([-2])), init('en2', i64([0])), init('ax2', i64([0])),
             init('sp2', i64([-3]))],
            {'x': x},
            [x.transpose(2, 0, 1), np.concatenate([x, k], 1), x[:, 0:2], x[:, 2:4], x[:, 4:6],
             x[:, :, :1], x[:, :, 1:], x[-1:, 1:-1] * k2[-2:0:-3]])


@case(opset=11)
def split_unsqueeze_squeeze_opset11():
    x = f32(rng(25).standard_normal((4, 3)))
    nodes = [h.make_node('Split', ['x'], ['a', 'b'], axis=0, split=[1, 3]),
             h.make_node('Squeeze', ['a'], ['sq'], axes=[0]),
             h.make_node('Unsqueeze', ['sq'], ['y'], axes=[1, -1])]
    return (nodes, [vi('x', [4, 3])], [vi('y', [3, 1, 1]), vi('b', [3, 3])], [], {'x': x},
            [x[0].reshape(3, 1, 1), x[1:]])


@case(opset=13)
def torch_flatten_shape_arithmetic():
    # x.view(x.size(0), -1) as torch.onnx writes it
    x = f32(rng(26).standard_normal((2, 3, 2, 2)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Shape', ['x'], ['shp']),
             h.make_node('Gather', ['shp', 'zero'], ['n'], axis=0),
             h.make_node('Unsqueeze', ['n', 'ax0'], ['nu']),
             h.make_node('Concat', ['nu', 'minus1'], ['newshape'], axis=0),
             h.make_node('Reshape', ['x', 'newshape'], ['y'])]
    return (nodes, [vi('x', [2, 3, 2, 2])], [vi('y', [2, 12])],
            [init('zero', i64(0)), init('ax0', i64([0])), init('minus1', i64([-1]))],
            {'x': x}, [x.reshape(2, -1)])


@case(opset=11)
def channel_shuffle():
    # ShuffleNet's channel shuffle: sizes from Shape, Gather and Div
    x = f32(rng(27).standard_normal((1, 6, 2, 2)))
    g = 3
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Shape', ['x'], ['shp'])]
    for i, n in enumerate('nchw'):
        nodes.append(h.make_node('Gather', ['shp', 'i%d' % i], [n], axis=0))
    nodes += [h.make_node('Div', ['c', 'groups'], ['cg']),
              h.make_node('Unsqueeze', ['n'], ['n1'], axes=[0]),
              h.make_node('Unsqueeze', ['cg'], ['cg1'], axes=[0]),
              h.make_node('Unsqueeze', ['h'], ['h1'], axes=[0]),
              h.make_node('Unsqueeze', ['w'], ['w1'], axes=[0]),
              h.make_node('Concat', ['n1', 'g1', 'cg1', 'h1', 'w1'], ['s5'], axis=0),
              h.make_node('Reshape', ['x', 's5'], ['r5']),
              h.make_node('Transpose', ['r5'], ['t5'], perm=[0, 2, 1, 3, 4]),
              h.make_node('Mul', ['cg', 'groups'], ['c2']),
              h.make_node('Unsqueeze', ['c2'], ['c21'], axes=[0]),
              h.make_node('Concat', ['n1', 'c21', 'h1', 'w1'], ['s4'], axis=0),
              h.make_node('Reshape', ['t5', 's4'], ['y'])]
    inits = [init('i%d' % i, i64(i)) for i in range(4)]
    inits += [init('groups', i64(g)), init('g1', i64([g]))]
    want = x.reshape(1, g, 2, 2, 2).transpose(0, 2, 1, 3, 4).reshape(1, 6, 2, 2)
    return (nodes, [vi('x', [1, 6, 2, 2])], [vi('y', [1, 6, 2, 2])], inits, {'x': x}, [want])


@case(opset=13)
def gather_expand_computed():
    x = f32(rng(28).standard_normal((3, 4)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Gather', ['x', 'one'], ['row'], axis=0),
             h.make_node('Gather', ['x', 'cols'], ['c'], axis=1),
             h.make_node('Expand', ['row', 'shape'], ['e'])]
    return (nodes, [vi('x', [3, 4])], [vi('row', [4]), vi('c', [3, 2]), vi('e', [2, 4])],
            [init('one', i64(-2)), init('cols', i64([1, 2])), init('shape', i64([2, 1]))],
            {'x': x}, [x[1], x[:, 1:3], np.broadcast_to(x[1], (2, 4))])


@case(opset=13)
def slice_steps_computed():
    x = f32(rng(31).standard_normal((3, 7, 5)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['y']),
             h.make_node('Slice', ['x', 'st2', 'en2'], ['z'])]
    return (nodes, [vi('x', [3, 7, 5])], [vi('y', [3, 4, 2]), vi('z', [1, 7, 5])],
            [init('st', i64([-1, 0])), init('en', i64([-1000, 100])), init('ax', i64([1, 2])),
             init('sp', i64([-2, 3])), init('st2', i64([1])), init('en2', i64([-1]))],
            {'x': x}, [x[:, ::-2, ::3], x[1:-1]])


@case(opset=9)
def slice_attributes_opset9():
    x = f32(rng(32).standard_normal((4, 6)))
    nodes = [h.make_node('Slice', ['x'], ['y'], starts=[1, 2], ends=[3, 1000], axes=[1, 0])]
    return (nodes, [vi('x', [4, 6])], [vi('y', [2, 2])], [], {'x': x}, [x[2:, 1:3]])


@case(opset=6)
def legacy_broadcast_opset6():
    # opset 6: broadcast=1 with axis aligns B's dims from axis; without
    # axis at the end; broadcast=0 needs equal shapes; BatchNormalization
    # and Dropout in test mode (is_test=1), Gemm with broadcast
    x = f32(rng(33).standard_normal((2, 3, 4)))
    b = f32(rng(34).standard_normal((3,)))
    c = f32(rng(35).standard_normal((4,)))
    s, t = f32(rng(36).uniform(0.5, 1.5, (3,))), f32(rng(37).standard_normal((3,)))
    m, v = f32(rng(38).standard_normal((3,))), f32(rng(39).uniform(0.5, 1.5, (3,)))
    w = f32(rng(40).standard_normal((5, 12)))
    nodes = [h.make_node('Add', ['x', 'b'], ['a'], broadcast=1, axis=1),
             h.make_node('Mul', ['a', 'c'], ['p'], broadcast=1),
             h.make_node('Sub', ['p', 'x'], ['q']),
             h.make_node('Unsqueeze', ['q'], ['q4'], axes=[3]),
             h.make_node('BatchNormalization', ['q4', 's', 't', 'm', 'v'], ['n'],
                         is_test=1, epsilon=1e-5),
             h.make_node('Dropout', ['n'], ['d'], is_test=1, ratio=0.5),
             h.make_node('Flatten', ['d'], ['f']),
             h.make_node('Gemm', ['f', 'w', 'gb'], ['y'], transB=1, broadcast=1)]
    a = x + b.reshape(3, 1)
    q = a * c - x
    n = (q - m.reshape(3, 1)) / np.sqrt(v.reshape(3, 1) + 1e-5) * s.reshape(3, 1) + t.reshape(3, 1)
    gb = f32(rng(41).standard_normal((5,)))
    y = n.reshape(2, 12) @ w.T + gb
    return (nodes, [vi('x', [2, 3, 4])], [vi('y', [2, 5])],
            [init('b', b), init('c', c), init('s', s), init('t', t), init('m', m),
             init('v', v), init('w', w), init('gb', gb)], {'x': x}, [y])


@case(opset=6)
def legacy_no_broadcast():
    nodes = [h.make_node('Add', ['x', 'b'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [init('b', f32(np.ones((3,))))],
            {}, None)


@case(opset=6)
def legacy_bn_training():
    nodes = [h.make_node('BatchNormalization', ['x', 's', 't', 'm', 'v'], ['y'])]
    one = f32(np.ones((3,)))
    return (nodes, [vi('x', [2, 3, 2, 2])], [vi('y', [2, 3, 2, 2])],
            [init('s', one), init('t', one), init('m', one), init('v', one)], {}, None)


# --- operators imported as compositions of the IR's -----------------------------

@case(opset=13)
def activations_composed():
    # LeakyRelu, PRelu, ThresholdedRelu, Shrink, Elu, Selu, Celu, Softplus,
    # Softsign, Sinh, Cosh, Sign, IsInf, IsNaN, Mean, GlobalMaxPool,
    # LessOrEqual, GreaterOrEqual, Xor: wheres, comparisons, exp, arithmetic
    r = rng(31)
    x = f32(r.standard_normal((2, 3, 4)) * 3)
    x[0, 0, :2] = [0, 0.5]
    s = f32(r.standard_normal((3, 1)))
    y = f32(np.round(r.standard_normal((2, 3, 4))))
    sp = f32([np.inf, -np.inf, np.nan, 1, -2, 0])
    p, q = r.standard_normal((2, 3, 4)) > 0, r.standard_normal((3, 4)) > 0
    x64 = x.astype(np.float64)
    sel_a, sel_g = 1.67326319217681884765625, 1.05070102710723876953125
    ops = [('LeakyRelu', ['x'], {'alpha': 0.2}, np.where(x64 < 0, 0.2 * x64, x64)),
           ('LeakyRelu', ['x'], {}, np.where(x64 < 0, 0.01 * x64, x64)),
           ('PRelu', ['x', 's'], {}, np.where(x64 < 0, s * x64, x64)),
           ('ThresholdedRelu', ['x'], {'alpha': 0.5}, np.where(x64 > 0.5, x64, 0)),
           ('Shrink', ['x'], {'lambd': 1.5, 'bias': 0.5},
            np.where(x64 < -1.5, x64 + 0.5, np.where(x64 > 1.5, x64 - 0.5, 0))),
           ('Elu', ['x'], {'alpha': 2.0}, np.where(x64 < 0, 2 * (np.exp(x64) - 1), x64)),
           ('Selu', ['x'], {}, sel_g * np.where(x64 > 0, x64, sel_a * (np.exp(x64) - 1))),
           ('Celu', ['x'], {'alpha': 2.0},
            np.maximum(0, x64) + np.minimum(0, 2 * (np.exp(x64 / 2) - 1))),
           ('Softplus', ['x'], {}, np.log1p(np.exp(x64))),
           ('Softsign', ['x'], {}, x64 / (1 + np.abs(x64))),
           ('Sinh', ['x'], {}, np.sinh(x64)),
           ('Cosh', ['x'], {}, np.cosh(x64)),
           ('Sign', ['y'], {}, np.sign(y)),
           ('Mean', ['x', 'y', 's'], {}, (x64 + y + s) / 3),
           ('GlobalMaxPool', ['x'], {}, x64.max(axis=2, keepdims=True)),
           ('LessOrEqual', ['x', 'y'], {}, x <= y),
           ('GreaterOrEqual', ['x', 'y'], {}, x >= y),
           ('Xor', ['p', 'q'], {}, p ^ q),
           ('IsInf', ['sp'], {}, np.isinf(sp)),
           ('IsInf', ['sp'], {'detect_negative': 0}, np.isposinf(sp)),
           ('IsInf', ['sp'], {'detect_positive': 0}, np.isneginf(sp)),
           ('IsNaN', ['sp'], {}, np.isnan(sp))]
    nodes = [h.make_node(op, ins, ['o%d' % i], **a) for i, (op, ins, a, _) in enumerate(ops)]
    outs = [vi('o%d' % i, list(w.shape), T.BOOL if w.dtype == bool else T.FLOAT)
            for i, (_, _, _, w) in enumerate(ops)]
    return (nodes, [vi('x', [2, 3, 4]), vi('y', [2, 3, 4]), vi('p', [2, 3, 4], T.BOOL),
                    vi('q', [3, 4], T.BOOL), vi('sp', [6])], outs, [init('s', s)],
            {'x': x, 'y': y, 'p': p, 'q': q, 'sp': sp}, [w for (_, _, _, w) in ops])


@case(opset=1)
def opset1_softplus_not():
    # opset 1's models import (their forms equal opset 6's here)
    x = f32(rng(32).standard_normal((3, 4)))
    g = x > 0
    nodes = [h.make_node('Softplus', ['x'], ['a']), h.make_node('Softsign', ['x'], ['b']),
             h.make_node('Not', ['g'], ['c'])]
    return (nodes, [vi('x', [3, 4]), vi('g', [3, 4], T.BOOL)],
            [vi('a', [3, 4]), vi('b', [3, 4]), vi('c', [3, 4], T.BOOL)], [], {'x': x, 'g': g},
            [np.log1p(np.exp(x.astype(np.float64))), x / (1 + np.abs(x)), ~g])


def log_softmax_ref(x, axis):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def nll_ref(lp, t, w, ii, reduction):
    # -lp[n, t, d...] w[t], 0 where t == ii; mean divides by the weights taken
    c = lp.shape[1]
    w = np.ones(c) if w is None else w.astype(np.float64)
    keep = t != ii
    tt = np.where(keep, t, 0)
    got = np.take_along_axis(lp, tt[:, None], axis=1)[:, 0]
    wt = np.where(keep, w[tt], 0)
    loss = -got * wt
    if reduction == 'none':
        return loss
    return loss.sum() if reduction == 'sum' else loss.sum() / wt.sum()


@case(opset=13)
def gathers_onehot():
    # Gather by computed indices (negative ones, rank 2, axis 1), Gather by
    # known non-consecutive indices, GatherElements (data longer than the
    # indices on another axis), Hardmax (opset 13): one-hot masks
    r = rng(33)
    x = f32(r.standard_normal((4, 5, 3)))
    i2 = np.array([[0, -1], [3, 2], [-5, 4]], dtype=np.int64)
    ge = np.array([[[1, -4, 0], [2, 3, -1]]], dtype=np.int64)   # [1, 2, 3] into [4, 5, 3] on axis 1
    xs = x[:1, :, :]
    nodes = [h.make_node('Gather', ['x', 'i2'], ['g0'], axis=1),
             h.make_node('Gather', ['x', 'kidx'], ['g1'], axis=0),
             h.make_node('GatherElements', ['x', 'ge'], ['g2'], axis=1),
             h.make_node('Hardmax', ['x'], ['hm'])]
    kidx = np.array([3, 0, 3], dtype=np.int64)
    g2 = np.take_along_axis(xs, np.where(ge < 0, ge + 5, ge), axis=1)
    hm = (np.arange(3) == x.argmax(axis=-1)[..., None]).astype(np.float32)
    return (nodes, [vi('x', [4, 5, 3]), vi('i2', [3, 2], T.INT64), vi('ge', [1, 2, 3], T.INT64)],
            [vi('g0', [4, 3, 2, 3]), vi('g1', [3, 5, 3]), vi('g2', [1, 2, 3]), vi('hm', [4, 5, 3])],
            [init('kidx', kidx)], {'x': x, 'i2': i2, 'ge': ge},
            [np.take(x, np.where(i2 < 0, i2 + 5, i2), axis=1), x[kidx], g2, hm])


@case(opset=11)
def hardmax_opset11():
    # before opset 13 over the axes from axis (1) on, flattened
    x = f32(rng(34).standard_normal((2, 3, 4)))
    f = x.reshape(2, 12)
    want = (np.arange(12) == f.argmax(axis=1)[:, None]).astype(np.float32).reshape(2, 3, 4)
    return ([h.make_node('Hardmax', ['x'], ['y'])], [vi('x', [2, 3, 4])], [vi('y', [2, 3, 4])], [],
            {'x': x}, [want])


@case(opset=13)
def losses_onehot():
    # NegativeLogLikelihoodLoss (weights, ignore_index, each reduction) and
    # SoftmaxCrossEntropyLoss with its log_prob output
    r = rng(35)
    x = f32(r.standard_normal((3, 4, 2)))
    t = np.array([[0, 3], [2, -1], [1, 1]], dtype=np.int64)
    w = f32([0.5, 1, 2, 0.25])
    lp = log_softmax_ref(x, 1)
    nodes = [h.make_node('NegativeLogLikelihoodLoss', ['x', 't', 'w'], ['a'], ignore_index=-1),
             h.make_node('NegativeLogLikelihoodLoss', ['x', 't2'], ['b'], reduction='sum'),
             h.make_node('NegativeLogLikelihoodLoss', ['x', 't', 'w'], ['c'], reduction='none',
                         ignore_index=-1),
             h.make_node('SoftmaxCrossEntropyLoss', ['x', 't', 'w'], ['d', 'lp'], ignore_index=-1),
             h.make_node('SoftmaxCrossEntropyLoss', ['x', 't2'], ['e'], reduction='none')]
    t2 = np.where(t < 0, 2, t)
    x64 = x.astype(np.float64)
    return (nodes, [vi('x', [3, 4, 2]), vi('t', [3, 2], T.INT64), vi('t2', [3, 2], T.INT64)],
            [vi('a', []), vi('b', []), vi('c', [3, 2]), vi('d', []), vi('lp', [3, 4, 2]),
             vi('e', [3, 2])], [init('w', w)], {'x': x, 't': t, 't2': t2},
            [nll_ref(x64, t, w, -1, 'mean'), nll_ref(x64, t2, None, None, 'sum'),
             nll_ref(x64, t, w, -1, 'none'), nll_ref(lp, t, w, -1, 'mean'), lp,
             nll_ref(lp, t2, None, None, 'none')])


@case(opset=13)
def rounding_mod_shift_pow():
    # Floor, Ceil, Round (halves to even; large values and infinities kept),
    # Mod (fmod=0 takes the divisor's sign, fmod=1 the dividend's),
    # BitShift, Pow with an exponent (or base) of another type, computed
    x = f32([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.2, 3.7, 1e9, -1e9, np.inf, -np.inf])
    a = np.array([-7, 7, -7, 7, 0, 5], dtype=np.int32)
    b = np.array([3, -3, -3, 3, 4, 5], dtype=np.int32)
    fa, fb = f32([-7.5, 7.5, 5.25, -0.5]), f32([2, -2, 1.5, 0.25])
    u, s = np.array([1, 16, 255], dtype=np.uint8), np.array([1, 3, 8], dtype=np.uint8)
    ie = np.array([2, 3, 4], dtype=np.int64)
    xf = f32([1.5, 2, -3])
    nodes = [h.make_node('Floor', ['x'], ['fl']), h.make_node('Ceil', ['x'], ['ce']),
             h.make_node('Round', ['x'], ['ro']), h.make_node('Mod', ['a', 'b'], ['m0']),
             h.make_node('Mod', ['a', 'b'], ['m1'], fmod=1),
             h.make_node('Mod', ['fa', 'fb'], ['m2'], fmod=1),
             h.make_node('BitShift', ['u', 's'], ['sl'], direction='LEFT'),
             h.make_node('BitShift', ['u', 's'], ['sr'], direction='RIGHT'),
             h.make_node('Pow', ['xf', 'ie'], ['p0']), h.make_node('Pow', ['ie', 'xf'], ['p1'])]
    nan_ok = lambda f: np.where(np.isfinite(x), f(np.where(np.isfinite(x), x, 0)), x)
    return (nodes, [vi('x', [12]), vi('a', [6], T.INT32), vi('b', [6], T.INT32), vi('fa', [4]),
                    vi('fb', [4]), vi('u', [3], T.UINT8), vi('s', [3], T.UINT8),
                    vi('ie', [3], T.INT64), vi('xf', [3])],
            [vi('fl', [12]), vi('ce', [12]), vi('ro', [12]), vi('m0', [6], T.INT32),
             vi('m1', [6], T.INT32), vi('m2', [4]), vi('sl', [3], T.UINT8),
             vi('sr', [3], T.UINT8), vi('p0', [3]), vi('p1', [3], T.INT64)], [],
            {'x': x, 'a': a, 'b': b, 'fa': fa, 'fb': fb, 'u': u, 's': s, 'ie': ie, 'xf': xf},
            [nan_ok(np.floor), nan_ok(np.ceil), nan_ok(np.round), np.mod(a, b), np.fmod(a, b),
             np.fmod(fa, fb), (u.astype(np.uint64) << s).astype(np.uint8), u >> s,
             np.power(xf, ie), np.power(ie, xf).astype(np.int64)])


@case(opset=14)
def trilu_cumsum_eyelike_blocks_prod():
    # Trilu (k computed, both sides), CumSum (axis computed; exclusive,
    # reverse), EyeLike, DepthToSpace (DCR, CRD), SpaceToDepth, ReduceProd
    # (an axis of 3, padded to 4 with ones; integers too)
    r = rng(36)
    x = f32(r.standard_normal((2, 3, 4)))
    ix = np.array([[1, -2, 3], [4, 5, -6]], dtype=np.int64)
    k = np.array(-1, dtype=np.int64)
    ax = np.array(1, dtype=np.int32)
    d = f32(r.standard_normal((1, 8, 2, 3)))
    cum = np.cumsum(x, axis=1)
    nodes = [h.make_node('Trilu', ['x', 'k'], ['t0']), h.make_node('Trilu', ['x', 'k'], ['t1'], upper=0),
             h.make_node('CumSum', ['x', 'ax'], ['c0']),
             h.make_node('CumSum', ['x', 'ax'], ['c1'], exclusive=1, reverse=1),
             h.make_node('EyeLike', ['ix'], ['e0'], k=1, dtype=T.FLOAT),
             h.make_node('DepthToSpace', ['d'], ['s0'], blocksize=2),
             h.make_node('DepthToSpace', ['d'], ['s1'], blocksize=2, mode='CRD'),
             h.make_node('SpaceToDepth', ['s0'], ['s2'], blocksize=2),
             h.make_node('ReduceProd', ['x'], ['p0'], axes=[1], keepdims=0),
             h.make_node('ReduceProd', ['ix'], ['p1'])]
    rev_excl = np.flip(np.cumsum(np.flip(x, 1), axis=1), 1) - x
    dcr = d.reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    crd = d.reshape(1, 2, 2, 2, 2, 3).transpose(0, 1, 4, 2, 5, 3).reshape(1, 2, 4, 6)
    return (nodes, [vi('x', [2, 3, 4]), vi('ix', [2, 3], T.INT64), vi('k', [], T.INT64),
                    vi('ax', [], T.INT32), vi('d', [1, 8, 2, 3])],
            [vi('t0', [2, 3, 4]), vi('t1', [2, 3, 4]), vi('c0', [2, 3, 4]), vi('c1', [2, 3, 4]),
             vi('e0', [2, 3]), vi('s0', [1, 2, 4, 6]), vi('s1', [1, 2, 4, 6]),
             vi('s2', [1, 8, 2, 3]), vi('p0', [2, 4]), vi('p1', [1, 1], T.INT64)], [],
            {'x': x, 'ix': ix, 'k': k, 'ax': ax, 'd': d},
            [np.triu(x, -1), np.tril(x, -1), cum, rev_excl, np.eye(2, 3, 1, dtype=np.float32),
             dcr, crd, d, x.prod(axis=1), ix.prod(keepdims=True)])


@case(opset=16)
def onehot_scatter_tile():
    # OneHot (negative indices, axis 1), ScatterElements (none on data
    # longer than the indices on the other axis, add with a duplicate, mul),
    # Tile (repeats known at import)
    r = rng(37)
    idx = np.array([[1, -1], [0, 2]], dtype=np.int64)
    vals = f32([-2, 5])
    oh = np.where(np.arange(3)[None, :, None] == np.where(idx < 0, idx + 3, idx)[:, None, :], 5, -2)
    data = f32(r.standard_normal((3, 4)))
    si = np.array([[1, 0, 2], [0, 2, -3]], dtype=np.int64)     # [2, 3] into [3, 4] on axis 0
    su = f32(r.standard_normal((2, 3)))
    none_, add, mul = data.copy(), data.copy(), data.copy()
    for i in range(2):
        for j in range(3):
            k = si[i, j] % 3
            none_[k, j] = su[i, j]
            add[k, j] += su[i, j]
            mul[k, j] *= su[i, j]
    x = f32(r.standard_normal((2, 3)))
    nodes = [h.make_node('OneHot', ['idx', 'depth', 'vals'], ['o'], axis=1),
             h.make_node('ScatterElements', ['data', 'si', 'su'], ['s0']),
             h.make_node('ScatterElements', ['data', 'si', 'su'], ['s1'], reduction='add'),
             h.make_node('ScatterElements', ['data', 'si', 'su'], ['s2'], reduction='mul'),
             h.make_node('Tile', ['x', 'rep'], ['t'])]
    return (nodes, [vi('idx', [2, 2], T.INT64), vi('vals', [2]), vi('data', [3, 4]),
                    vi('si', [2, 3], T.INT64), vi('su', [2, 3]), vi('x', [2, 3])],
            [vi('o', [2, 3, 2]), vi('s0', [3, 4]), vi('s1', [3, 4]), vi('s2', [3, 4]),
             vi('t', [6, 6])],
            [init('depth', f32(3)), init('rep', np.array([3, 2], dtype=np.int64))],
            {'idx': idx, 'vals': vals, 'data': data, 'si': si, 'su': su, 'x': x},
            [oh, none_, add, mul, np.tile(x, (3, 2))])


def resize_1d_ref(v, out, scale, mode, coord, nearest='round_prefer_floor', a=-0.75,
                  exclude=False):
    # ONNX's reference, one axis: the n nearest neighbours in the input
    # padded by its edges, weighted by the mode's coefficients
    n_in = len(v)
    res = []
    for o in range(out):
        ow = scale * n_in
        if coord == 'align_corners':
            x = 0 if ow == 1 else o * (n_in - 1) / (ow - 1)
        elif coord == 'asymmetric':
            x = o / scale
        elif coord == 'pytorch_half_pixel':
            x = (o + 0.5) / scale - 0.5 if ow != 1 else -0.5
        else:
            x = (o + 0.5) / scale - 0.5
        xi = np.floor(x)
        t = 1.0 if float(x).is_integer() else x - xi
        if mode == 'nearest':
            up = {'round_prefer_floor': t > 0.5, 'round_prefer_ceil': t >= 0.5,
                  'floor': False, 'ceil': True}[nearest]
            c = [0, 1] if t == 1 else [1 - up, up]
        elif mode == 'linear':
            c = [1 - t, t]
        else:
            s_ = 1 - t
            c = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                 ((a + 2) * t - (a + 3)) * t * t + 1,
                 ((a + 2) * s_ - (a + 3)) * s_ * s_ + 1,
                 ((a * (s_ + 1) - 5 * a) * (s_ + 1) + 8 * a) * (s_ + 1) - 4 * a]
        c = np.array(c, dtype=np.float64)
        pw = int(np.ceil(len(c) / 2))
        padded = np.pad(v, pw, mode='edge')
        idx = sorted(sorted(range(len(padded)), key=lambda i: (abs(x + pw - i), i))[:len(c)])
        idx = np.array(idx)
        if exclude:
            c = np.where((idx - pw < 0) | (idx - pw >= n_in), 0, c)
            c = c / c.sum()
        res.append(np.dot(c, padded[idx]))
    return np.array(res)


def resize_ref(x, outs, scales, **kw):
    y = x.astype(np.float64)
    for ax, (o, s) in enumerate(zip(outs, scales)):
        if o != y.shape[ax] or s != 1:
            y = np.apply_along_axis(resize_1d_ref, ax, y, o, s, **kw)
    return y


@case(opset=13)
def resize_modes():
    # Resize: nearest (two roundings), linear (align_corners, downsampling),
    # cubic (exclude_outside, A -0.5), by scales and by sizes; Upsample
    x = f32(rng(38).standard_normal((1, 2, 4, 5)))
    sc = f32([1, 1, 1.5, 0.8])
    kinds = [('nearest', 'half_pixel', {}, {}), ('nearest', 'asymmetric', {'nearest_mode': 'ceil'},
                                                 {'nearest': 'ceil'}),
             ('linear', 'align_corners', {}, {}), ('linear', 'pytorch_half_pixel', {}, {}),
             ('cubic', 'half_pixel', {'exclude_outside': 1, 'cubic_coeff_a': -0.5},
              {'exclude': True, 'a': -0.5})]
    nodes, outs, wants = [], [], []
    o_sc = [1, 2, 6, 4]
    for i, (m, c, a, kw) in enumerate(kinds):
        nodes.append(h.make_node('Resize', ['x', '', 'sc'], ['s%d' % i], mode=m,
                                 coordinate_transformation_mode=c, **a))
        outs.append(vi('s%d' % i, o_sc))
        wants.append(resize_ref(x, o_sc, sc.astype(np.float64), mode=m, coord=c, **kw))
    sz = np.array([1, 2, 3, 7], dtype=np.int64)
    nodes.append(h.make_node('Resize', ['x', '', '', 'sz'], ['z'], mode='linear'))
    outs.append(vi('z', [1, 2, 3, 7]))
    wants.append(resize_ref(x, sz, sz / np.array(x.shape), mode='linear', coord='half_pixel'))
    return (nodes, [vi('x', [1, 2, 4, 5])], outs, [init('sc', sc), init('sz', sz)], {'x': x},
            wants)


@case(opset=9)
def upsample_nearest():
    x = f32(rng(39).standard_normal((1, 1, 2, 3)))
    return ([h.make_node('Upsample', ['x', 'sc'], ['y'], mode='nearest')], [vi('x', [1, 1, 2, 3])],
            [vi('y', [1, 1, 4, 9])], [init('sc', f32([1, 1, 2, 3]))], {'x': x},
            [x.repeat(2, axis=2).repeat(3, axis=3)])


@case(opset=13)
def instnorm_mvn_lrn():
    # InstanceNormalization, MeanVarianceNormalization (default axes), LRN
    r = rng(40)
    x = f32(r.standard_normal((2, 5, 3, 4)))
    sc, b = f32(r.standard_normal(5)), f32(r.standard_normal(5))
    x64 = x.astype(np.float64)
    m = x64.mean(axis=(2, 3), keepdims=True)
    v = ((x64 - m) ** 2).mean(axis=(2, 3), keepdims=True)
    inorm = (x64 - m) / np.sqrt(v + 1e-3) * sc[:, None, None] + b[:, None, None]
    mm = x64.mean(axis=(0, 2, 3), keepdims=True)
    sd = np.sqrt((x64 ** 2).mean(axis=(0, 2, 3), keepdims=True) - mm ** 2)
    mvn = (x64 - mm) / (sd + 1e-9)
    sq = np.pad(x64 ** 2, ((0, 0), (1, 2), (0, 0), (0, 0)))
    ssum = sum(sq[:, k:k + 5] for k in range(4))
    lrn = x64 / (2 + 0.5 / 4 * ssum) ** 0.6
    nodes = [h.make_node('InstanceNormalization', ['x', 'sc', 'b'], ['i'], epsilon=1e-3),
             h.make_node('MeanVarianceNormalization', ['x'], ['m']),
             h.make_node('LRN', ['x'], ['l'], size=4, alpha=0.5, beta=0.6, bias=2.0)]
    return (nodes, [vi('x', [2, 5, 3, 4])], [vi(k, [2, 5, 3, 4]) for k in 'iml'],
            [init('sc', sc), init('b', b)], {'x': x}, [inorm, mvn, lrn])


@case(opset=6)
def max_sum_opset6():
    # opset 6's Max, Min and Sum: operands of one shape
    r = rng(41)
    a, b, c = (f32(r.standard_normal((2, 3))) for _ in range(3))
    nodes = [h.make_node('Max', ['a', 'b', 'c'], ['x']), h.make_node('Min', ['a', 'b'], ['n']),
             h.make_node('Sum', ['a', 'b', 'c'], ['s'])]
    return (nodes, [vi(k, [2, 3]) for k in 'abc'], [vi(k, [2, 3]) for k in 'xns'], [],
            {'a': a, 'b': b, 'c': c}, [np.maximum(np.maximum(a, b), c), np.minimum(a, b), a + b + c])


def convtranspose_ref(x, w, b, s, d, pads, op, g):
    # the definition: each input element scatters its weights, 2-D
    n, c, hh, ww = x.shape
    m = w.shape[1] * g
    kh, kw = w.shape[2:]
    fh = s[0] * (hh - 1) + op[0] + (kh - 1) * d[0] + 1
    fw = s[1] * (ww - 1) + op[1] + (kw - 1) * d[1] + 1
    full = np.zeros((n, m, fh, fw))
    cg, mg = c // g, m // g
    for gi in range(g):
        for ci in range(gi * cg, (gi + 1) * cg):
            for i in range(hh):
                for j in range(ww):
                    for a in range(kh):
                        for e in range(kw):
                            full[:, gi * mg:(gi + 1) * mg, i * s[0] + a * d[0], j * s[1] + e * d[1]] += \
                                x[:, ci, i, j, None] * w[ci, :, a, e]
    y = full[:, :, pads[0]:fh - pads[2], pads[1]:fw - pads[3]]
    return y + (0 if b is None else b[None, :, None, None])


@case(opset=13)
def convtranspose_forms():
    # ConvTranspose: groups, strides, dilations, pads, output_padding, a
    # bias; output_shape; a 1-D one
    r = rng(42)
    x = f32(r.standard_normal((2, 4, 3, 4)))
    w = f32(r.standard_normal((4, 3, 3, 2)))
    b = f32(r.standard_normal(6))
    x1 = f32(r.standard_normal((1, 2, 5)))
    w1 = f32(r.standard_normal((2, 3, 3)))
    nodes = [h.make_node('ConvTranspose', ['x', 'w', 'b'], ['y0'], group=2, strides=[2, 3],
                         dilations=[2, 1], pads=[1, 0, 2, 1], output_padding=[1, 2]),
             h.make_node('ConvTranspose', ['x', 'w'], ['y1'], group=2, strides=[2, 2],
                         output_shape=[8, 10]),
             h.make_node('ConvTranspose', ['x1', 'w1'], ['y2'], strides=[2], pads=[1, 0]),
             # pads beyond the kernel's span crop the input; SAME_LOWER
             h.make_node('ConvTranspose', ['x', 'w3'], ['y3'], group=2, pads=[2, 1, 1, 2]),
             h.make_node('ConvTranspose', ['x', 'w'], ['y4'], group=2, strides=[2, 2],
                         auto_pad='SAME_LOWER')]
    y0 = convtranspose_ref(x, w, b, (2, 3), (2, 1), (1, 0, 2, 1), (1, 2), 2)
    # output_shape [8, 10] of a full 7 x 8: pads -1 (0 before, -1 after) and -2 (-1, -1)
    full = convtranspose_ref(x, w, None, (2, 2), (1, 1), (0, 0, 0, 0), (0, 0), 2)
    y1 = np.pad(full, ((0, 0), (0, 0), (0, 1), (1, 1)))
    y2 = convtranspose_ref(x1[:, :, None, :], w1[:, :, None, :], None, (1, 2), (1, 1),
                           (0, 1, 0, 0), (0, 0), 1)[:, :, 0, :]
    w3 = f32(r.standard_normal((4, 3, 2, 2)))
    y3 = convtranspose_ref(x, w3, None, (1, 1), (1, 1), (2, 1, 1, 2), (0, 0), 2)
    # SAME_LOWER: output = input x stride (6 x 8 of a full 7 x 8), the odd
    # pad at the beginning
    y4 = convtranspose_ref(x, w, None, (2, 2), (1, 1), (1, 0, 0, 0), (0, 0), 2)
    return (nodes, [vi('x', [2, 4, 3, 4]), vi('w', [4, 3, 3, 2]), vi('x1', [1, 2, 5]),
                    vi('w1', [2, 3, 3]), vi('w3', [4, 3, 2, 2])],
            [vi('y0', list(y0.shape)), vi('y1', list(y1.shape)), vi('y2', list(y2.shape)),
             vi('y3', list(y3.shape)), vi('y4', list(y4.shape))],
            [init('b', b)], {'x': x, 'w': w, 'x1': x1, 'w1': w1, 'w3': w3}, [y0, y1, y2, y3, y4])


@case(opset=13)
def pools_1d():
    # 1-D MaxPool and AveragePool (strides, pads) as 2-D ones of height 1
    x = f32(rng(43).standard_normal((2, 3, 9)))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)), constant_values=-np.inf)
    mx = np.stack([xp[:, :, i:i + 3].max(axis=2) for i in range(0, 9, 2)], axis=2)
    av = np.stack([x[:, :, i:i + 4].mean(axis=2) for i in range(0, 6, 3)], axis=2)
    nodes = [h.make_node('MaxPool', ['x'], ['m'], kernel_shape=[3], strides=[2], pads=[1, 1]),
             h.make_node('AveragePool', ['x'], ['a'], kernel_shape=[4], strides=[3])]
    return (nodes, [vi('x', [2, 3, 9])], [vi('m', [2, 3, 5]), vi('a', [2, 3, 2])], [], {'x': x},
            [mx, av])


@case(opset=9)
def sin_cos_tan():
    # Sin, Cos, Asin, Acos, Atan: the IR's operators; Tan: sin / cos;
    # Asinh, Acosh, Atanh: logs of their closed forms
    x = f32(rng(44).uniform(-4, 4, (3, 5)))
    x64 = x.astype(np.float64)
    y = f32(rng(45).uniform(-0.95, 0.95, (3, 5)))
    y64 = y.astype(np.float64)
    nodes = [h.make_node('Sin', ['x'], ['s']), h.make_node('Cos', ['x'], ['c']),
             h.make_node('Tan', ['x'], ['t']), h.make_node('Asinh', ['x'], ['as']),
             h.make_node('Acosh', ['ax'], ['ac']), h.make_node('Atanh', ['y'], ['at']),
             h.make_node('Asin', ['y'], ['ai']), h.make_node('Acos', ['y'], ['ao']),
             h.make_node('Atan', ['x'], ['aa'])]
    return (nodes, [vi('x', [3, 5]), vi('ax', [3, 5]), vi('y', [3, 5])],
            [vi(k, [3, 5]) for k in ('s', 'c', 't', 'as', 'ac', 'at', 'ai', 'ao', 'aa')], [],
            {'x': x, 'ax': np.abs(x) + 1, 'y': y},
            [np.sin(x64), np.cos(x64), np.tan(x64), np.arcsinh(x64),
             np.arccosh(np.abs(x64) + 1), np.arctanh(y64), np.arcsin(y64), np.arccos(y64),
             np.arctan(x64)])


# --- models for the error cases: no expected outputs ----------------------------

@case()
def unsupported_op():
    nodes = [h.make_node('Relu', ['x'], ['r']),
             h.make_node('Det', ['r'], ['e'], name='mix'),
             h.make_node('Relu', ['e'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [init('W', f32(np.ones((40,))))],
            {}, None)


@case()
def dynamic_input():
    x = f32(rng(10).standard_normal((2, 3)))
    nodes = [h.make_node('Relu', ['input.1'], ['y'])]
    return (nodes, [vi('input.1', ['N', 3])], [vi('y', ['N', 3])], [], {'input_1': x},
            [np.maximum(x, 0)])


@case(opset=18)
def new_opset():
    nodes = [h.make_node('Relu', ['x'], ['y'])]
    return (nodes, [vi('x', [2])], [vi('y', [2])], [], {}, None)


@case(opset=5)
def old_opset():
    # Relu's opset 1 form (consumed_inputs) is not read
    nodes = [h.make_node('Relu', ['x'], ['y'])]
    return (nodes, [vi('x', [2])], [vi('y', [2])], [], {}, None)


@case()
def deep_nesting():
    # a graph in an If's branch in a graph ...: 3 messages a level
    g = h.make_graph([h.make_node('Identity', ['x'], ['y'])], 'inner', [], [vi('y', [1])])
    leaf = g
    for i in range(30):
        n = h.make_node('If', ['c'], ['y'], then_branch=g, else_branch=leaf)
        g = h.make_graph([n], 'g%d' % i, [], [vi('y', [1])])
    return (list(g.node), [vi('c', [], T.BOOL)], [vi('y', [1])], [], {}, None)



@case()
def bad_raw_data():
    t = init('W', f32(np.ones((2, 3))))
    t.raw_data = t.raw_data[:-4]
    nodes = [h.make_node('Add', ['x', 'W'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [t], {}, None)


@case()
def external_data():
    t = init('W', f32(np.ones((2, 3))))
    t.data_location = T.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = 'location', 'w.bin'
    nodes = [h.make_node('Add', ['x', 'W'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [t], {}, None)


def external(name, key, value):
    """A 2x3 initializer W whose data_location is EXTERNAL, its
    external_data naming w.bin (which no case writes) and KEY = VALUE."""
    t = init('W', f32(np.ones((2, 3))))
    t.ClearField('raw_data')
    t.data_location = T.EXTERNAL
    e = t.external_data.add()
    e.key, e.value = 'location', name
    if key:
        e = t.external_data.add()
        e.key, e.value = key, value
    nodes = [h.make_node('Add', ['x', 'W'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [t], {}, None)


@case()
def external_outside():
    return external('../w.bin', None, None)


@case()
def external_length():
    return external('w.bin', 'length', '7')


@case()
def external_offset():
    return external('w.bin', 'offset', '-1')


@case()
def external_weights():
    """conv_relu_add_gemm with its weights in weights.bin beside the model
    (ONNX's external data, as torch.onnx writes models past protobuf's
    2 GB; see make)."""
    return conv_relu_add_gemm()


@case()
def reshape_computed_shape():
    nodes = [h.make_node('Reshape', ['x', 's'], ['y'], name='r')]
    return (nodes, [vi('x', [2, 3]), vi('s', [2], T.INT64)], [vi('y', [3, 2])], [], {}, None)


@case()
def conv3d():
    nodes = [h.make_node('Conv', ['x', 'W'], ['y'])]
    return (nodes, [vi('x', [1, 1, 3, 3, 3])], [vi('y', [1, 1, 1, 1, 1])],
            [init('W', f32(np.ones((1, 1, 3, 3, 3))))], {}, None)


@case()
def undefined_input():
    nodes = [h.make_node('Relu', ['q'], ['y'])]
    return (nodes, [vi('x', [2])], [vi('y', [2])], [], {}, None)


@case()
def string_input():
    nodes = [h.make_node('Identity', ['x'], ['y'])]
    return (nodes, [vi('x', [2], T.STRING)], [vi('y', [2], T.STRING)], [], {}, None)


@case()
def other_domain():
    nodes = [h.make_node('Relu', ['x'], ['r']),
             h.make_node('FusedGemm', ['r', 'r'], ['y'], domain='com.microsoft')]
    return (nodes, [vi('x', [2, 2])], [vi('y', [2, 2])], [], {}, None)


@case()
def huge_constant_of_shape():
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('ConstantOfShape', ['s'], ['z']),
             h.make_node('Add', ['x', 'z'], ['y'])]
    return (nodes, [vi('x', [1])], [vi('y', [1 << 20, 1 << 20])],
            [init('s', i64([1 << 20, 1 << 20]))], {}, None)


@case()
def huge_initializer_dims():
    t = init('W', f32([1.0]))
    del t.dims[:]
    t.dims.extend([1 << 40, 1 << 40])
    nodes = [h.make_node('Add', ['x', 'W'], ['y'])]
    return (nodes, [vi('x', [1])], [vi('y', [1])], [t], {}, None)


@case(opset=13)
def slice_huge_steps():
    x = f32(rng(33).standard_normal((5, 4)))
    big = np.iinfo(np.int64).max
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Slice', ['x', 'st', 'en', 'ax', 'sp'], ['y'])]
    return (nodes, [vi('x', [5, 4])], [vi('y', [1, 1])],
            [init('st', i64([1, -1])), init('en', i64([big, -big])), init('ax', i64([0, 1])),
             init('sp', i64([big, -big]))], {'x': x}, [x[1::big, -1::-big]])


# --- Pad without mode, and what the import refuses to fold (issue 24) ------------

@case(opset=13)
def pad_default_mode():
    # no mode attribute: ONNX's default, constant
    x = f32(rng(34).standard_normal((2, 3)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Pad', ['x', 'p'], ['y'])]
    return (nodes, [vi('x', [2, 3])], [vi('y', [3, 5])], [init('p', i64([1, 0, 0, 2]))],
            {'x': x}, [np.pad(x, ((1, 0), (0, 2)))])


@case(opset=11)
def pad_default_mode_value():
    x = f32(rng(35).standard_normal((2, 2)))
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Pad', ['x', 'p', 'v'], ['y'])]
    return (nodes, [vi('x', [2, 2])], [vi('y', [2, 4])],
            [init('p', i64([0, 1, 0, 1])), init('v', f32(2.5))],
            {'x': x}, [np.pad(x, ((0, 0), (1, 1)), constant_values=2.5)])


@case()
def pad_huge():
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Pad', ['x', 'p'], ['y'], name='pd')]
    return (nodes, [vi('x', [2, 3])], [vi('y', [2, 3])], [init('p', i64([1 << 52, 0, 0, 0]))],
            {}, None)


@case()
def pad_result_too_large():
    # each pad fits, the padded size does not
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Pad', ['x', 'p'], ['y'], name='pd')]
    return (nodes, [vi('x', [1 << 40])], [vi('y', [1 << 41])], [init('p', i64([1 << 40, 0]))],
            {}, None)


@case()
def div_by_zero():
    i64 = lambda v: np.array(v, dtype=np.int64)
    nodes = [h.make_node('Div', ['a', 'b'], ['q'], name='dv'),
             h.make_node('Add', ['x', 'q'], ['y'])]
    return (nodes, [vi('x', [2], T.INT64)], [vi('y', [2], T.INT64)],
            [init('a', i64([4, 5])), init('b', i64([1, 0]))], {}, None)


@case()
def mod_by_zero():
    i32 = lambda v: np.array(v, dtype=np.int32)
    nodes = [h.make_node('Mod', ['a', 'b'], ['q'], name='md'),
             h.make_node('Add', ['x', 'q'], ['y'])]
    return (nodes, [vi('x', [2], T.INT32)], [vi('y', [2], T.INT32)],
            [init('a', i32([4, 5])), init('b', i32(0))], {}, None)

# --- driver -----------------------------------------------------------------------

def build(name):
    fn, opset = CASES[name]
    nodes, ins, outs, inits, feeds, wants = fn()
    g = h.make_graph(nodes, name, ins, outs, initializer=inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid('', opset)])
    if name not in ('deep_nesting', 'bad_raw_data', 'external_data', 'external_outside',
                    'external_length', 'external_offset', 'undefined_input',
                    'other_domain', 'huge_initializer_dims', 'maxpool_bool',
                    'global_avgpool_bool', 'clip_bool', 'layernorm_bad_eps'):
        onnx.checker.check_model(m)
    return m, feeds, wants


def make(name, d):
    m, feeds, wants = build(name)
    os.makedirs(d, exist_ok=True)
    if name == 'external_weights':
        # every initializer in one file, each at its offset
        onnx.save_model(m, os.path.join(d, 'model.onnx'), save_as_external_data=True,
                        all_tensors_to_one_file=True, location='weights.bin',
                        size_threshold=0)
    else:
        with open(os.path.join(d, 'model.onnx'), 'wb') as f:
            f.write(m.SerializeToString())
    for k, v in feeds.items():
        np.save(os.path.join(d, k + '.npy'), v)
    return m, feeds, wants


def tools(*cmds, out=None):
    """The commands (argument lists), each fed the output of the one before
    (a pipeline, as bash -o pipefail runs it, but with no bash started: two
    or three a run), the last one's output to the file out; exits with the
    command that failed and what it printed."""
    data = None
    for cmd in cmds:
        p = subprocess.run(cmd, input=data, capture_output=True)
        if p.returncode != 0:
            sys.exit('%s: exit %d\n%s%s' % (' '.join(cmd), p.returncode,
                                            p.stdout.decode(errors='replace'),
                                            p.stderr.decode(errors='replace')))
        data = p.stdout
    if out is not None:
        with open(out, 'wb') as f:
            f.write(data)


def run(name, d, b, lower):
    m, feeds, wants = make(name, d)
    tools([b + '/ir-import-onnx', '-o', d + '/m.ir', d + '/model.onnx'])
    src = '%s/m.ir' % d
    if lower:
        tools([b + '/ir-plan-devices', src], [b + '/ir-lower'], [b + '/ir-plan-devices'],
              out=d + '/l.ir')
        src = '%s/l.ir' % d
    ins = ['--input=%s=%s/%s.npy' % (k, d, k) for k in feeds]
    tools([b + '/ir-run', '--interp', '--data-dir=' + d] + ins + ['-o', d + '/out', src])
    if len(wants) == 1:
        gots = [np.load('%s/out' % d)]
    else:
        gots = [np.load('%s/out/%d.npy' % (d, i)) for i in range(len(wants))]
    bad = False
    for i, (got, want) in enumerate(zip(gots, wants)):
        want = np.asarray(want)
        if got.shape != want.shape:
            print('%s: output %d has shape %s, numpy %s' % (name, i, got.shape, want.shape))
            bad = True
        elif not np.allclose(got, want, rtol=1e-4, atol=1e-5):
            k = np.argmax(np.abs(got - want))
            print('%s: output %d differs: at %d got %r, numpy %r'
                  % (name, i, k, got.flat[k], want.flat[k]))
            bad = True
    return 1 if bad else 0


def main(usage):
    """cases.py's command line; usage: its docstring."""
    a = sys.argv[1:]
    if a[:1] == ['list']:
        print('\n'.join(sorted(CASES)))
    elif a[:1] == ['make'] and len(a) == 3:
        make(a[1], a[2])
    elif a[:1] == ['run'] and len(a) in (4, 5):
        sys.exit(run(a[1], a[2], a[3], a[4:] == ['--lower']))
    else:
        sys.exit(usage)


if __name__ == '__main__':
    main("usage: cases.py make|run|list ...: see tests/onnx/cases.py")
