#!/usr/bin/python3
"""Golden data for tests/elements/tensorwindow.c.

For every case below, <name>_in.npy is the joined stream (for a stack
case, the frames one after the other along a new first axis) and
<name>_out.npy every window NumPy cuts from it, stacked along a new first
axis: the stream (np.stack(frames, axis) for a stack case) cut along
`axis` into windows of `size` items every `hop` items; a window past the
end is dropped, or with pad zero-padded (every window that starts before
the end, as tf.signal.frame(pad_end=True)); squeeze drops the window
axis.  The C test holds the same table and cuts <name>_in.npy into input
buffers of the chunk sizes listed.  Deterministic: run with
/usr/bin/python3.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Written into tests/data/elements/window, whatever the cwd.
OUT = os.path.join(HERE, "..", "elements", "window")

# (name, dtype, item dims (the stream without the axis), axis, stack,
#  size, hop, chunks (items per input buffer), pad, squeeze)
CASES = [
    ("overlap0", np.float32, (3,), 0, False, 7, 3, [5, 1, 7, 12, 5], False, False),
    ("gap0", np.float32, (3,), 0, False, 4, 6, [5, 1, 7, 12, 5], False, False),
    ("exact0", np.float32, (3,), 0, False, 5, 5, [10, 10, 10], False, False),
    ("mixed0", np.float32, (2,), 0, False, 4, 2, [8, 3, 9, 1, 1, 10], False, False),
    ("overlap1", np.int16, (2, 3), 1, False, 7, 3, [5, 1, 7, 12, 5], False, False),
    ("overlap2", np.float32, (2, 3), 2, False, 4, 2, [3, 1, 6, 2, 8], False, False),
    ("exact1", np.float32, (2, 3), 1, False, 4, 4, [8, 8], False, False),
    ("pad0", np.float32, (3,), 0, False, 7, 3, [5, 1, 7, 12, 5], True, False),
    ("pad1", np.uint8, (4, 2), 1, False, 5, 2, [3, 4, 4], True, False),
    ("stack0", np.float32, (2, 3), 0, True, 4, 3, [1] * 10, False, False),
    ("stack1", np.int32, (2, 3), 1, True, 4, 2, [1] * 9, False, False),
    ("stack2", np.float32, (2, 3), 2, True, 3, 3, [1] * 7, True, False),
    ("unbatch", np.float32, (2, 3), 0, False, 1, 1, [4, 4], False, True),
    ("unstack", np.float32, (2, 3), 1, True, 1, 1, [1] * 3, False, True),
]


def save(name, a):
    np.save(os.path.join(OUT, name), np.ascontiguousarray(a))


def windows(stream, axis, size, hop, pad):
    n = stream.shape[axis]
    starts = range(0, n, hop) if pad else range(0, n - size + 1, hop)
    out = []
    for s in starts:
        w = np.take(stream, range(s, min(s + size, n)), axis=axis)
        if w.shape[axis] < size:
            widths = [(0, 0)] * stream.ndim
            widths[axis] = (0, size - w.shape[axis])
            w = np.pad(w, widths)
        out.append(w)
    return np.stack(out)


def main():
    rng = np.random.default_rng(15)
    for name, dt, item, axis, stack, size, hop, chunks, pad, squeeze in CASES:
        total = sum(chunks)
        count = total * int(np.prod(item))
        # distinct small integers, exact in every dtype used
        vals = (rng.permutation(count) % 251 + 1).astype(dt)
        if stack:
            frames = vals.reshape((total,) + item)
            save(name + "_in.npy", frames)
            stream = np.stack(list(frames), axis=axis)
        else:
            shape = list(item)
            shape.insert(axis, total)
            stream = vals.reshape(shape)
            save(name + "_in.npy", stream)
        w = windows(stream, axis, size, hop, pad)
        if squeeze:
            w = np.squeeze(w, axis=axis + 1)
        save(name + "_out.npy", w)


main()
