# Sourced by the example pipelines: use the plugin from the build tree when
# there is one (an installed plugin is found by GStreamer as usual).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${GST_TENSOR_BUILD:-}" ]; then
  GST_TENSOR_BUILD=$top/build
fi
if [ -d "$GST_TENSOR_BUILD/elements" ]; then
  export GST_PLUGIN_PATH="$GST_TENSOR_BUILD/elements${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
# The Python package (python/gsttensor) and the GstTn typelib it loads,
# from the source and build trees (meson devenv -C BUILD sets the same).
if [ -f "$GST_TENSOR_BUILD/gst-libs/gst/tensor/GstTn-1.0.typelib" ]; then
  export PYTHONPATH="$top/python${PYTHONPATH:+:$PYTHONPATH}"
  export GI_TYPELIB_PATH="$GST_TENSOR_BUILD/gst-libs/gst/tensor${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
  export LD_LIBRARY_PATH="$GST_TENSOR_BUILD/gst-libs/gst/tensor${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
