#!/usr/bin/python3
"""docs/testing.md, way 3: a pipeline regression test in Python with
PyGObject alone.  tensorcompare (on-mismatch=message) posts one message
per buffer and a summary at EOS; the test reads them from the bus.

The references are seq_%05d.npy of tests/data/elements/compare (buffer k
holds 10 k + arange(6), float32 <2, 3>); tensorsrc pattern=arange gives
arange(6) in every buffer, so buffer 0 passes and buffers 1 and 2 fail.
"""
import os
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def run(launch):
    """Plays launch to EOS; the tensorcompare messages and any error."""
    pipeline = Gst.parse_launch(launch)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    results, summary, error = [], None, None
    while True:
        msg = bus.timed_pop_filtered(
            10 * Gst.SECOND,
            Gst.MessageType.ELEMENT | Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None:
            error = "no EOS within 10 s"
            break
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s.get_name() == "tensorcompare":
                results.append(s)
            elif s.get_name() == "tensorcompare-summary":
                summary = s
            continue
        if msg.type == Gst.MessageType.ERROR:
            error = msg.parse_error()[0].message
        break
    pipeline.set_state(Gst.State.NULL)
    return results, summary, error


def main():
    Gst.init(None)
    refs = os.path.join(os.environ["GST_TENSOR_TESTDATA"], "seq_%05d.npy")
    results, summary, error = run(
        "tensorsrc pattern=arange num-buffers=3 "
        "! tensor/x-raw,type=float32,dims=<2,3> "
        f"! tensorcompare reference={refs} on-mismatch=message silent=true "
        "! fakesink")
    assert error is None, error
    assert [r.get_value("passed") for r in results] == [True, False, False]
    bad = results[1]
    assert bad.get_value("mismatches") == 6
    assert bad.get_value("max-abs") == 10.0
    assert bad.get_value("actual") == 0.0 and bad.get_value("expected") == 10.0
    first = bad.get_value("first-mismatch")
    assert [first[i] for i in range(len(first))] == [0, 0], first
    assert summary.get_value("buffers") == 3
    assert summary.get_value("failed") == 2
    assert summary.get_value("max-abs") == 20.0
    print("regress.py: buffer 0 passed, buffers 1 and 2 failed as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
