#!/bin/sh
# capture -> verify -> optimize -> substitute, end to end on a corpus/apps program (stencil_2d):
# the program must validate itself with the optimized code object in place, and an ABI-incompatible
# "replacement" must be refused. Usage: capture_replace.sh ASMEVO APPS_DIR SCRATCH_DIR
set -eu
asmevo=$1 apps=$2 work=$3
rm -rf "$work" && mkdir -p "$work/opt" "$work/bad"
"$asmevo" capture -o "$work/cap" --max 1 --kernel stencil -- "$apps/stencil_2d" | grep -q "PASSED: stencil_2d"
grep -q '"schema": "asmevo.capture/1"' "$work/cap/capture.json"
obj=$(ls "$work"/cap/objects/*.co)
spec=$(ls "$work"/cap/launches/*/launch.yaml)
[ "$(ls "$work"/cap/launches | wc -l)" = 1 ] || { echo "expected one captured launch (--max 1)"; exit 1; }
grep -q "expect: arg1.out.npy" "$spec"
"$asmevo" verify "$obj" "$obj" --launch "$spec" | grep -q "verdict: EQUIVALENT"
"$asmevo" optimize "$obj" --kernel _Z7stencilPKfPfii --launch "$spec" -o "$work/opt/$(basename "$obj")" --db "$work/run.sqlite" \
  --budget 20 --seed 1 --no-report > "$work/optimize.txt"
cat "$work/optimize.txt"
"$asmevo" exec --replace "$work/opt" -- "$apps/stencil_2d" > "$work/exec.out" 2> "$work/exec.err"
cat "$work/exec.out" "$work/exec.err"
grep -q "PASSED: stencil_2d" "$work/exec.out"
grep -q "replaced by $work/opt/$(basename "$obj")" "$work/exec.err"
grep -q "\[replaced: " "$work/exec.err"
# Another program's code object under this hash: abi-diff breaks, the original runs, still PASSED.
"$asmevo" capture -o "$work/cap2" -- "$apps/vector_add" > /dev/null
cp "$work"/cap2/objects/*.co "$work/bad/$(basename "$obj")"
"$asmevo" exec --replace "$work/bad" -- "$apps/stencil_2d" > "$work/bad.out" 2> "$work/bad.err"
grep -q "PASSED: stencil_2d" "$work/bad.out"
grep -q "ASMEVO_REPLACE: refusing" "$work/bad.err"
echo "capture_replace: OK"
