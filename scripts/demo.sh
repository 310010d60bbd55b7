#!/usr/bin/env bash
# From a fresh Debian 12 machine: install what is missing, build, and run a
# real pipeline of our elements (pipelines/demo.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh build
exec pipelines/demo.sh
