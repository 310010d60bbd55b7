"""Pipeline regression tests in Python: a pipeline's tensors against
references under NumPy's tolerances (docs/testing.md).

    from gsttensor.testing import assert_pipeline_allclose
    assert_pipeline_allclose(
        "filesrc location=in.npy ! npydec ! tensorop ops=mul:2",
        "golden-%05d.npy", rtol=1e-6)

The check is numpy.testing.assert_allclose's, buffer by buffer; inside a
pipeline (and from gst-launch-1.0) tensorcompare does the same.
"""
import os

import numpy as np

import gsttensor
from gi.repository import Gst

__all__ = ["pipeline_arrays", "assert_pipeline_allclose"]

_SINK = "gsttensor_testing_sink"


def pipeline_arrays(launch, timeout=10.0):
    """Plays launch (a gst-launch-1.0 description whose last element has
    a free src pad) into an appsink to its end and returns [(pts, array)]
    of every buffer, each array a copy.  RuntimeError with the element's
    message on an error, or when no EOS comes within timeout seconds."""
    pipe = Gst.parse_launch(f"{launch} ! appsink name={_SINK} sync=false")
    sink = pipe.get_by_name(_SINK)
    got = []

    def on_sample(s):
        sample = s.emit("pull-sample")
        got.append((sample.get_buffer().pts,
                    np.array(gsttensor.to_numpy(sample))))
        return Gst.FlowReturn.OK

    sink.set_property("emit-signals", True)
    sink.connect("new-sample", on_sample)
    try:
        if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
            raise RuntimeError(msg.parse_error()[0].message if msg
                               else f"{launch}: cannot play")
        msg = pipe.get_bus().timed_pop_filtered(
            int(timeout * Gst.SECOND),
            Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None:
            raise RuntimeError(f"no end of stream within {timeout} s")
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            raise RuntimeError(f"{msg.src.get_name()}: {err.message}")
    finally:
        pipe.set_state(Gst.State.NULL)
    return got


def _references(expected, count):
    """expected as a list of arrays: a sequence, an array whose axis 0
    counts the buffers, a .npy path (the same), or a pattern with a
    printf-style index, one file per buffer (as multifilesink names
    them), read for as many buffers as came and one more."""
    if isinstance(expected, (str, os.PathLike)):
        path = os.fspath(expected)
        if "%" not in path:
            return list(np.load(path))
        refs = []
        for k in range(count + 1):
            if not os.path.exists(path % k):
                break
            refs.append(np.load(path % k))
        return refs
    return list(expected)


def assert_pipeline_allclose(launch, expected, rtol=1e-7, atol=0,
                             equal_nan=True, timeout=10.0):
    """Plays launch and asserts that buffer k is close to reference k by
    numpy.testing.assert_allclose (|actual - expected| <= atol + rtol *
    |expected|, dtype and shape equal too), and that there are as many
    buffers as references.  AssertionError naming the buffer and its pts."""
    got = pipeline_arrays(launch, timeout)
    refs = _references(expected, len(got))
    if len(got) != len(refs):
        raise AssertionError(f"{len(got)} buffers came, {len(refs)} "
                             "references were given")
    for k, ((pts, actual), want) in enumerate(zip(got, refs)):
        want = np.asarray(want)
        where = f"buffer {k} (pts {Gst.TIME_ARGS(pts)})"
        if actual.dtype != want.dtype or actual.shape != want.shape:
            raise AssertionError(
                f"{where}: {actual.dtype} {actual.shape} against "
                f"{want.dtype} {want.shape}")
        np.testing.assert_allclose(actual, want, rtol=rtol, atol=atol,
                                   equal_nan=equal_nan, err_msg=where)
