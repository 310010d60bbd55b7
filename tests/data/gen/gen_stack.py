#!/usr/bin/python3
"""Golden data for tests/elements/tensorstack.c and tensorconcat.c.

Inputs: in_<dtype>_<k>.npy, pad k's <2, 3, 4> tensor (k = 0..4), distinct
values per pad.  For tensorconcat, cin_<dtype>_a<axis>_<k>.npy is pad k's
tensor with extent k + 1 on axis (the others 2, 3, 4 as before).
Outputs: stack_<dtype>_n<pads>_a<axis>.npy = np.stack(inputs[:pads],
axis) and concat_<dtype>_n<pads>_a<axis>.npy = np.concatenate(...), for
every axis NumPy accepts (negative ones included) and 2, 3 and 5 pads.
uint8 has every case, float32 the 3-pad ones.  Deterministic: run with
/usr/bin/python3.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "elements", "stack")
SHAPE = (2, 3, 4)
PADS = (2, 3, 5)


def save(name, a):
    np.save(os.path.join(OUT, name), np.ascontiguousarray(a))


def pad_tensor(dtype, k, shape):
    n = int(np.prod(shape))
    # distinct per pad and per item; fits uint8 (at most 5 * 60 + ... < 256)
    v = (np.arange(n) * 3 + 50 * k + 1) % 251
    return v.astype(dtype).reshape(shape)


for dtype, pads in ((np.uint8, PADS), (np.float32, (3,))):
    name = np.dtype(dtype).name
    ins = [pad_tensor(dtype, k, SHAPE) for k in range(max(PADS))]
    for k, a in enumerate(ins):
        save("in_%s_%d.npy" % (name, k), a)
    for n in pads:
        for axis in range(-len(SHAPE) - 1, len(SHAPE) + 1):
            save("stack_%s_n%d_a%d.npy" % (name, n, axis),
                 np.stack(ins[:n], axis=axis))
    for axis in range(-len(SHAPE), len(SHAPE)):
        cins = []
        for k in range(max(PADS)):
            shape = list(SHAPE)
            shape[axis] = k + 1
            cins.append(pad_tensor(dtype, k, tuple(shape)))
            if axis >= 0:
                save("cin_%s_a%d_%d.npy" % (name, axis, k), cins[-1])
        for n in pads:
            save("concat_%s_n%d_a%d.npy" % (name, n, axis),
                 np.concatenate(cins[:n], axis=axis))
