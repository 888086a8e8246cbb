#!/usr/bin/env bash
# Sets everything up and runs AsmEvo's main job on a bundled example: `asmevo optimize` on the
# Triton-built vector_add_kernel (corpus/triton, gfx942), then an independent `asmevo verify` of the
# result against the original. Every time it prints is MODELED (no AMD GPU here); the equivalence is
# checked on AsmEvo's emulator. Outputs go to out/demo/ (replaced on every run). The figures are for
# the spec's perf launch (a 4M-element vector add, the size such kernels run at), not for the small
# launches verification uses.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
build="${ASMEVO_BUILD_DIR:-$here/out}"
asmevo="$build/cli/asmevo"
example="$here/corpus/triton/gfx942/vector_add_kernel.hsaco"
spec="$here/corpus/triton/launch/vector_add_kernel.yaml"
demo="$build/demo"
rm -rf "$demo"
mkdir -p "$demo"
echo "== asmevo time $example (the spec's perf launch: a realistic size)"
"$asmevo" time "$example" --launch "$spec"
echo
echo "== asmevo optimize $example"
"$asmevo" optimize "$example" --launch "$spec" -o "$demo/vector_add_kernel.opt.co" --budget 60 --seed 1
echo
echo "== asmevo verify (an independent check of the written object against the original)"
"$asmevo" verify "$example" "$demo/vector_add_kernel.opt.co" --launch "$spec"
echo
echo "== asmevo time of the optimized object on the same perf launch"
"$asmevo" time "$demo/vector_add_kernel.opt.co" --launch "$spec"
echo
echo "Open $demo/vector_add_kernel.opt.html for the report (speedup over candidates, accepted edits as diffs)."
