// One definition, two interpretations: every generic unit (emu/semantics/int_units.h) computes the
// same thing as the emulator's concrete instantiation and as the prover's Z3 terms, on random
// live-in states (edges biased: 0, all-ones, sign bit, small shift amounts).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "emu/registry.h"
#include "prove/prove.h"

namespace asmevo::prove {
namespace {

std::string reg(bool vector, emu::Ty t, unsigned base) {
  const char* p = vector ? "v" : "s";
  if (t == emu::Ty::Mask) return fmt::format("s[{}:{}]", 20 + base, 21 + base);
  if (emu::ty_dwords(t) == 2) return fmt::format("{}[{}:{}]", p, 10 + 2 * base, 11 + 2 * base);
  return fmt::format("{}{}", p, 1 + base);
}

// An instruction line exercising `e` with register operands (an immediate for SOPK's K).
std::vector<std::string> lines_for(const emu::SemanticEntry& e) {
  const bool vector = e.stem.starts_with("v_");
  const bool sopk = e.stem.find("k_") != std::string::npos && e.stem.starts_with("s_") && e.stem != "s_bitcmp";
  std::vector<std::string> out;
  for (const char* k : {"0x8123", "0x7f"}) {
    std::vector<std::string> ops;
    if (e.flags & emu::kDstIsSrc0) {
      ops.push_back("s40");
    } else {
      for (unsigned d = 0; d < e.ndst; ++d) {
        if (e.dst[d] == emu::Ty::Mask) ops.push_back("s[30:31]");
        else if (emu::ty_dwords(e.dst[d]) == 2) ops.push_back(vector ? "v[40:41]" : "s[40:41]");
        else ops.push_back(vector ? "v40" : "s40");
      }
    }
    // v_fmac/v_mac: the accumulator is the destination; v_madak/v_fmaak take a literal last,
    // v_madmk/v_fmamk in the middle.
    const unsigned nsrc = e.nsrc - ((e.flags & emu::kDstIsAccum) ? 1 : 0);
    const bool ak = e.stem.ends_with("ak_f32"), mk = e.stem.ends_with("mk_f32");
    for (unsigned i = (e.flags & emu::kDstIsSrc0) ? 1 : 0; i < nsrc; ++i) {
      const bool last = i + 1 == nsrc;
      if (sopk && last) ops.push_back(k);
      else if ((ak && last) || (mk && i == 1)) ops.push_back("0x40490fdb");
      else ops.push_back(reg(vector && e.src[i] != emu::Ty::Mask, e.src[i], i));
    }
    std::string line = e.stem;
    for (size_t i = 0; i < ops.size(); ++i) line += (i ? ", " : " ") + ops[i];
    out.push_back(line);
    // (The float units read scalar sources through the same code as the integer ones.)
    const bool fp = e.nsrc > 0 && (e.src[0] == emu::Ty::F32 || e.src[0] == emu::Ty::F64);
    if (vector && e.nsrc > 0 && e.src[0] != emu::Ty::Mask && !ak && !mk && !fp) {  // a scalar (broadcast) source 0 (not with a literal: one constant bus)
      std::string l2 = e.stem;
      ops[e.ndst] = reg(false, e.src[0], 3);
      for (size_t i = 0; i < ops.size(); ++i) l2 += (i ? ", " : " ") + ops[i];
      out.push_back(l2);
    }
    if (!sopk) break;
  }
  return out;
}

TEST(GenericAgree, EveryGenericUnitAgreesWithTheEmulator) {
  const auto stems = generic_unit_stems();
  ASSERT_GE(stems.size(), 300u) << "the generic families shrank";
  unsigned lines = 0;
  for (const std::string& stem : stems) {
    const emu::SemanticEntry* e = emu::Registry::get().find(stem);
    ASSERT_NE(e, nullptr) << stem << " is generic for the prover but not registered in the emulator";
    for (const std::string& line : lines_for(*e)) {
      SCOPED_TRACE(line);
      EXPECT_EQ(disagreement(line, 0x5eed + lines, 2), "") << line;
      ++lines;
    }
  }
  EXPECT_GE(lines, stems.size());
}

}  // namespace
}  // namespace asmevo::prove

