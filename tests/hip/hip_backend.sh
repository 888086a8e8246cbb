#!/bin/sh
# verify/time --backend hip against libasmevo_hip, loaded by dlopen like any HIP runtime: the same
# kernel is EQUIVALENT, a patched one (v_add -> v_sub) is DIFFERENT (exit 10), timing says MEASURED.
# Usage: hip_backend.sh ASMEVO SOURCE_DIR LIBRARY SCRATCH_DIR
set -eu
asmevo=$1 src=$2 lib=$3 work=$4
T=$src/corpus/triton
rm -rf "$work" && mkdir -p "$work" && cd "$work"
export ASMEVO_HIP_LIBRARY="$lib"
"$asmevo" verify "$T/gfx942/vector_add_kernel.hsaco" "$T/gfx942/vector_add_kernel.hsaco" --launch "$T/launch/vector_add_kernel.yaml" \
  --backend hip | tee same.txt
grep -q "4 done (measured)" same.txt && grep -q "verdict: EQUIVALENT" same.txt
"$asmevo" patch "$T/gfx942/vector_add_kernel.hsaco" --kernel vector_add_kernel --at 0x18d0 --absolute --asm "v_sub_f32_e32 v4, v4, v8" \
  -o bad.hsaco > /dev/null
rc=0
"$asmevo" verify "$T/gfx942/vector_add_kernel.hsaco" bad.hsaco --launch "$T/launch/vector_add_kernel.yaml" --backend hip > bad.txt || rc=$?
cat bad.txt
[ "$rc" = 10 ] && grep -q "verdict: DIFFERENT" bad.txt
"$asmevo" time "$T/gfx942/vector_add_kernel.hsaco" --launch "$T/launch/vector_add_kernel.yaml" --backend hip --warmup 1 --repetitions 3 \
  | tee time.txt
grep -q "MEASURED with HIP events" time.txt && grep -q "over 3 runs after 1 warm-up" time.txt
echo "hip_backend: OK"
