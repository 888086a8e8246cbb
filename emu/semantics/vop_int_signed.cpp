// gfx9 VOP3-only signed integer add/sub (ISA "VOP3A": V_ADD_I32 D = S0 + S1, V_SUB_I32 D = S0 - S1,
// 32-bit wrap-around, no carry out). Their `clamp` saturates to the signed range; these units do
// not implement it, so `clamp` on them is refused at pre-decode (kIntResult without kIntClampOk).
#include "emu/alu.h"

namespace asmevo::emu::sem {

void register_vop_int_signed(Registry& r) {
  valu<[](u32 a, u32 b) { return a + b; }>(r, "v_add_i32");
  valu<[](u32 a, u32 b) { return a - b; }>(r, "v_sub_i32");
}

}  // namespace asmevo::emu::sem
