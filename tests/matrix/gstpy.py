#!/usr/bin/python3
"""A small PyGObject pipeline runner for what gst-launch-1.0 cannot do:
feed an appsrc from a file, collect what an appsink receives, read element
properties after EOS.  It prints errors the way gst-launch-1.0 does
("ERROR: from element PATH: MESSAGE" then "Additional debug info:"), so the
matrix harness reads both alike, and exits 1 on an error, 0 on EOS.

    gstpy.py PIPELINE [--feed FILE [--chunk N] [--repeat N]]
             [--out-dir DIR] [--prop ELEMENT.PROPERTY ...] [--timeout S]

Every appsrc is fed FILE's bytes, CHUNK bytes per buffer (default: the
whole file), the file REPEAT times over, then EOS.
Every appsink has every buffer's bytes appended to DIR/ITS-NAME.  Each
--prop is printed after EOS as "PROP e.p=VALUE".
"""
import argparse
import os
import sys
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import GLib, Gst, GstApp  # noqa: E402,F401


def elements(pipe, factory):
    found = []
    it = pipe.iterate_recurse()
    while True:
        res, el = it.next()
        if res != Gst.IteratorResult.OK:
            return found
        if el.get_factory().get_name() == factory:
            found.append(el)


def drain(sinks):
    """Writes every sample the appsinks hold, without waiting."""
    for sink, f in sinks:
        while True:
            sample = sink.try_pull_sample(0)
            if sample is None:
                break
            buf = sample.get_buffer()
            ok, info = buf.map(Gst.MapFlags.READ)
            if ok:
                f.write(bytes(info.data))
                buf.unmap(info)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pipeline")
    ap.add_argument("--feed")
    ap.add_argument("--chunk", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out-dir")
    ap.add_argument("--prop", action="append", default=[])
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()

    Gst.init(None)
    try:
        pipe = Gst.parse_launch(a.pipeline)
    except GLib.Error as e:
        print(f"WARNING: erroneous pipeline: {e.message}", file=sys.stderr)
        return 1

    if a.feed:
        data = open(a.feed, "rb").read()
        chunk = a.chunk or max(len(data), 1)
        for el in elements(pipe, "appsrc"):
            for _ in range(a.repeat):
                for off in range(0, max(len(data), 1), chunk):
                    el.emit("push-buffer",
                            Gst.Buffer.new_wrapped(data[off:off + chunk]))
            el.emit("end-of-stream")

    # Pulled from this thread between bus polls, not from new-sample
    # handlers on the streaming threads: an appsink holds its samples
    # until they are pulled (and its EOS until then), so none is lost.
    sinks = []
    if a.out_dir:
        for el in elements(pipe, "appsink"):
            f = open(os.path.join(a.out_dir, el.get_name()), "wb")
            sinks.append((el, f))
            el.set_property("sync", False)

    rc = 0
    if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        rc = 1
    bus = pipe.get_bus()
    end = time.monotonic() + a.timeout
    types = Gst.MessageType.EOS | Gst.MessageType.ERROR | Gst.MessageType.WARNING
    while True:
        drain(sinks)
        msg = bus.timed_pop_filtered(10 * Gst.MSECOND, types)
        if msg is None and time.monotonic() < end:
            continue
        if msg is None:
            print("ERROR: gstpy: no EOS and no error within the timeout",
                  file=sys.stderr)
            rc = 2
            break
        if msg.type == Gst.MessageType.WARNING:
            err, dbg = msg.parse_warning()
            print(f"WARNING: from element {msg.src.get_path_string()}: "
                  f"{err.message}", file=sys.stderr)
            continue
        if msg.type == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            print(f"ERROR: from element {msg.src.get_path_string()}: "
                  f"{err.message}", file=sys.stderr)
            print(f"Additional debug info:\n{dbg}", file=sys.stderr)
            rc = 1
            break
        drain(sinks)
        break  # EOS
    if rc == 0:
        for p in a.prop:
            name, prop = p.split(".", 1)
            el = pipe.get_by_name(name)
            print(f"PROP {p}={el.get_property(prop)}")
    pipe.set_state(Gst.State.NULL)
    for _, f in sinks:
        f.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
