#!/usr/bin/env bash
# meson install into a scratch prefix, then build and run an application
# against it with nothing but pkg-config, and check that GStreamer finds
# the installed plugin.  Usage: check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT

meson install -C "$build" --no-rebuild --quiet --destdir "$dest"
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"))')
libdir=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"))')
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
root=$dest$libdir

# Our .pc, moved under the scratch prefix (GStreamer's stay where they are).
mkdir -p "$dest/pc"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$root/pkgconfig/gst-tensor-1.0.pc" \
  >"$dest/pc/gst-tensor-1.0.pc"
export PKG_CONFIG_PATH=$dest/pc
cc -Wall -Werror -o "$dest/app" "$src/tests/install/app.c" \
  $(pkg-config --cflags --libs gst-tensor-1.0)
LD_LIBRARY_PATH=$root "$dest/app"

# The first example (tests/examples/c), built the same way, against the
# installed plugin.
cc -Wall -Werror -o "$dest/example" "$src/tests/examples/c/appsrc_tensorop.c" \
  $(pkg-config --cflags --libs gst-tensor-1.0 gstreamer-app-1.0)
LD_LIBRARY_PATH=$root GST_PLUGIN_PATH_1_0=$root/gstreamer-1.0 \
  GST_REGISTRY_1_0=$dest/registry.bin "$dest/example"

# The installed Python package and typelib, when introspection is built.
if [ -f "$root/girepository-1.0/GstTn-1.0.typelib" ]; then
  pkgdir=$(find "$dest" -path '*/gsttensor/__init__.py' | head -n 1)
  [ -n "$pkgdir" ] || { echo "gsttensor is not installed" >&2; exit 1; }
  LD_LIBRARY_PATH=$root GI_TYPELIB_PATH=$root/girepository-1.0 \
    PYTHONPATH=$(dirname "$(dirname "$pkgdir")") \
    GST_PLUGIN_PATH_1_0=$root/gstreamer-1.0 GST_REGISTRY_1_0=$dest/registry.bin \
    /usr/bin/python3 "$src/tests/examples/python/appsrc_numpy.py"
fi

# The installed plugin, found through its install directory alone.
LD_LIBRARY_PATH=$root GST_PLUGIN_PATH_1_0=$root/gstreamer-1.0 \
  GST_REGISTRY_1_0=$dest/registry.bin gst-inspect-1.0 tensorsrc >/dev/null
echo "installed plugin and library work"
