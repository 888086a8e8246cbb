#!/usr/bin/env bash
# Sets everything up (scripts/setup.sh) and runs every test with CTest.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
build="${ASMEVO_BUILD_DIR:-$here/out}"
cd "$build"
ctest --output-on-failure -j "$(nproc)" "$@"