namespace asmevo::prove {
namespace {

// The branch conditions the prover follows (prove/units.cpp branch_condition) against the
// emulator's branch units (emu/semantics/sopp.cpp): the one part of the ISA the prover restates.
TEST(GenericAgree, BranchConditionsAgreeWithTheEmulator) {
  for (const char* b : {"s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz", "s_cbranch_execz",
                        "s_cbranch_execnz"})
    EXPECT_EQ(disagreement(std::string(b) + " BB0_7", 0x5eed, 60), "") << b;
}

}  // namespace
}  // namespace asmevo::prove

namespace asmevo::prove {
namespace {

// Packed f32 (float_units.h pk_f32_units): the halves op_sel/op_sel_hi pick, neg_lo/neg_hi, SGPR
// pairs and constants are each framework's own code, so they are run here in every form.
TEST(GenericAgree, PackedF32AgreesWithTheEmulator) {
  for (const char* line : {"v_pk_mul_f32 v[40:41], v[2:3], v[4:5]", "v_pk_add_f32 v[40:41], v[2:3], v[4:5] op_sel:[1,0] op_sel_hi:[0,1]",
                           "v_pk_fma_f32 v[40:41], v[2:3], v[4:5], v[6:7] neg_lo:[1,0,1] neg_hi:[0,1,1]",
                           "v_pk_fma_f32 v[2:3], v[2:3], s[4:5], v[2:3] op_sel_hi:[1,0,1]", "v_pk_add_f32 v[40:41], v[2:3], 1.0 op_sel_hi:[1,0]",
                           "v_pk_mul_f32 v[40:41], v[2:3], v[2:3] op_sel:[0,1] op_sel_hi:[1,0]"}) {
    SCOPED_TRACE(line);
    EXPECT_EQ(disagreement(line, 0x9e37, 6), "") << line;
  }
}

}  // namespace
}  // namespace asmevo::prove

namespace asmevo::prove {
namespace {

// The cross-lane units the prover reads on its own (prove/units.cpp; emu/semantics/lane.cpp's are
// hand-written): readfirstlane under random EXEC (and EXEC 0 through the biased values), readlane
// and writelane at a lane from an SGPR or a constant, mbcnt lo/hi.
TEST(GenericAgree, LaneUnitsAgreeWithTheEmulator) {
  for (const char* line : {"v_readfirstlane_b32 s40, v2", "v_readlane_b32 s40, v2, s3", "v_readlane_b32 s40, v2, 37", "v_writelane_b32 v2, s4, s3",
                           "v_writelane_b32 v2, 7, 63", "v_mbcnt_lo_u32_b32 v40, s4, v2", "v_mbcnt_hi_u32_b32 v40, -1, v2",
                           "v_mbcnt_lo_u32_b32 v40, -1, 0"}) {
    SCOPED_TRACE(line);
    EXPECT_EQ(disagreement(line, 0x1a7e, 12), "") << line;
  }
}

}  // namespace
}  // namespace asmevo::prove

namespace asmevo::prove {
namespace {

// v_cndmask_b32's abs/neg (emu/generic.h sign_bit_mods): both readings apply the same definition to
// VGPR, SGPR-mask and inline-constant sources, on the biased values (±0, NaNs, denormals, bit 31 set).
TEST(GenericAgree, CndmaskSignModifiersAgreeWithTheEmulator) {
  for (const char* line : {"v_cndmask_b32_e64 v40, -v2, |v3|, s[20:21]", "v_cndmask_b32_e64 v40, -|v2|, -v3, vcc",
                           "v_cndmask_b32_e64 v40, neg(1.0), -|v3|, s[20:21]"}) {
    SCOPED_TRACE(line);
    EXPECT_EQ(disagreement(line, 0x51a9, 8), "") << line;
  }
}

}  // namespace
}  // namespace asmevo::prove
