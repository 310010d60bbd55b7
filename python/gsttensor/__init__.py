"""NumPy arrays as gst-tensor buffers, and back, without copies.

    import gsttensor
    buf, caps = gsttensor.from_numpy(np.ones((480, 640, 3), np.uint8))
    arr = gsttensor.to_numpy(sample)          # an appsink's Gst.Sample

The library's own functions are in the GstTn-1.0 typelib (``from
gi.repository import GstTn``); this package holds what only Python needs:
the dtype names, the mapping that lives as long as its array, the views.
Importing it initialises GStreamer (if the application has not) and the
library (gst_tn_init: the layout meta's API type is registered from then
on).  See docs/python.md.
"""
import operator as _operator
from fractions import Fraction as _Fraction
from typing import NamedTuple, Optional, Tuple

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstTn", "1.0")
from gi.repository import GLib, Gst, GstTn  # noqa: E402

import numpy as np  # noqa: E402

__all__ = ["TensorInfo", "accept_views", "caps", "from_message",
           "from_numpy", "info", "to_numpy", "layout_meta_api"]

if not Gst.is_initialized():
    Gst.init(None)
GstTn.init()

# GstTnInfo.dtype is a tn_dtype: these names in that order (GST_TN_TYPES).
_NAMES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32",
          "int64", "uint64", "float16", "bfloat16", "float32", "float64")
_TO_NUMPY = {n: (None if n == "bfloat16" else np.dtype(n)) for n in _NAMES}
_FROM_NUMPY = {d: n for n, d in _TO_NUMPY.items() if d is not None}


class TensorInfo(NamedTuple):
    """What tensor caps describe, in NumPy's terms."""
    dtype: np.dtype
    shape: Tuple[int, ...]
    framerate: Optional[_Fraction]  # None for none or 0/1


def layout_meta_api():
    """The GType of the layout meta's API ("GstTnLayoutMetaAPI")."""
    return GstTn.layout_meta_api_get_type()


def _np_dtype(name):
    dt = _TO_NUMPY[name]
    if dt is None:
        raise TypeError("tensor type bfloat16 has no NumPy dtype; convert it "
                        "first (tensorop ops=cast:float32)")
    return dt


def from_message(message):
    """The tensor an element message carries, as a new numpy.ndarray: the
    per-buffer results of ``tensorreduce post-messages=true`` (fields
    type, dims and values, as ``level`` posts its RMS).  message is a
    Gst.Message or its Gst.Structure.  ValueError when it carries no
    tensor, or only type and dims (a result larger than the element's
    max-message-items)."""
    s = (message.get_structure() if isinstance(message, Gst.Message)
         else message)
    if s is None or not (s.has_field("type") and s.has_field("dims")):
        raise ValueError("the message carries no tensor (no type and dims): "
                         + (s.to_string() if s is not None else "no fields"))
    dims = tuple(int(d) for d in s.get_value("dims").array)
    if not s.has_field("values"):
        raise ValueError(
            f"{s.get_name()}: the message carries type and dims only: its "
            f"{s.get_value('items')} items are more than max-message-items")
    values = s.get_value("values").array
    return np.array(values, dtype=_np_dtype(s.get_value("type"))).reshape(dims)


def _tensor_type(dtype):
    dt = np.dtype(dtype)
    if dt.byteorder == ">" or (dt.byteorder == "=" and not
                               np.little_endian):
        raise TypeError(f"dtype {dt.str}: tensors are little-endian")
    name = _FROM_NUMPY.get(dt.newbyteorder("="))
    if name is None:
        raise TypeError(f"dtype {dt} is not a tensor type; expected one of "
                        + ", ".join(str(d) for d in _FROM_NUMPY))
    return name


_GINT_MAX = 2 ** 31 - 1


