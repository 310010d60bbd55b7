# Sourced by the example pipelines: use the plugin from the build tree when
# there is one (an installed plugin is found by GStreamer as usual).
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${GST_TENSOR_BUILD:-}" ]; then
  GST_TENSOR_BUILD=$top/build
fi
if [ -d "$GST_TENSOR_BUILD/elements" ]; then
  export GST_PLUGIN_PATH="$GST_TENSOR_BUILD/elements${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
fi
