/* plugin_init lives with the elements, not in the library
 * (gst-libs/gst/tensor/) that they use: arrows only point down. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "elements.h"

#include <gst/tensor/tensorinit.h>

static gboolean
plugin_init (GstPlugin * plugin)
{
  gboolean ok = FALSE;

  gst_tn_init ();
  ok |= GST_ELEMENT_REGISTER (tensorsrc, plugin);
  ok |= GST_ELEMENT_REGISTER (tensordebug, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorop, plugin);
  ok |= GST_ELEMENT_REGISTER (npydec, plugin);
  ok |= GST_ELEMENT_REGISTER (npyenc, plugin);
  ok |= GST_ELEMENT_REGISTER (tensormatmul, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorconvert, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorview, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorwindow, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorreduce, plugin);
  ok |= GST_ELEMENT_REGISTER (tensornormalize, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorsplit, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorstack, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorconcat, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorcombine, plugin);
  ok |= GST_ELEMENT_REGISTER (tensorcompare, plugin);
  ok |= GST_TYPE_FIND_REGISTER (npy, plugin);
  return ok;
}

#define PACKAGE "gst-tensor"
GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, tensor,
    "Tensors as first-class buffers: sources, math, views and .npy files",
    plugin_init, GST_TENSOR_VERSION, "LGPL", "gst-tensor", "https://example.invalid/gst-tensor")
