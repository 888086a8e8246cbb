#!/usr/bin/env bash
# Re-runs the exhaustive and constructed-input checks behind bench/mutants/results/gfx942-issue16-s6-num.txt
# (emulated, gfx942). Usage: check.sh BUILD_DIR [WORK_DIR]   e.g. check.sh out /tmp/s6num
# Each line printed: kernel operator address, the verdict of `asmevo verify` K0 vs the mutant on the
# exhaustive (or constructed) input, and the expected one. Exit 1 when any differs from expected.
# The tanh_f32 check runs 7 launches of 2^24 elements (about 15 CPU minutes); SKIP_TANH=1 skips it.
set -euo pipefail
build=${1:?usage: check.sh BUILD_DIR [WORK_DIR]}
work=${2:-$(mktemp -d)}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
asmevo=$build/cli/asmevo
hip=$build/corpus/hip/gfx942
tri=$root/corpus/triton/gfx942
python3 "$here/make_inputs.py" "$work"
cd "$work"
status=0

patch() {  # patch IN KERNEL OUT ADDR ASM [REPLACE]
  "$asmevo" patch "$1" --kernel "$2" --absolute --at "$4" --asm "$5" --replace "${6:-1}" -o "$3" >/dev/null
}
verdict() {  # verdict K0 K1 SPEC...: EQUIVALENT / DIFFERENT / ...
  local k0=$1 k1=$2
  shift 2
  local v=EQUIVALENT
  for s in "$@"; do
    local r
    r=$("$asmevo" verify "$k0" "$k1" --launch "$s" --threads 0 2>&1 | sed -n 's/^verdict: \([A-Z]*\).*/\1/p')
    [ "$r" = EQUIVALENT ] || { v=${r:-ERROR}; break; }
  done
  echo "$v"
}
report() {  # report NAME GOT EXPECTED
  printf '%-52s %-11s (expected %s)\n' "$1" "$2" "$3"
  [ "$2" = "$3" ] || status=1
}

# gelu_f16 and silu_bf16: y[i] = f(x[i]), every 16-bit x in one launch.
g=$hip/gelu.co
patch "$g" gelu_f16 m.co 0x1a28 "v_cmp_ge_f32_e32 vcc, s4, v5"; report "gelu_f16 compare-flip 0x1a28" "$(verdict "$g" m.co gelu_f16.yaml)" EQUIVALENT
patch "$g" gelu_f16 m.co 0x1a20 "v_mov_b32_e32 v6, 0x42800001"; report "gelu_f16 imm 0x1a20" "$(verdict "$g" m.co gelu_f16.yaml)" EQUIVALENT
patch "$g" gelu_f16 m.co 0x1a14 "v_add_f32_e32 v6, v6, v5"; report "gelu_f16 retarget 0x1a14" "$(verdict "$g" m.co gelu_f16.yaml)" EQUIVALENT
patch "$g" gelu_f16 m.co 0x1a10 "v_add_f32_e32 v5, v6, v5; v_sub_f32_e32 v5, v5, v7" 2; report "gelu_f16 swap-adjacent 0x1a10" "$(verdict "$g" m.co gelu_f16.yaml)" EQUIVALENT
s=$hip/silu.co
patch "$s" silu_bf16 m.co 0x199c "s_mov_b32 s0, 0x42ce8ed1"; report "silu_bf16 imm 0x199c" "$(verdict "$s" m.co silu_bf16.yaml)" EQUIVALENT
patch "$s" silu_bf16 m.co 0x19f0 "v_mul_f32_e32 v7, v6, v5; v_fmac_f32_e32 v5, v7, v5" 2; report "silu_bf16 swap-adjacent 0x19f0" "$(verdict "$s" m.co silu_bf16.yaml)" EQUIVALENT

