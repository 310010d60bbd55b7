"""The Python package gsttensor: caps and info in NumPy's names, arrays
to buffers and back without copies, mappings that live exactly as long
as their arrays, views through the layout meta.  Expectations are NumPy
itself (the array that went in) or hand-computed values."""
import gc
import os
import subprocess
import sys
import weakref
from fractions import Fraction

import numpy as np
import pytest

import gsttensor
from gi.repository import Gst, GstTn

NUMPY_TYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
               "int64", "uint64", "float16", "float32", "float64"]


def collect():
    gc.collect()
    gc.collect()


def run(desc, arrays, accept=False, framerate=10):
    """Pushes arrays through DESC (between appsrc and appsink) and returns
    the samples appsink received."""
    pipe = Gst.parse_launch(f"appsrc name=src format=time ! {desc} ! "
                            "appsink name=sink sync=false")
    src, sink = pipe.get_by_name("src"), pipe.get_by_name("sink")
    if accept:
        gsttensor.accept_views(sink)
    first = gsttensor.from_numpy(arrays[0], framerate=framerate)[1]
    src.set_property("caps", first)
    assert pipe.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
    for a in arrays:
        buf, _ = gsttensor.from_numpy(a, framerate=framerate)
        assert src.emit("push-buffer", buf) == Gst.FlowReturn.OK
    src.emit("end-of-stream")
    samples = []
    while True:
        s = sink.emit("try-pull-sample", 5 * Gst.SECOND)
        if s is None:
            break
        samples.append(s)
    msg = pipe.get_bus().timed_pop_filtered(
        5 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipe.set_state(Gst.State.NULL)
    assert msg is not None and msg.type == Gst.MessageType.EOS, \
        msg and msg.parse_error()
    return samples


# -- caps and info ------------------------------------------------------

@pytest.mark.parametrize("name", NUMPY_TYPES)
def test_caps_info_round_trip(name):
    c = gsttensor.caps(np.dtype(name), (2, 3, 4), framerate=(25, 2))
    s = c.get_structure(0)
    assert s.get_name() == "tensor/x-raw"
    assert s.get_string("type") == name
    assert c.to_string().count("dims=(int)< 2, 3, 4 >") == 1
    assert gsttensor.info(c) == (np.dtype(name), (2, 3, 4), Fraction(25, 2))


@pytest.mark.parametrize("rate,want", [(29.97, Fraction(2997, 100)),
                                       (30000 / 1001, Fraction(30000, 1001)),
                                       (25.0, Fraction(25)),
                                       (np.int64(30), Fraction(30))])
def test_caps_float_framerate(rate, want):
    # a float's exact binary value fits no fraction of 32-bit integers
    assert gsttensor.info(gsttensor.caps(np.uint8, (2,), rate)).framerate \
        == want


def test_info_reads_caps_strings():
    c = Gst.Caps.from_string("tensor/x-raw, type=uint8, dims=<480, 640, 3>, "
                             "dims-order=row-major, framerate=30/1")
    i = gsttensor.info(c)
    assert i.dtype == np.uint8 and i.shape == (480, 640, 3)
    assert i.framerate == 30
    # rank 0 and no framerate
    i = gsttensor.info(gsttensor.caps(np.float64, ()))
    assert i.shape == () and i.framerate is None


def test_caps_errors():
    with pytest.raises(TypeError, match="complex64 is not a tensor type"):
        gsttensor.caps(np.complex64, (2,))
    with pytest.raises(TypeError, match="little-endian"):
        gsttensor.caps(np.dtype(">f4"), (2,))
    with pytest.raises(ValueError, match="8"):
        gsttensor.caps(np.uint8, (1,) * 9)
    bf = Gst.Caps.from_string("tensor/x-raw, type=bfloat16, dims=<2>")
    with pytest.raises(TypeError, match="bfloat16 has no NumPy dtype"):
        gsttensor.info(bf)
    with pytest.raises(TypeError, match="2.5 is not an integer"):
        gsttensor.caps(np.uint8, (2.5, 3))
    with pytest.raises(ValueError, match="more than caps can hold"):
        gsttensor.caps(np.uint8, (2 ** 40,))
    with pytest.raises(ValueError, match="does not fit a GStreamer fraction"):
        gsttensor.caps(np.uint8, (2,), framerate=(2 ** 40, 1))
    with pytest.raises(ValueError, match="float33"):
        gsttensor.info(Gst.Caps.from_string("tensor/x-raw, type=float33, "
                                            "dims=<2>"))


# -- from_numpy / to_numpy: no copies -------------------------------------

@pytest.mark.parametrize("name", NUMPY_TYPES)
def test_round_trip_zero_copy(name):
    a = (np.arange(24) % 7).astype(name).reshape(2, 3, 4)
    buf, c = gsttensor.from_numpy(a)
    assert buf.get_size() == a.nbytes
    assert GstTn.buffer_get_layout_meta(buf) is None
    b = gsttensor.to_numpy(buf, c)
    assert b.dtype == a.dtype and b.shape == a.shape
    assert b.strides == a.strides
    assert b.ctypes.data == a.ctypes.data  # the same memory
    np.testing.assert_array_equal(b, a)


def test_buffer_keeps_array_alive():
    a = np.arange(6, dtype=np.int32)
    alive = weakref.ref(a)
    before = sys.getrefcount(a)
    buf, c = gsttensor.from_numpy(a)
    assert sys.getrefcount(a) == before + 1  # held by the buffer
    del a
    collect()
    assert alive() is not None
    np.testing.assert_array_equal(gsttensor.to_numpy(buf, c),
                                  [0, 1, 2, 3, 4, 5])
    del buf
    collect()
    assert alive() is None  # freed with the buffer's memory


def test_mapping_lives_as_long_as_the_array():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    buf, c = gsttensor.from_numpy(a)
    refs = sys.getrefcount(buf)
    arr = gsttensor.to_numpy(buf, c)
    mapping = weakref.ref(arr.base)
    assert sys.getrefcount(buf) > refs  # the mapping holds the buffer
    view = arr[1:, ::2]  # a view of the array keeps the mapping too
    del arr
    collect()
    assert mapping() is not None and sys.getrefcount(buf) > refs
    del buf  # and the buffer: no use after unmap or free
    collect()
    np.testing.assert_array_equal(view, [[4, 6], [8, 10]])
    del view
    collect()
    assert mapping() is None


def test_mapping_releases_the_buffer():
    buf, c = gsttensor.from_numpy(np.arange(4, dtype=np.uint16))
    refs = sys.getrefcount(buf)
    arr = gsttensor.to_numpy(buf, c)
    assert sys.getrefcount(buf) > refs
    del arr
    collect()
    assert sys.getrefcount(buf) == refs  # no reference left behind


def test_unmapped_when_the_array_goes():
    buf = Gst.Buffer.new_allocate(None, 4, None)
    buf.fill(0, bytes([1, 2, 3, 4]))
    c = gsttensor.caps(np.uint8, (4,))
    r = gsttensor.to_numpy(buf, c)
    where = r.ctypes.data
    del r
    collect()
    # A memory still mapped for reading is not mapped for writing in
    # place (GStreamer copies it): in place means it was unmapped.
    w = gsttensor.to_numpy(buf, c, writable=True)
    assert w.flags.writeable and w.ctypes.data == where
    w[2] = 7
    del w
    collect()
    np.testing.assert_array_equal(gsttensor.to_numpy(buf, c), [1, 2, 7, 4])


def test_pipeline_never_writes_the_array():
    a = np.arange(4, dtype=np.float32)
    buf, c = gsttensor.from_numpy(a)
    w = gsttensor.to_numpy(buf, c, writable=True)  # read-only memory: a copy
    w[:] = -1
    assert w.ctypes.data != a.ctypes.data
    np.testing.assert_array_equal(a, [0, 1, 2, 3])


def test_read_only_unless_writable():
    buf, c = gsttensor.from_numpy(np.arange(3, dtype=np.int16))
    r = gsttensor.to_numpy(buf, c)
    assert not r.flags.writeable
    with pytest.raises(ValueError):
        r[0] = 1
    with pytest.raises(ValueError):
        r.flags.writeable = True
    del r
    collect()
    # a sample holds a second reference: the buffer is not writable
    sample = Gst.Sample.new(buf, c, None, None)
    with pytest.raises(ValueError, match="writable"):
        gsttensor.to_numpy(sample, writable=True)


def test_size_mismatch():
    buf, _ = gsttensor.from_numpy(np.zeros(6, np.float32))
    with pytest.raises(ValueError, match="buffer holds 24 bytes; caps "
                       "float32 \\[2, 4\\] need 32"):
        gsttensor.to_numpy(buf, gsttensor.caps(np.float32, (2, 4)))
    with pytest.raises(ValueError, match="needs caps"):
        gsttensor.to_numpy(buf)


# -- views -------------------------------------------------------------------

def test_view_travels_with_layout_meta():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = a.transpose(2, 0, 1)
    buf, c = gsttensor.from_numpy(t)
    assert gsttensor.info(c).shape == (4, 2, 3)
    meta = GstTn.buffer_get_layout_meta(buf)
    assert meta.rank == 3 and meta.offset == 0
    assert list(meta.strides[:3]) == [1, 12, 4]  # items
    assert buf.get_size() == a.nbytes
    v = gsttensor.to_numpy(buf, c)
    assert v.ctypes.data == a.ctypes.data and v.strides == t.strides
    np.testing.assert_array_equal(v, t)


def test_broadcast_view_spans_its_items_only():
    b = np.broadcast_to(np.array([1, 2, 3], np.int16), (1000, 3))
    buf, c = gsttensor.from_numpy(b)
    assert buf.get_size() == 6
    np.testing.assert_array_equal(gsttensor.to_numpy(buf, c), b)


def test_negative_strides_and_contiguous_copy_once():
    a = np.arange(10, dtype=np.int64)
    buf, c = gsttensor.from_numpy(a[::-1])
    assert GstTn.buffer_get_layout_meta(buf) is None
    np.testing.assert_array_equal(gsttensor.to_numpy(buf, c), a[::-1])
    t = a.reshape(2, 5).T
    buf, c = gsttensor.from_numpy(t, contiguous=True)
    assert GstTn.buffer_get_layout_meta(buf) is None
    d = gsttensor.to_numpy(buf, c)
    assert not np.shares_memory(d, a)
    np.testing.assert_array_equal(d, t)


def test_empty_and_scalar():
    buf, c = gsttensor.from_numpy(np.zeros((0, 3), np.uint8))
    assert gsttensor.to_numpy(buf, c).shape == (0, 3)
    buf, c = gsttensor.from_numpy(np.float64(2.5))
    assert gsttensor.to_numpy(buf, c) == 2.5


# -- through pipelines -------------------------------------------------------

def test_pipeline_tensorop():
    arrays = [np.arange(6, dtype=np.float32).reshape(2, 3) + k
              for k in range(3)]
    samples = run("tensorop ops=mul:2,add:1", arrays)
    assert len(samples) == 3
    for s, a in zip(samples, arrays):
        out = gsttensor.to_numpy(s)
        np.testing.assert_array_equal(out, a * 2 + 1)
        assert gsttensor.info(s.get_caps()).framerate == 10


def test_pipeline_view_into_tensorop():
    # a transposed array goes in as a view; tensorop makes it dense itself
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    samples = run("tensorop ops=neg", [a.T])
    np.testing.assert_array_equal(gsttensor.to_numpy(samples[0]), -a.T)


@pytest.mark.parametrize("accept", [False, True])
def test_accept_views(accept):
    a = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    samples = run("tensorview ops=transpose", [a], accept=accept)
    buf = samples[0].get_buffer()
    meta = GstTn.buffer_get_layout_meta(buf)
    # a view only when appsink said it reads the meta; a copy otherwise
    assert (meta is not None) == accept
    out = gsttensor.to_numpy(samples[0])
    np.testing.assert_array_equal(out, a.transpose(0, 2, 1))
    assert not out.flags.writeable


def test_writable_refused_for_shared_buffer():
    samples = run("tensorop ops=add:0", [np.zeros(3, np.float32)])
    with pytest.raises(ValueError, match="writable"):
        gsttensor.to_numpy(samples[0], writable=True)


def test_meta_registered_on_import(tmp_path):
    # A fresh interpreter that loads no plugin: importing the package
    # registers the meta (gst_tn_init), not an element's first use.
    code = ("import gi; gi.require_version('Gst', '1.0');"
            "from gi.repository import Gst, GObject; Gst.init(None);"
            "print(Gst.Meta.get_info('GstTnLayoutMeta'));"
            "import gsttensor;"
            "print(GObject.type_from_name('GstTnLayoutMetaAPI') =="
            " gsttensor.layout_meta_api(),"
            " Gst.Meta.get_info('GstTnLayoutMeta') is not None)")
    env = dict(os.environ, GST_PLUGIN_PATH_1_0="",
               GST_PLUGIN_SYSTEM_PATH_1_0="",
               GST_REGISTRY_1_0=str(tmp_path / "registry.bin"))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out == ["None", "True", "True"]


def reduce_messages(desc, dtype="int16", dims="<2,3>"):
    """The element messages of tensorreduce DESC on arange of dims."""
    pipe = Gst.parse_launch(
        f"tensorsrc pattern=arange num-buffers=2 ! tensor/x-raw,type={dtype},"
        f"dims={dims} ! tensorreduce post-messages=true {desc} ! fakesink")
    assert pipe.set_state(Gst.State.PLAYING) != Gst.StateChangeReturn.FAILURE
    bus, got = pipe.get_bus(), []
    while True:
        m = bus.timed_pop_filtered(5 * Gst.SECOND, Gst.MessageType.ELEMENT
                                   | Gst.MessageType.EOS
                                   | Gst.MessageType.ERROR)
        assert m is not None and m.type != Gst.MessageType.ERROR
        if m.type == Gst.MessageType.EOS:
            break
        got.append(m)
    pipe.set_state(Gst.State.NULL)
    return got


@pytest.mark.parametrize("desc, want", [
    ("op=sum", np.arange(6).sum()),                       # rank 0
    ("op=argmax axes=1", np.arange(6).reshape(2, 3).argmax(axis=1)),
    ("op=mean axes=0 keepdims=true",
     np.arange(6.0).reshape(2, 3).mean(axis=0, keepdims=True)),
])
def test_from_message(desc, want):
    msgs = reduce_messages(desc)
    assert len(msgs) == 2
    for m in msgs:
        got = gsttensor.from_message(m)
        assert got.shape == np.shape(want)
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)


