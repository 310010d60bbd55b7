#!/usr/bin/env bash
# Installs what building and testing gst-tensor needs on Debian 12, only
# when something is missing (apt-get update runs at most once).
set -euo pipefail

pkgs=(gcc meson ninja-build pkg-config libglib2.0-dev libgstreamer1.0-dev
  libgstreamer-plugins-base1.0-dev gstreamer1.0-tools gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good liborc-0.4-dev python3 python3-numpy python3-gi
  gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0
  gstreamer1.0-plugins-bad
  gobject-introspection libgirepository1.0-dev python3-gst-1.0 python3-pytest
  gi-docgen "$@")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "deps: installing ${missing[*]}"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