# silu_and_mul_kernel: out = bf16(s * up), s = silu(gate) in f32. Two probes applied to K0 and the
# mutant alike store s's high half (v_mul -> v_mov) and its low half (v_mul -> v_lshlrev 16) without
# rounding (v_add3 -> + 0) or NaN handling (v_cmp_o -> v_cmp_eq v1, v1): s equal for every gate
# means the output equal for every up.
sam=$tri/silu_and_mul_kernel.hsaco
K=silu_and_mul_kernel
probes() {  # probes IN PREFIX: PREFIX_hi.co, PREFIX_lo.co
  patch "$1" $K p1.co 0x1844 "v_cmp_eq_u32_e32 vcc, v1, v1"
  patch p1.co $K p2.co 0x1848 "v_add3_u32 v1, v1, 0, 0"
  patch p2.co $K "$2_hi.co" 0x1838 "v_mov_b32_e32 v1, v2"
  patch p2.co $K "$2_lo.co" 0x1838 "v_lshlrev_b32_e32 v1, 16, v2"
}
probes "$sam" k0
for m in "compare-flip 0x17bc v_cmp_ge_f32_e32 vcc, s7, v8" "imm 0x1780 v_not_b32_e32 v5, 64" "mul-add 0x17b4 v_add_f32_e64 v8, -v2, s3"; do
  read -r op at asm <<<"$m"
  patch "$sam" $K m.co "$at" "$asm"
  probes m.co mp
  got=$(verdict "$sam" m.co silu_and_mul_kernel.yaml)
  [ "$got" = EQUIVALENT ] && got=$(verdict k0_hi.co mp_hi.co silu_and_mul_kernel.yaml)
  [ "$got" = EQUIVALENT ] && got=$(verdict k0_lo.co mp_lo.co silu_and_mul_kernel.yaml)
  report "silu_and_mul_kernel $op $at" "$got" EQUIVALENT
done
# The retarget reads v8 before any write: the mutant with v8 = 0 and with v8 = 0xff25a5a5 (set where
# v6 = 0x7fff was, whose only reader, the NaN select, is made dead by v_cmp_o -> v_cmp_eq) differ.
patch "$sam" $K m.co 0x17b4 "v_mul_f32_e64 v9, -v2, s3"
for v in 0 0xff25a5a5; do
  patch m.co $K r.co 0x1790 "v_mov_b32_e32 v8, $v"
  patch r.co $K "v8_$v.co" 0x1844 "v_cmp_eq_u32_e32 vcc, v1, v1"
done
report "silu_and_mul_kernel retarget 0x17b4 (v8 0 vs <0)" "$(verdict v8_0.co v8_0xff25a5a5.co silu_and_mul_kernel.yaml)" DIFFERENT

# fp8_quant_fn_kernel: the scale amax / 448 for every amax (65536 one-column rows); the midpoint.
fp8=$tri/fp8_quant_fn_kernel.hsaco
patch "$fp8" fp8_quant_fn_kernel m.co 0x1a90 "v_add_f32_e32 v14, v13, v12"; report "fp8_quant_fn_kernel mul-add 0x1a90" "$(verdict "$fp8" m.co fp8_amax.yaml)" EQUIVALENT
patch "$fp8" fp8_quant_fn_kernel m.co 0x1d7c "v_cmp_le_u32_e32 vcc, s23, v9"; report "fp8_quant_fn_kernel compare-flip 0x1d7c" "$(verdict "$fp8" m.co fp8_midpoint.yaml)" DIFFERENT

# argmax_kernel: a tie of the row maximum in one lane's element slot.
am=$tri/argmax_kernel.hsaco
patch "$am" argmax_kernel m.co 0x1850 "v_cmp_ge_f32_e64 s[8:9], v21, v4"; report "argmax_kernel compare-flip 0x1850" "$(verdict "$am" m.co argmax_tie.yaml)" DIFFERENT

# tanh_f32: every input that takes the exp path and uses its result.
if [ "${SKIP_TANH:-0}" != 1 ]; then
  t=$hip/tanh.co
  patch "$t" tanh_f32 m.co 0x19cc "v_cndmask_b32_e32 v5, 1, v5, vcc"
  report "tanh_f32 imm 0x19cc" "$(verdict "$t" m.co tanh_0.yaml tanh_1.yaml tanh_2.yaml tanh_3.yaml tanh_4.yaml tanh_5.yaml tanh_6.yaml)" EQUIVALENT
fi
exit $status