def _fraction(framerate):
    if framerate is None:
        return None
    if isinstance(framerate, tuple):
        fr = _Fraction(*framerate)
    elif isinstance(framerate, Gst.Fraction):
        fr = _Fraction(framerate.num, framerate.denom)
    elif isinstance(framerate, float):
        # A float's exact value (29.97 is 1054475631502295/2^45) fits no
        # GStreamer fraction: the nearest one of a denominator up to 1001
        # (29.97 is 2997/100, 30000 / 1001 is 30000/1001).
        fr = _Fraction(framerate).limit_denominator(1001)
    else:
        fr = _Fraction(framerate)
    if fr.numerator > _GINT_MAX or fr.denominator > _GINT_MAX:
        raise ValueError(f"framerate {fr} does not fit a GStreamer fraction "
                         f"(numerator and denominator up to {_GINT_MAX})")
    return fr


def _extent(d):
    try:
        d = _operator.index(d)
    except TypeError:
        raise TypeError(f"shape entry {d!r} is not an integer") from None
    if d > _GINT_MAX:
        raise ValueError(f"shape entry {d} is more than caps can hold "
                         f"({_GINT_MAX})")
    return d


def caps(dtype, shape, framerate=None):
    """Fixed tensor/x-raw caps for arrays of dtype and shape;
    framerate: None (no field), a number, (num, den) or a Fraction."""
    dims = ", ".join(str(_extent(d)) for d in shape)
    text = (f"tensor/x-raw, type=(string){_tensor_type(dtype)}, "
            f"dims=(int)<{dims}>, dims-order=(string)row-major")
    fr = _fraction(framerate)
    if fr is not None:
        text += f", framerate=(fraction){fr.numerator}/{fr.denominator}"
    c = Gst.Caps.from_string(text)
    if c is None:
        raise ValueError(f"no caps for {text}")
    # The library checks (rank <= 8, extents >= 0) and writes the caps.
    return _read(c).to_caps()


def _read(c):
    try:
        return GstTn.Info.from_caps(c)
    except GLib.Error as e:
        raise ValueError(e.message) from None


def info(c):
    """The TensorInfo of fixed tensor caps (ValueError if they are not)."""
    i = _read(c)
    # 0/1, GStreamer's "no fixed rate", is what caps without one read as.
    fr = _Fraction(i.fps_n, i.fps_d) if i.fps_n > 0 else None
    return TensorInfo(_np_dtype(_NAMES[i.dtype]), tuple(i.dims[:i.rank]), fr)


class _Mapping:
    """One map of a buffer, unmapped when the last array over it goes:
    NumPy keeps this object as the base of every array made from it."""

    def __init__(self, buffer, flags):
        ok, self._map = buffer.map(flags)
        if not ok:
            raise ValueError("the buffer cannot be mapped "
                             + ("for writing" if flags & Gst.MapFlags.WRITE
                                else "for reading"))
        self._buffer = buffer

    def array(self, dtype, shape, offset, strides, readonly):
        mv = self._map.data
        # NumPy checks that every item lies inside the mapped bytes.
        probe = np.ndarray(shape, dtype, buffer=mv, offset=offset,
                           strides=strides)
        face = dict(probe.__array_interface__)
        del probe
        face["data"] = (face["data"][0], readonly)
        self.__array_interface__ = face
        return np.asarray(self)

    def __del__(self):
        if getattr(self, "_buffer", None) is not None:
            self._buffer.unmap(self._map)
            self._buffer = None


