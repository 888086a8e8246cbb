// VOP1/VOP2/VOP3 integer and bitwise operations (ISA "Vector ALU Operations"). Per-lane bodies only;
// operand reads, exec masking and VCC/SGPR-mask outputs are the framework's (emu/alu.h).
#include <bit>

#include "emu/alu.h"
#include "emu/semantics/int_units.h"

namespace asmevo::emu::sem {

void register_vop_int(Registry& r) {
  EmuUnits units{r};
  int_valu_units(units);  // the generic units (emu/semantics/int_units.h)
  // Not generic (yet): count-leading/trailing-zero and 128-bit intermediate products; the prover
  // models them as uninterpreted functions (docs/prove.md).
  valu<[](u32 a) { return a ? static_cast<u32>(std::countr_zero(a)) : ~0u; }>(r, "v_ffbl_b32");
  valu<[](u32 a) { return a ? static_cast<u32>(std::countl_zero(a)) : ~0u; }>(r, "v_ffbh_u32");
  valu<[](u32 a, u32 b, u64 c) {
    unsigned __int128 t = static_cast<unsigned __int128>(u64(a) * b) + c;
    return Carry<u64>{static_cast<u64>(t), (t >> 64) != 0};
  }>(r, "v_mad_u64_u32");
  valu<[](i32 a, i32 b, i64 c) {
    __int128 t = static_cast<__int128>(i64(a) * b) + c;
    return Carry<i64>{static_cast<i64>(t), (t >> 64) != 0 && (t >> 64) != -1};
  }>(r, "v_mad_i64_i32");
  // v_mbcnt: D = S1 + popcount(S0 & mask of lanes below this one) — needs the lane index: see lane.cpp.
}

}  // namespace asmevo::emu::sem
