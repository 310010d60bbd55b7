#!/usr/bin/python3
"""Golden data for tests/elements/tensorview.c and tests/pipelines/test_media.c.

tview_in.npy is a float32 <2, 3, 4> tensor of distinct values; for every
case below, tview_<name>.npy is what NumPy's own view operations give for
the tensorview ops string next to it (the C test holds the same table).
tview_hwc.npy is a uint8 <5, 7, 3> "image" and tview_hwc_chw.npy its
permute:2:0:1.  tview_energy_sq.npy is a squared audio window and tview_energy.npy
its energy (mean); tview_reduce.npy a sum over a permuted view;
tview_hwc_{bgr,mirror,updown,bgr_chw}.npy flips of the image;
tview_slices.txt Python's slice semantics over a grid of bounds.
Deterministic: run with /usr/bin/python3.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/elements/tview, whatever the cwd.
OUT = os.path.join(HERE, "..", "elements", "tview")


def save(name, a):
    np.save(os.path.join(OUT, name), np.ascontiguousarray(a))


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
    # Python's omitted bounds
    ("slice_no_start", "slice:1::2", lambda a: a[:, :2]),
    ("slice_no_stop", "slice:2:1:", lambda a: a[:, :, 1:]),
    ("slice_only_step", "slice:2:::2", lambda a: a[:, :, ::2]),
    ("slice_all_but_last", "slice:0::-1", lambda a: a[:-1]),
    ("slice_neg_start_step", "slice:2:-3::2", lambda a: a[:, :, -3::2]),
    ("slice_out_of_range", "slice:1:-99:99:", lambda a: a[:, -99:99]),
    # flips: one copy, the steps around them folded into it
    ("flip0", "flip:0", lambda a: np.flip(a, 0)),
    ("flip_mid", "flip:1", lambda a: np.flip(a, 1)),
    ("flip_last", "flip:-1", lambda a: np.flip(a, -1)),
    ("flip_all", "flip:0,flip:1,flip:2", lambda a: a[::-1, ::-1, ::-1]),
    ("flip_twice", "flip:1,flip:-2", lambda a: a),
    ("flip_slice", "flip:2,slice:2:1::2", lambda a: a[:, :, ::-1][:, :, 1::2]),
    ("flip_slice_neg", "flip:1,slice:1:-2:", lambda a: a[:, ::-1][:, -2:]),
    ("flip_select", "flip:1,select:1:0", lambda a: a[:, ::-1][:, 0]),
    ("flip_permute", "flip:-1,permute:2:0:1",
     lambda a: a[..., ::-1].transpose(2, 0, 1)),
    ("permute_flip", "permute:2:0:1,flip:0",
     lambda a: a.transpose(2, 0, 1)[::-1]),
    ("flip_transpose", "flip:2,transpose", lambda a: a[..., ::-1].swapaxes(-1, -2)),
    ("flip_expand_squeeze", "flip:0,expand:1,squeeze:1,flip:2",
     lambda a: a[::-1, :, ::-1]),
    ("flip_reshape", "flip:2,reshape:6:4,flip:0",
     lambda a: a[..., ::-1].reshape(6, 4)[::-1]),
    ("flip_broadcast", "slice:1:1:2,flip:2,broadcast:2:5:4",
     lambda a: np.broadcast_to(a[:, 1:2, ::-1], (2, 5, 4))),
]

for name, ops, f in CASES:
    save("tview_%s.npy" % name, f(x))

img = rng.integers(0, 256, size=(5, 7, 3), dtype=np.uint8)
save("tview_hwc.npy", img)
save("tview_hwc_chw.npy", img.transpose(2, 0, 1))
# BGR, mirrored, upside down, and the BGR planes of a network's input
save("tview_hwc_bgr.npy", img[..., ::-1])
save("tview_hwc_mirror.npy", img[:, ::-1])
save("tview_hwc_updown.npy", img[::-1])
save("tview_hwc_bgr_chw.npy", img[..., ::-1].transpose(2, 0, 1))

# Audio pipeline: audiotestsrc wave=square volume=0.5, F32LE mono, windows
# of 1024 frames squared by tensorop pow:2.  Every sample is +0.5 or -0.5
# wherever the edges fall, so every squared sample is 0.25 and so is each
# window's energy (its mean, which tensordebug prints).
win = np.where((np.arange(1024) % 64) < 32, 0.5, -0.5).astype(np.float32)
save("tview_energy_sq.npy", (win * win).reshape(1024, 1))
save("tview_energy.npy", (win * win).reshape(1024, 1).mean(axis=0))

# tensorreduce reads the strided view permute:2:0:1 of tview_in.
save("tview_reduce.npy", x.transpose(2, 0, 1).sum(axis=-1))

# Python's slice semantics over a grid of bounds, in range and not, for
# tests/core/test_view.c: each line is "N START STOP STEP | kept | kept
# when reversed first", "_" for an omitted bound, the indices those of
# np.arange(N)[START:STOP:STEP] and np.arange(N)[::-1][START:STOP:STEP].
BOUNDS = [None, -9, -6, -1, 0, 1, 4, 6, 9]
with open(os.path.join(OUT, "tview_slices.txt"), "w") as f:
    f.write("# written by gen_tview.py: N START STOP STEP | a[START:STOP:STEP]"
            " | a[::-1][START:STOP:STEP] for a = arange(N)\n")
    for n in (0, 1, 5, 7):
        a = np.arange(n)
        for start in BOUNDS:
            for stop in BOUNDS:
                for step in (None, 1, 2, 3, 7):
                    sl = slice(start, stop, step)
                    txt = " ".join("_" if b is None else str(b)
                                   for b in (start, stop, step))
                    f.write("%d %s | %s | %s\n" % (
                        n, txt, " ".join(map(str, a[sl])),
                        " ".join(map(str, a[::-1][sl]))))