def test_from_message_without_values():
    (m, _) = reduce_messages("axes=1 max-message-items=1")
    with pytest.raises(ValueError, match="2 items are more than"):
        gsttensor.from_message(m)
    with pytest.raises(ValueError, match="no tensor"):
        gsttensor.from_message(Gst.Structure.new_empty("other"))


# gsttensor.testing: the pipeline's buffers against NumPy's own result.
ADD_ONE = ("tensorsrc pattern=arange num-buffers=3 "
           "! tensor/x-raw,type=float32,dims=<2,3> ! tensorop ops=add:1")
ADD_ONE_WANT = np.arange(6, dtype=np.float32).reshape(2, 3) + 1


def test_pipeline_arrays():
    from gsttensor.testing import pipeline_arrays
    got = pipeline_arrays(ADD_ONE)
    assert [pts for pts, _ in got] == [0, 33333333, 66666666]
    for _, a in got:
        np.testing.assert_array_equal(a, ADD_ONE_WANT)


def test_assert_pipeline_allclose_forms(tmp_path):
    from gsttensor.testing import assert_pipeline_allclose
    assert_pipeline_allclose(ADD_ONE, [ADD_ONE_WANT] * 3)
    np.save(tmp_path / "all.npy", np.stack([ADD_ONE_WANT] * 3))
    assert_pipeline_allclose(ADD_ONE, tmp_path / "all.npy")
    for k in range(3):
        np.save(tmp_path / f"g-{k:05d}.npy", ADD_ONE_WANT)
    assert_pipeline_allclose(ADD_ONE, str(tmp_path / "g-%05d.npy"))


def test_assert_pipeline_allclose_fails():
    from gsttensor.testing import assert_pipeline_allclose
    near = ADD_ONE_WANT * np.float32(1 + 1e-6)
    # 1e-6 off: refused at rtol 1e-7, passed at 1e-5
    with pytest.raises(AssertionError, match=r"buffer 0 \(pts 0:00:00"):
        assert_pipeline_allclose(ADD_ONE, [near] * 3)
    assert_pipeline_allclose(ADD_ONE, [near] * 3, rtol=1e-5)
    with pytest.raises(AssertionError, match="3 buffers came, 2 references"):
        assert_pipeline_allclose(ADD_ONE, [ADD_ONE_WANT] * 2)
    with pytest.raises(AssertionError, match="float32 .2, 3. against float64"):
        assert_pipeline_allclose(ADD_ONE, [ADD_ONE_WANT.astype(float)] * 3)
    with pytest.raises(RuntimeError, match=r"tensorop\d+: ops=.*mull"):
        assert_pipeline_allclose(ADD_ONE + ",mull:2", [ADD_ONE_WANT] * 3)
