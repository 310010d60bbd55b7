#!/usr/bin/python3
"""Tensor streams across processes through GStreamer's own transports, on
127.0.0.1 only, each with a bounded number of buffers and a timeout:

  tcp  appsrc ! tensorview ! gdppay ! tcpserversink   | tcpclientsrc ! gdpdepay ! appsink
  rtp  appsrc ! tensorview ! rtpgstpay ! udpsink      | udpsrc ! rtpgstdepay ! appsink
  shm  appsrc ! tensorview ! gdppay ! shmsink         | shmsrc ! gdpdepay ! appsink

The sender runs here, the receiver in a child process (this script with
--recv).  Each buffer k holds a NumPy array of its own; tensorview
permutes it (a view: strides in the layout meta), and since none of the
payloaders or sinks advertises the meta, tensorview must hand them the
dense transpose.  The receiver checks every buffer's caps (the sender's,
intact) and its bytes against NumPy's transpose of array k: a view that
leaked through would arrive as the untransposed bytes.

    transport.py [--only tcp|rtp|shm] [--timeout S]
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstApp", "1.0")
from gi.repository import Gst, GstApp  # noqa: E402,F401

NBUF = 8
# dtype, shape sent (the receiver gets the transpose, the reversed shape)
STREAMS = [("float32", (5, 7)), ("uint8", (48, 64, 3)), ("int16", (3, 1, 4))]


def array(dtype, shape, k):
    """Buffer k of a stream: every item distinct within the buffer and
    from one buffer to the next (modulo the dtype)."""
    n = int(np.prod(shape))
    a = np.arange(n, dtype=np.int64) * 7 + k * 13
    if dtype == "uint8":
        a %= 251
    return a.astype(dtype).reshape(shape)


def caps_string(dtype, shape, transposed):
    dims = tuple(reversed(shape)) if transposed else shape
    return ("tensor/x-raw, type=(string)%s, dims=(int)< %s >, "
            "dims-order=(string)row-major, framerate=(fraction)30/1"
            % (dtype, ", ".join(str(d) for d in dims)))


def permute_ops(rank):
    return "permute:" + ":".join(str(i) for i in reversed(range(rank)))


def receiver_launch(kind, where):
    if kind == "tcp":
        src = "tcpclientsrc host=127.0.0.1 port=%s ! gdpdepay" % where
    elif kind == "rtp":
        src = ("udpsrc address=127.0.0.1 port=%s buffer-size=4194304 "
               "caps=application/x-rtp,media=application,clock-rate=90000,"
               "encoding-name=X-GST ! rtpjitterbuffer latency=200 "
               "! rtpgstdepay" % where)
    else:
        src = "shmsrc socket-path=%s ! gdpdepay" % where
    return src + " ! appsink name=out sync=false"


def receive(kind, where, dtype, shape, timeout):
    """The child: NBUF buffers, each checked; exit 0 when all are right."""
    Gst.init(None)
    pipe = Gst.parse_launch(receiver_launch(kind, where))
    sink = pipe.get_by_name("out")
    want_caps = Gst.Caps.from_string(caps_string(dtype, shape, True))
    pipe.set_state(Gst.State.PLAYING)
    print("ready", flush=True)
    bad = 0
    deadline = time.monotonic() + timeout
    got = 0
    while got < NBUF:
        left = deadline - time.monotonic()
        sample = sink.try_pull_sample(int(max(left, 0) * Gst.SECOND))
        if sample is None:
            msg = pipe.get_bus().pop_filtered(Gst.MessageType.ERROR)
            why = msg.parse_error()[0].message if msg else "timeout"
            print("FAIL %s %s: %d of %d buffers, then %s"
                  % (kind, dtype, got, NBUF, why), flush=True)
            pipe.set_state(Gst.State.NULL)
            return 1
        caps = sample.get_caps()
        buf = sample.get_buffer()
        ok, info = buf.map(Gst.MapFlags.READ)
        data = bytes(info.data)
        buf.unmap(info)
        want = np.ascontiguousarray(array(dtype, shape, got).T)
        if not caps.is_equal(want_caps):
            print("FAIL %s buffer %d: caps %s, sent %s"
                  % (kind, got, caps.to_string(), want_caps.to_string()))
            bad += 1
        elif data != want.tobytes():
            a = np.frombuffer(data, dtype=dtype)
            print("FAIL %s buffer %d: %d bytes, first items %s, NumPy %s"
                  % (kind, got, len(data), a[:6], want.ravel()[:6]))
            bad += 1
        got += 1
    pipe.set_state(Gst.State.NULL)
    print("%s %s %s: %d buffers, %d wrong" % (kind, dtype, shape, got, bad),
          flush=True)
    return 1 if bad else 0


def free_udp_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait(pred, timeout, what):
    end = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > end:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.02)


def send(kind, dtype, shape, timeout, tmp):
    """One stream over one transport; returns the receiver's exit code."""
    rank = len(shape)
    head = ("appsrc name=in format=time caps=\"%s\" ! tensorview ops=%s ! "
            % (caps_string(dtype, shape, False), permute_ops(rank)))
    sock = os.path.join(tmp, "shm-%s" % dtype)
    if kind == "tcp":
        tail = "gdppay ! tcpserversink name=snk host=127.0.0.1 port=0"
    elif kind == "rtp":
        port = free_udp_port()
        tail = "rtpgstpay ! udpsink host=127.0.0.1 port=%d sync=true" % port
    else:
        tail = ("gdppay ! shmsink name=snk socket-path=%s "
                "wait-for-connection=true sync=false" % sock)
    pipe = Gst.parse_launch(head + tail)
    src = pipe.get_by_name("in")
    child = None

    def start_child(where):
        p = subprocess.Popen(
            [sys.executable, __file__, "--recv", kind, str(where), dtype,
             ",".join(str(d) for d in shape), "--timeout", str(timeout)],
            stdout=subprocess.PIPE, text=True)
        line = p.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError("receiver: " + line)
        return p

    try:
        if kind == "rtp":
            # The receiver listens before the first packet leaves.
            child = start_child(port)
            pipe.set_state(Gst.State.PLAYING)
        elif kind == "tcp":
            # Served from PAUSED (the socket listens, the first buffer waits
            # in preroll) so that no buffer leaves before the client is in.
            pipe.set_state(Gst.State.PAUSED)
            snk = pipe.get_by_name("snk")
            wait(lambda: snk.get_property("current-port") > 0, timeout,
                 "tcpserversink to listen")
            child = start_child(snk.get_property("current-port"))
            wait(lambda: snk.get_property("num-handles") > 0, timeout,
                 "the receiver to connect")
            pipe.set_state(Gst.State.PLAYING)
        else:
            pipe.set_state(Gst.State.PLAYING)
            wait(lambda: os.path.exists(sock), timeout, "shmsink's socket")
            child = start_child(sock)
        for k in range(NBUF):
            buf = Gst.Buffer.new_wrapped(array(dtype, shape, k).tobytes())
            buf.pts = k * Gst.SECOND // 30
            buf.duration = Gst.SECOND // 30
            if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
                raise RuntimeError("push-buffer %d refused" % k)
        src.emit("end-of-stream")
        msg = pipe.get_bus().timed_pop_filtered(
            timeout * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
        if msg is None or msg.type == Gst.MessageType.ERROR:
            why = msg.parse_error()[0].message if msg else "timeout"
            raise RuntimeError("sender %s: %s" % (kind, why))
        # Kept open until the receiver has read everything.
        out, _ = child.communicate(timeout=timeout)
        sys.stdout.write(out)
        return child.returncode
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        pipe.set_state(Gst.State.NULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--recv", nargs=4,
                    metavar=("KIND", "WHERE", "DTYPE", "SHAPE"))
    ap.add_argument("--only")
    ap.add_argument("--timeout", type=float, default=20)
    a = ap.parse_args()
    if a.recv:
        kind, where, dtype, shape = a.recv
        shape = tuple(int(d) for d in shape.split(","))
        return receive(kind, where, dtype, shape, a.timeout)
    Gst.init(None)
    fails = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("tcp", "rtp", "shm"):
            if a.only and kind != a.only:
                continue
            for dtype, shape in STREAMS:
                try:
                    rc = send(kind, dtype, shape, a.timeout, tmp)
                except Exception as e:  # a hang or refusal is a failure
                    print("FAIL %s %s: %s" % (kind, dtype, e))
                    rc = 1
                fails += rc != 0
    print("transport: %d failed" % fails)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
