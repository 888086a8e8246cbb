#!/usr/bin/env bash
# Sets everything up and runs AsmEvo's main job on a bundled example.
# For now the main job is `inspect` (recovering what a kernel binary is); later issues make it `optimize`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
build="${ASMEVO_BUILD_DIR:-$here/out}"
example="$build/corpus/hip/gfx942/softmax.co"
echo "== asmevo inspect $example"
"$build/cli/asmevo" inspect "$example"
