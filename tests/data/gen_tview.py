#!/usr/bin/python3
"""Golden data for tests/elements/tensorview.c and tests/pipelines/test_media.c.

tview_in.npy is a float32 <2, 3, 4> tensor of distinct values; for every
case below, tview_<name>.npy is what NumPy's own view operations give for
the tensorview ops string next to it (the C test holds the same table).
tview_hwc.npy is a uint8 <5, 7, 3> "image" and tview_hwc_chw.npy its
permute:2:0:1.  tview_energy_sq.npy is a squared audio window and tview_energy.npy
its energy (mean); tview_reduce.npy a sum over a permuted view.  Deterministic: run with /usr/bin/python3.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, a):
    np.save(os.path.join(HERE, name), np.ascontiguousarray(a))


def reshape_view(a, *dims):
    return a.reshape(dims)


rng = np.random.default_rng(6)
x = (rng.permutation(24).astype(np.float32) * 0.5 - 3.0).reshape(2, 3, 4)
save("tview_in.npy", x)

# (name, ops, numpy)
CASES = [
    ("permute", "permute:2:0:1", lambda a: a.transpose(2, 0, 1)),
    ("permute_neg", "permute:-1:0:-2", lambda a: a.transpose(2, 0, 1)),
    ("transpose", "transpose", lambda a: a.swapaxes(-1, -2)),
    ("slice0", "slice:0:1:2", lambda a: a[1:2]),
    ("slice1_step", "slice:1:0:3:2", lambda a: a[:, 0:3:2]),
    ("slice_neg", "slice:-1:-3:-1", lambda a: a[..., -3:-1]),
    ("slice_clamp", "slice:2:-100:100:3", lambda a: a[:, :, -100:100:3]),
    ("slice_empty", "slice:1:2:1", lambda a: a[:, 2:1]),
    ("select", "select:1:-1", lambda a: a[:, -1]),
    ("select0", "select:0:1", lambda a: a[1]),
    ("reshape", "reshape:4:-1", lambda a: a.reshape(4, -1)),
    ("expand", "expand:0", lambda a: a[None]),
    ("expand_end", "expand:-1", lambda a: a[..., None]),
    ("squeeze", "expand:1,squeeze:1", lambda a: a),
    ("broadcast", "broadcast:2:2:3:4", lambda a: np.broadcast_to(a, (2, 2, 3, 4))),
    ("broadcast1", "slice:1:1:2,broadcast:2:5:4",
     lambda a: np.broadcast_to(a[:, 1:2], (2, 5, 4))),
    # chains
    ("chain_hwc", "permute:2:0:1,slice:1:0:2,select:0:3",
     lambda a: a.transpose(2, 0, 1)[:, 0:2][3]),
    ("chain_reshape_strided", "transpose,reshape:24",
     lambda a: a.swapaxes(-1, -2).reshape(24)),
    ("chain_reshape_dense", "slice:0:1:2,reshape:3:4,transpose",
     lambda a: a[1:2].reshape(3, 4).T),
    ("chain_long", "expand:0,permute:3:1:2:0,squeeze:-1,slice:0:1:4:2,transpose",
     lambda a: a[None].transpose(3, 1, 2, 0)[..., 0][1:4:2].swapaxes(-1, -2)),
]

for name, ops, f in CASES:
    save("tview_%s.npy" % name, f(x))

img = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
save("tview_hwc.npy", img)
save("tview_hwc_chw.npy", img.transpose(2, 0, 1))

# Audio pipeline: audiotestsrc wave=square volume=0.5, F32LE mono, windows
# of 1024 frames squared by tensorop pow:2.  Every sample is +0.5 or -0.5
# wherever the edges fall, so every squared sample is 0.25 and so is each
# window's energy (its mean, which tensordebug prints).
win = np.where((np.arange(1024) % 64) < 32, 0.5, -0.5).astype(np.float32)
save("tview_energy_sq.npy", (win * win).reshape(1024, 1))
save("tview_energy.npy", (win * win).reshape(1024, 1).mean(axis=0))

# tensorreduce reads the strided view permute:2:0:1 of tview_in.
save("tview_reduce.npy", x.transpose(2, 0, 1).sum(axis=-1))