def to_numpy(buffer_or_sample, caps=None, writable=False):
    """A numpy.ndarray over the buffer's memory, no copy: dtype and shape
    from caps (a sample's own when None), strides and offset from the
    layout meta when the buffer has one.  Read-only unless writable=True,
    which needs a writable buffer.  The buffer stays mapped (and
    referenced) exactly as long as the array or a view of it lives."""
    buffer = buffer_or_sample
    if isinstance(buffer_or_sample, Gst.Sample):
        buffer = buffer_or_sample.get_buffer()
        caps = caps if caps is not None else buffer_or_sample.get_caps()
    if caps is None:
        raise ValueError("to_numpy needs caps for a bare Gst.Buffer")
    i = info(caps)
    dt = i.dtype
    dense = [dt.itemsize] * len(i.shape)
    for a in range(len(i.shape) - 2, -1, -1):
        dense[a] = dense[a + 1] * i.shape[a + 1]
    strides, offset = tuple(dense), 0
    meta = GstTn.buffer_get_layout_meta(buffer)
    if meta is not None:
        if meta.rank != len(i.shape):
            raise ValueError(f"layout meta of rank {meta.rank} on a buffer "
                             f"whose caps have rank {len(i.shape)}")
        strides = tuple(s * dt.itemsize for s in meta.strides[:meta.rank])
        offset = meta.offset * dt.itemsize
    elif buffer.get_size() != int(np.prod(i.shape)) * dt.itemsize:
        raise ValueError(f"buffer holds {buffer.get_size()} bytes; caps "
                         f"{dt} {list(i.shape)} need "
                         f"{int(np.prod(i.shape)) * dt.itemsize}")
    flags = Gst.MapFlags.READ
    if writable:
        if not GstTn.buffer_is_writable(buffer):
            raise ValueError("writable=True needs a writable buffer (this "
                             "one has other references: copy it first)")
        flags |= Gst.MapFlags.WRITE
    return _Mapping(buffer, flags).array(dt, i.shape, offset, strides,
                                         not writable)


def _keep(array):
    # Called once by the library when the buffer's memory is freed; until
    # then the closure holds the array.
    return lambda _unused: array


# The pipeline reads the application's array, never writes it: an element
# that writes in place (tensorop) copies read-only memory first.
_READONLY = Gst.MemoryFlags.READONLY


def from_numpy(array, framerate=None, contiguous=False):
    """(Gst.Buffer, Gst.Caps) for array without a copy: the buffer wraps
    the array's memory and keeps the array alive until the memory is
    freed, and read-only: elements that write in place copy it first,
    so the pipeline never changes the array.  A C-contiguous array is a
    dense tensor; any other travels as a
    view with the layout meta (only elements that read the meta take it:
    see accept_views), or is copied once into a dense one when
    contiguous=True or when its strides cannot be expressed (negative,
    or not multiples of the item size)."""
    array = np.asarray(array)
    c = caps(array.dtype, array.shape, framerate)
    item = array.dtype.itemsize
    strides = array.strides
    expressible = all(s >= 0 and s % item == 0 for s in strides)
    if array.size == 0 or array.flags.c_contiguous or contiguous \
            or not expressible:
        array = np.ascontiguousarray(array)
        dense = _read(c)
        buf = GstTn.buffer_wrap_full(dense, _READONLY, array.ctypes.data
                                     if array.size else None, array.nbytes,
                                     None, _keep(array))
        if buf is None:
            raise ValueError(f"cannot wrap {array.nbytes} bytes as {c}")
        return buf, c
    # A view: the buffer spans the items the strides reach, no more.
    span = sum((d - 1) * s for d, s in zip(array.shape, strides)) + item
    raw = _read(caps(np.uint8, (span,)))
    buf = GstTn.buffer_wrap_full(raw, _READONLY, array.ctypes.data, span,
                                 None, _keep(array))
    if buf is None:
        raise ValueError(f"cannot wrap {span} bytes")
    if GstTn.buffer_add_layout_meta(buf, 0, [s // item for s in strides]) \
            is None:
        raise ValueError(f"strides {strides} cannot be a layout meta")
    return buf, c


def accept_views(appsink):
    """Lets appsink receive strided views (buffers with the layout meta,
    read by to_numpy) instead of copies made dense upstream: its sink pad
    answers the ALLOCATION query with the meta's API, as an element that
    reads the meta does (gst_tn_pad_accept_views).  Returns the probe
    id."""
    return GstTn.pad_accept_views(appsink.get_static_pad("sink"))
