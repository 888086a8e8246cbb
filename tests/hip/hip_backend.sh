#!/bin/sh
# verify/time --backend hip against libasmevo_hip, loaded by dlopen like any HIP runtime: the same
# kernel is EQUIVALENT, a patched one (v_add -> v_sub) is DIFFERENT (exit 10), timing says MEASURED,
# aimed inputs run on it, and optimize searches with it.
# Usage: hip_backend.sh ASMEVO SOURCE_DIR LIBRARY SCRATCH_DIR
set -eu
asmevo=$1 src=$2 lib=$3 work=$4
T=$src/corpus/triton
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASMEVO_HIP_LIBRARY="$lib"
"$asmevo" verify "$T/gfx942/vector_add_kernel.hsaco" "$T/gfx942/vector_add_kernel.hsaco" --launch "$T/launch/vector_add_kernel.yaml" \
  --backend hip | tee same.txt
grep -q "5 done (measured)" same.txt && grep -q "verdict: EQUIVALENT" same.txt
# A GPU runs whole grids: the perf launch is not sampled there, and the report says so.
grep -q "perf launch: perf stream_4m = .*all 4096 workgroups run" same.txt
# Aimed inputs are made on the emulator (it observes K0) and run on the runtime.
sed '/^perf:/,$d' "$T/launch/softmax_kernel.yaml" > softmax_small.yaml
"$asmevo" verify "$T/gfx942/softmax_kernel.hsaco" "$T/gfx942/softmax_kernel.hsaco" --launch softmax_small.yaml --backend hip | tee aimed.txt
grep -q "verdict: EQUIVALENT" aimed.txt && grep -q "evidence: all runs: [0-9]* aimed input" aimed.txt
"$asmevo" patch "$T/gfx942/vector_add_kernel.hsaco" --kernel vector_add_kernel --at 0x18d0 --absolute --asm "v_sub_f32_e32 v4, v4, v8" \
  -o bad.hsaco > /dev/null
rc=0
"$asmevo" verify "$T/gfx942/vector_add_kernel.hsaco" bad.hsaco --launch "$T/launch/vector_add_kernel.yaml" --backend hip > bad.txt || rc=$?
cat bad.txt
[ "$rc" = 10 ] && grep -q "verdict: DIFFERENT" bad.txt
"$asmevo" time "$T/gfx942/vector_add_kernel.hsaco" --launch "$T/launch/vector_add_kernel.yaml" --backend hip --warmup 1 --repetitions 3 \
  | tee time.txt
grep -q "MEASURED with HIP events" time.txt && grep -q "over 3 runs after 1 warm-up" time.txt
# optimize --backend hip: candidates verified on the runtime and timed with its events (MEASURED),
# on the small launch (a v2 spec) where the search finds a win; the result re-verifies on the runtime.
sed '/^perf:/,$d' "$T/launch/vector_add_kernel.yaml" > vector_add_small.yaml
"$asmevo" optimize "$T/gfx942/vector_add_kernel.hsaco" --launch vector_add_small.yaml -o opt.hsaco --backend hip --warmup 1 --repetitions 3 \
  --budget 20 --seed 1 --no-report | tee optimize.txt
grep -q "times are MEASURED with HIP events" optimize.txt
grep -q "figures: measured time (median of 3 HIP-event runs after 1 warm-up" optimize.txt
grep -q "^vector_add_kernel .* EQUIVALENT " optimize.txt
"$asmevo" verify "$T/gfx942/vector_add_kernel.hsaco" opt.hsaco --launch vector_add_small.yaml --backend hip | grep -q "verdict: EQUIVALENT"
echo "hip_backend: OK"
