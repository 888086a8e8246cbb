#include "timing/inst_info.h"

#include <cctype>
#include <cstdio>
#include <fmt/format.h>
#include <string_view>

#include "check/isa.h"
#include "support/error.h"

namespace asmevo::timing::sim {

using program::InstClass;

namespace {

Range unify(const program::RegRange& r, unsigned accum_offset) {
  if (r.file == program::RegFile::VGPR) return {static_cast<uint16_t>(r.first), static_cast<uint16_t>(r.count)};
  if (r.file == program::RegFile::AGPR) return {static_cast<uint16_t>(accum_offset + r.first), static_cast<uint16_t>(r.count)};
  return {};
}

double valu_flops_per_lane(std::string_view m) {
  static constexpr std::string_view kNoFlop[] = {"v_cmp", "v_cvt", "v_mov", "v_cndmask", "v_readlane", "v_readfirstlane",
                                                 "v_writelane", "v_accvgpr", "v_frexp", "v_class", "v_pack"};
  for (auto p : kNoFlop)
    if (m.starts_with(p)) return 0;
  const bool flt = m.find("_f32") != m.npos || m.find("_f16") != m.npos || m.find("_f64") != m.npos || m.find("bf16") != m.npos;
  if (!flt) return 0;
  double f = 1;
  for (auto p : {"fma", "mac", "mad", "dot"})
    if (m.find(p) != m.npos) f = 2;
  if (m.starts_with("v_pk_")) f *= 2;
  return f;
}

// 2*M*N*K per block, blocks = result elements / (M*N): "v_mfma_f32_32x32x8f16" with 16 result VGPRs -> 16384.
double mfma_flops(std::string_view m, unsigned dst_regs) {
  unsigned M = 0, N = 0, K = 0;
  for (size_t p = 0; p < m.size(); ++p) {
    if (!std::isdigit(static_cast<unsigned char>(m[p])) || (p && m[p - 1] != '_')) continue;
    if (std::sscanf(std::string(m.substr(p)).c_str(), "%ux%ux%u", &M, &N, &K) == 3) break;
    M = N = K = 0;
  }
  if (!M || !N || !K) return 0;
  const bool f64 = m.starts_with("v_mfma_f64");
  const double elems = dst_regs * 64.0 / (f64 ? 2 : 1);
  return 2.0 * M * N * K * (elems / (M * N));
}

}  // namespace

StaticInst classify(const emu::ExecInst& in, codeobj::Arch arch, unsigned accum_offset, const std::string& kernel) {
  const program::Instruction& r = *in.raw;
  StaticInst s;
  const std::string_view m = r.mnemonic;
  auto unsupported = [&]() -> Error {
    return Error(fmt::format("the timing model cannot time {} (instruction class {})", r.mnemonic, program::class_name(r.cls)),
                 fmt::format("kernel {}, pc 0x{:x}: {}", kernel, r.address, r.text),
                 "add the instruction's timing class to timing/model.cpp classify() with a cited cost");
  };
  switch (r.cls) {
    case InstClass::SALU: s.kind = Kind::Salu; break;
    case InstClass::VALU:
    case InstClass::VOP3P:
      s.kind = check::is_trans(r) ? Kind::Trans : Kind::Valu;
      s.flops_per_lane = valu_flops_per_lane(m);
      break;
    case InstClass::MFMA: {
      auto info = check::mfma_info(r, arch);
      if (!info || info->passes <= 0) throw unsupported();
      s.kind = Kind::Mfma;
      s.passes = info->passes;
      s.xdl = info->xdl;
      s.dgemm16 = info->dgemm && m.find("16x16") != m.npos;
      // S5: CDNA3 F32-input MFMAs and all F64 MFMAs cannot co-execute with VALU.
      const bool f32_in = m.ends_with("f32") && !m.ends_with("xf32") && arch != codeobj::Arch::gfx90a;
      s.coexec = !info->dgemm && !f32_in;
      auto ops = check::mfma_operands(r);
      s.dst = unify(ops.dst, accum_offset), s.a = unify(ops.a, accum_offset), s.b = unify(ops.b, accum_offset);
      s.c = unify(ops.c, accum_offset);
      s.mfma_flops = mfma_flops(m, ops.dst.count);
      break;
    }
    case InstClass::SMEM: s.kind = Kind::Smem; s.store = r.may_store && !r.may_load; break;
    case InstClass::VMEMLoad: case InstClass::VMEMStore: case InstClass::VMEMAtomic: case InstClass::VMEMCache:
    case InstClass::FLAT: case InstClass::GLOBAL: case InstClass::SCRATCH:
      s.kind = Kind::Vmem;
      s.flat = r.cls == InstClass::FLAT;
      s.atomic = r.may_load && r.may_store;
      s.store = r.may_store && !r.may_load;
      break;
    case InstClass::DS: s.kind = Kind::Lds; break;
    case InstClass::Branch: s.kind = r.is_return || m.starts_with("s_endpgm") ? Kind::EndPgm : Kind::Branch; break;
    case InstClass::Waitcnt: {
      auto w = check::decode_waitcnt(r, arch);
      if (!w) throw unsupported();
      s.kind = Kind::Waitcnt;
      s.wait_vm = w->count[check::kVmCnt];
      s.wait_lgkm = w->count[check::kLgkmCnt];
      break;
    }
    case InstClass::Barrier: s.kind = Kind::Barrier; break;
    case InstClass::Nop: s.kind = Kind::Nop; s.nop_states = static_cast<unsigned>(in.simm & 0xf) + 1; break;
    case InstClass::Other:
      if (m == "s_sleep") { s.kind = Kind::Sleep; s.sleep = static_cast<unsigned>(in.simm & 0x7f); break; }
      if (m == "s_setprio") { s.kind = Kind::Setprio; s.prio = static_cast<int>(in.simm & 3); break; }
      throw unsupported();
    default: throw unsupported();
  }
  return s;
}
}  // namespace asmevo::timing::sim
