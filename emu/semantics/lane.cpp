// Cross-lane scalar<->vector moves and lane counting: v_readlane_b32, v_writelane_b32,
// v_readfirstlane_b32, v_mbcnt_lo/hi_u32_b32. These ignore or read EXEC specially, so they are
// hand-written units rather than per-lane lambdas.
#include <bit>

#include "emu/alu.h"

namespace asmevo::emu::sem {
namespace {

// v_readlane_b32 SDST, VSRC0, SSRC1: SDST = VSRC0[SSRC1[5:0]] (ignores EXEC).
void v_readlane_b32(ExecContext&, Wave& w, const ExecInst& in) {
  unsigned lane = static_cast<unsigned>(scalar_bits(w, in.src[1]) & 63);
  write_scalar(w, in.dst[0], w.v[in.src[0].index][lane], 1);
}
// v_readfirstlane_b32 SDST, VSRC0: the lowest active lane (lane 0 when EXEC is 0).
void v_readfirstlane_b32(ExecContext&, Wave& w, const ExecInst& in) {
  uint64_t e = w.exec();
  unsigned lane = e ? static_cast<unsigned>(std::countr_zero(e)) : 0;
  uint32_t v = in.src[0].kind == Operand::VGPR ? w.v[in.src[0].index][lane] : static_cast<uint32_t>(scalar_bits(w, in.src[0]));
  write_scalar(w, in.dst[0], v, 1);
}
// v_writelane_b32 VDST, SSRC0, SSRC1: VDST[SSRC1[5:0]] = SSRC0 (ignores EXEC).
void v_writelane_b32(ExecContext&, Wave& w, const ExecInst& in) {
  unsigned lane = static_cast<unsigned>(scalar_bits(w, in.src[1]) & 63);
  w.v[in.dst[0].index][lane] = static_cast<uint32_t>(scalar_bits(w, in.src[0]));
}
// v_mbcnt_lo_u32_b32 D, S0, S1: D = S1 + popcount(S0 & lanes-below-this-lane mask [31:0]).
template <bool Hi> void v_mbcnt(ExecContext& ctx, Wave& w, const ExecInst& in) {
  alignas(64) u32 s0[kWaveSize], s1[kWaveSize], d[kWaveSize];
  read_lanes(ctx, w, in, 0, s0);
  read_lanes(ctx, w, in, 1, s1);
  for (unsigned l = 0; l < kWaveSize; ++l) {
    uint64_t below = (l == 0) ? 0 : (~0ull >> (64 - l));
    u32 m = Hi ? static_cast<u32>(below >> 32) : static_cast<u32>(below);
    d[l] = s1[l] + static_cast<u32>(std::popcount(s0[l] & m));
  }
  write_lanes<u32>(w, in, in.dst[0], d, w.exec());
}

}  // namespace

void register_lane(Registry& r) {
  custom(r, "v_readlane_b32", v_readlane_b32, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32});
  custom(r, "v_readfirstlane_b32", v_readfirstlane_b32, Category::Vector, {Ty::B32}, {Ty::B32});
  custom(r, "v_writelane_b32", v_writelane_b32, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32});
  custom(r, "v_mbcnt_lo_u32_b32", v_mbcnt<false>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32});
  custom(r, "v_mbcnt_hi_u32_b32", v_mbcnt<true>, Category::Vector, {Ty::B32}, {Ty::B32, Ty::B32});
}

}  // namespace asmevo::emu::sem
