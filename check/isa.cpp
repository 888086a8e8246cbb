#include "check/isa.h"

#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <mutex>
#include <regex>

#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::check {

using program::Instruction;
using program::InstClass;
using program::RegFile;
using program::RegRange;

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// The mnemonic without its encoding suffix: "v_exp_f32_e32" -> "v_exp_f32".
std::string_view base_mnemonic(std::string_view m) {
  for (std::string_view suffix : {"_e32", "_e64", "_sdwa", "_dpp"})
    if (ends_with(m, suffix)) return m.substr(0, m.size() - suffix.size());
  return m;
}

// Whole-word search for a modifier token in the operand part of the text ("lds", "gds").
bool has_word(std::string_view text, std::string_view word) {
  size_t pos = text.find(' ');
  while (pos != std::string_view::npos) {
    pos = text.find(word, pos + 1);
    if (pos == std::string_view::npos) return false;
    bool left = pos > 0 && (text[pos - 1] == ' ' || text[pos - 1] == ',');
    size_t end = pos + word.size();
    bool right = end == text.size() || text[end] == ' ' || text[end] == ',';
    if (left && right) return true;
  }
  return false;
}

// Printed operands, split at top-level commas and trimmed: "v1, v[2:3], s[0:3], 0 offen"
// -> {"v1", "v[2:3]", "s[0:3]", "0 offen"}.
std::vector<std::string_view> printed_operands(std::string_view text) {
  std::vector<std::string_view> out;
  size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return out;
  std::string_view rest = text.substr(sp + 1);
  int depth = 0;
  size_t start = 0;
  auto push = [&](size_t end) {
    std::string_view t = rest.substr(start, end - start);
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
    out.push_back(t);
  };
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      push(i);
      start = i + 1;
    }
  }
  push(rest.size());
  return out;
}

std::optional<RegRange> reg_token(std::string_view token) {
  token = token.substr(0, token.find(' '));
  return program::parse_reg(token);
}

struct McInfo {
  std::unique_ptr<llvm::MCInstrInfo> mii;
  McInfo() {
    program::initialize_llvm_amdgpu();
    llvm::Triple triple("amdgcn-amd-amdhsa");
    std::string err;
    const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, err);
    if (!target) throw Error("LLVM has no AMDGPU target: " + err, "check", "", kExitInternal);
    mii.reset(target->createMCInstrInfo());
  }
};

const McInfo& mc_info() {
  static const McInfo info;
  return info;
}

}  // namespace

std::string_view opcode_name(unsigned opcode) {
  const auto& mii = *mc_info().mii;
  if (opcode >= mii.getNumOpcodes()) return {};
  llvm::StringRef n = mii.getName(opcode);
  return {n.data(), n.size()};
}

// ---- Counters ------------------------------------------------------------------------------

const char* counter_name(Counter c) {
  switch (c) {
    case kVmCnt: return "vmcnt";
    case kLgkmCnt: return "lgkmcnt";
    case kExpCnt: return "expcnt";
  }
  return "?";
}

CounterLimits counter_limits(codeobj::Arch) {
  // gfx90a, gfx942 and gfx950 all have ISA major version 9: vmcnt 6 bits, lgkmcnt 4, expcnt 3.
  return CounterLimits{};
}

std::optional<Wait> decode_waitcnt(const Instruction& inst, codeobj::Arch) {
  if (inst.mnemonic != "s_waitcnt") return std::nullopt;
  int64_t imm = 0;
  for (const auto& op : inst.operands)
    if (op.kind == program::Operand::Imm) {
      imm = op.imm;
      break;
    }
  uint32_t v = static_cast<uint32_t>(imm) & 0xffff;
  Wait w;
  w.count[kVmCnt] = (v & 0xf) | (((v >> 14) & 0x3) << 4);
  w.count[kExpCnt] = (v >> 4) & 0x7;
  w.count[kLgkmCnt] = (v >> 8) & 0xf;
  return w;
}

uint16_t encode_waitcnt(const Wait& w) {
  unsigned vm = std::min(w.count[kVmCnt], 63u), exp = std::min(w.count[kExpCnt], 7u),
           lgkm = std::min(w.count[kLgkmCnt], 15u);
  return static_cast<uint16_t>((vm & 0xf) | ((vm >> 4) << 14) | (exp << 4) | (lgkm << 8));
}

std::optional<Wait> parse_waitcnt_text(std::string_view text, const CounterLimits& limits) {
  static const std::regex whole(R"(^\s*s_waitcnt(\s+(.*))?$)");
  static const std::regex field(R"((vmcnt|expcnt|lgkmcnt)\((\d+)\))");
  std::string t(text);
  std::smatch m;
  if (!std::regex_match(t, m, whole)) return std::nullopt;
  Wait w;
  for (int c = 0; c < kNumCounters; ++c) w.count[c] = limits.max[c];
  std::string rest = m[2].matched ? m[2].str() : "";
  if (!rest.empty() && (std::isdigit(static_cast<unsigned char>(rest[0])))) {  // a raw simm16
    uint32_t v = static_cast<uint32_t>(std::stoul(rest, nullptr, 0)) & 0xffff;
    w.count[kVmCnt] = (v & 0xf) | (((v >> 14) & 0x3) << 4);
    w.count[kExpCnt] = (v >> 4) & 0x7;
    w.count[kLgkmCnt] = (v >> 8) & 0xf;
    return w;
  }
  for (auto it = std::sregex_iterator(rest.begin(), rest.end(), field); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    const unsigned n = static_cast<unsigned>(std::stoul((*it)[2]));
    w.count[name == "vmcnt" ? kVmCnt : name == "expcnt" ? kExpCnt : kLgkmCnt] = n;
  }
  return w;
}

std::string waitcnt_text(const Wait& w, const CounterLimits& limits) {
  std::string t;
  for (Counter c : {kVmCnt, kExpCnt, kLgkmCnt})
    if (w.count[c] < limits.max[c]) t += " " + std::string(counter_name(c)) + "(" + std::to_string(w.count[c]) + ")";
  return t.empty() ? "" : "s_waitcnt" + t;
}

// ---- Wait states -----------------------------------------------------------------------------

int wait_states(const Instruction& inst) {
  if (inst.mnemonic == "s_nop") {
    for (const auto& op : inst.operands)
      if (op.kind == program::Operand::Imm) return static_cast<int>(op.imm & 0xf) + 1;
    return 1;
  }
  return 1;
}

// ---- Categories --------------------------------------------------------------------------------

bool is_lds_dma(const Instruction& i) {
  std::string_view m = i.mnemonic;
  if (starts_with(m, "global_load_lds_") || starts_with(m, "scratch_load_lds_")) return true;
  return starts_with(m, "buffer_load_") && has_word(i.text, "lds");
}

bool is_valu(const Instruction& i) {
  switch (i.cls) {
    case InstClass::VALU:
    case InstClass::VOP3P:
    case InstClass::MFMA:
      return true;
    default:
      return is_lds_dma(i);  // LLVM marks LDS DMA loads VALU (GCNHazardRecognizer isLdsDma)
  }
}

bool is_smem(const Instruction& i) { return i.cls == InstClass::SMEM; }

bool is_salu(const Instruction& i) {
  // SIInstrInfo::isSALU covers SOP1/SOP2/SOPC/SOPK/SOPP: every s_* that is not scalar memory.
  return starts_with(i.mnemonic, "s_") && !is_smem(i);
}

bool is_vmem(const Instruction& i) { return program::is_vmem(i.cls); }
bool is_flat(const Instruction& i) { return i.cls == InstClass::FLAT; }
bool is_ds(const Instruction& i) { return i.cls == InstClass::DS; }

bool is_gds(const Instruction& i) {
  if (!is_ds(i)) return false;
  std::string_view m = i.mnemonic;
  if (starts_with(m, "ds_gws_") || starts_with(m, "ds_ordered_count")) return true;
  return has_word(i.text, "gds");
}

bool ds_accesses_lds_memory(const Instruction& i) {
  if (!is_ds(i) || is_gds(i)) return false;
  std::string_view m = i.mnemonic;
  static constexpr std::string_view kNot[] = {"ds_permute_b32", "ds_bpermute_b32", "ds_swizzle_b32", "ds_nop",
                                              "ds_append",      "ds_consume",      "ds_ordered_count"};
  for (auto n : kNot)
    if (m == n) return false;
  return !(starts_with(m, "ds_gws_") || starts_with(m, "ds_read_addtid") || starts_with(m, "ds_write_addtid"));
}

bool is_export(const Instruction& i) { return i.mnemonic == "exp"; }

bool is_trans(const Instruction& i) {
  static constexpr std::string_view kTrans[] = {
      "v_exp_f32",  "v_log_f32",  "v_rcp_f32",  "v_rcp_iflag_f32", "v_rsq_f32",        "v_sqrt_f32",
      "v_sin_f32",  "v_cos_f32",  "v_rcp_f64",  "v_rsq_f64",       "v_sqrt_f64",       "v_exp_legacy_f32",
      "v_log_legacy_f32", "v_rcp_f16", "v_sqrt_f16", "v_rsq_f16", "v_log_f16", "v_exp_f16",
      "v_sin_f16", "v_cos_f16"};
  std::string_view b = base_mnemonic(i.mnemonic);
  return std::find(std::begin(kTrans), std::end(kTrans), b) != std::end(kTrans);
}

bool is_dpp(const Instruction& i) { return ends_with(i.mnemonic, "_dpp"); }
bool is_sdwa(const Instruction& i) { return ends_with(i.mnemonic, "_sdwa"); }
bool is_dot(const Instruction& i) { return starts_with(i.mnemonic, "v_dot"); }
bool is_mfma(const Instruction& i) {
  return (starts_with(i.mnemonic, "v_mfma") && !starts_with(i.mnemonic, "v_mfma_ld_scale")) ||
         starts_with(i.mnemonic, "v_smfmac");
}
bool is_mai(const Instruction& i) { return is_mfma(i) || starts_with(i.mnemonic, "v_accvgpr_"); }
bool is_vcmpx(const Instruction& i) { return starts_with(i.mnemonic, "v_cmpx_"); }

// ---- MFMA -------------------------------------------------------------------------------------

namespace {

struct PassRule {
  const char* regex;
  int passes;       // 0: the f8f6f4 variant (8/4 or 16/8 by cbsz/blgp)
  int f8_passes;
};

// SISchedule.td InstRW rows (regexes over LLVM opcode names), per scheduling model.
// gfx90a: SIDPFullSpeedModel.
const PassRule kGfx90aPasses[] = {
    {"^V_MFMA_.32_4X4X", 2, 0},   {"^V_MFMA_.32_16X16X", 8, 0}, {"^V_MFMA_.32_32X32X", 16, 0},
    {"^V_MFMA_.64_4X4X", 4, 0},   {"^V_MFMA_.64_16X16X", 8, 0},
};
// gfx942: SIDPGFX942FullSpeedModel.
const PassRule kGfx942Passes[] = {
    {"^V_MFMA_.32_4X4X", 2, 0},
    {"^V_MFMA_.32_16X16X8X", 4, 0},
    {"^V_MFMA_.32_16X16X16", 4, 0},
    {"^V_MFMA_.32_16X16X32", 4, 0},
    {"^V_MFMA_.32_16X16X[14][FBI]", 8, 0},
    {"^V_MFMA_.32_32X32X4XF", 8, 0},
    {"^V_MFMA_.32_32X32X8", 8, 0},
    {"^V_MFMA_.32_32X32X16", 8, 0},
    {"^V_MFMA_.32_32X32X[124][FBI]", 16, 0},
    {"^V_MFMA_.64_4X4X", 4, 0},
    {"^V_MFMA_.64_16X16X", 8, 0},
    {"^V_SMFMAC_.32_16X16X", 4, 0},
    {"^V_SMFMAC_.32_32X32X", 8, 0},
};
// gfx950: SIDPGFX950FullSpeedModel (f8f6f4: WriteMFMAScale_* variants, PredIsF8_MFMA_SCALE).
const PassRule kGfx950Passes[] = {
    {"^V_MFMA_.32_4X4X", 2, 0},
    {"^V_MFMA_.32_16X16X8X", 4, 0},
    {"^V_MFMA_.32_16X16X16", 4, 0},
    {"^V_MFMA_.32_16X16X32", 4, 0},
    {"^V_MFMA_.32_16X16X64", 4, 0},
    {"^V_MFMA_.32_16X16X[14][FBI]", 8, 0},
    {"^V_MFMA_.32_32X32X4XF", 8, 0},
    {"^V_MFMA_.32_32X32X8", 8, 0},
    {"^V_MFMA_.32_32X32X16", 8, 0},
    {"^V_MFMA_.32_32X32X32_", 8, 0},
    {"^V_MFMA_.32_32X32X[124][FBI]", 16, 0},
    {"^V_MFMA_.64_4X4X", 4, 0},
    {"^V_MFMA_.64_16X16X", 16, 0},
    {"^V_SMFMAC_.32_16X16X", 4, 0},
    {"^V_SMFMAC_.32_32X32X", 8, 0},
    {"^V_MFMA(_SCALE)?_.32_16X16X128_F8F6F4", 4, 8},
    {"^V_MFMA(_SCALE)?_.32_32X32X64_F8F6F4", 8, 16},
};

struct CompiledRules {
  std::vector<std::pair<std::regex, PassRule>> rules;
  template <size_t N>
  explicit CompiledRules(const PassRule (&table)[N]) {
    for (const auto& r : table) rules.emplace_back(std::regex(r.regex, std::regex::optimize), r);
  }
};

const CompiledRules& rules_for(codeobj::Arch arch) {
  static const CompiledRules g90a(kGfx90aPasses), g942(kGfx942Passes), g950(kGfx950Passes);
  switch (arch) {
    case codeobj::Arch::gfx90a: return g90a;
    case codeobj::Arch::gfx950: return g950;
    default: return g942;
  }
}

// MAIInst definitions with is_gfx940_xdl = 0 that exist on gfx940+ besides the DGEMMs: the
// F32-input SGEMMs (VOP3PInstructions.td, the block before `let is_gfx940_xdl = 1`).
constexpr std::string_view kGfx940NonXdl[] = {
    "V_MFMA_F32_4X4X1F32", "V_MFMA_F32_16X16X1F32", "V_MFMA_F32_16X16X4F32", "V_MFMA_F32_32X32X1F32",
    "V_MFMA_F32_32X32X2F32"};

bool name_has_prefix(std::string_view name, std::string_view pseudo) {
  return starts_with(name, pseudo) && (name.size() == pseudo.size() || name[pseudo.size()] == '_');
}

}  // namespace

std::optional<MfmaInfo> mfma_info_by_name(std::string_view name, std::string_view text, codeobj::Arch arch) {
  bool smfmac = starts_with(name, "V_SMFMAC_");
  if (!(starts_with(name, "V_MFMA_") || smfmac) || starts_with(name, "V_MFMA_LD_SCALE")) return std::nullopt;
  MfmaInfo info;
  info.smfmac = smfmac;
  info.dgemm = starts_with(name, "V_MFMA_F64_");
  if (arch == codeobj::Arch::gfx90a) {
    info.xdl = !info.dgemm;
  } else {
    bool sgemm = false;
    for (auto p : kGfx940NonXdl) sgemm |= name_has_prefix(name, p);
    info.xdl = !info.dgemm && !sgemm;
  }
  std::string n(name);
  for (const auto& [re, rule] : rules_for(arch).rules) {
    if (!std::regex_search(n, re)) continue;
    info.passes = rule.passes;
    if (rule.f8_passes) {
      // PredIsF8_MFMA_SCALE: cbsz or blgp <= FP8_E5M2 (1); both default to 0 (FP8 E4M3).
      int64_t cbsz = modifier_value(text, "cbsz").value_or(0), blgp = modifier_value(text, "blgp").value_or(0);
      if (cbsz <= 1 || blgp <= 1) info.passes = rule.f8_passes;
    }
    break;
  }
  if (info.passes == 0) info.passes = 16;  // unknown shape: assume the longest (conservative)
  return info;
}

std::optional<MfmaInfo> mfma_info(const Instruction& i, codeobj::Arch arch) {
  if (!is_mfma(i)) return std::nullopt;
  return mfma_info_by_name(opcode_name(i.opcode), i.text, arch);
}

MfmaOperands mfma_operands(const Instruction& i) {
  MfmaOperands o;
  if (auto d = first_def(i)) o.dst = *d;
  std::vector<RegRange> srcs;
  for (const auto& op : i.operands) {
    if (op.kind != program::Operand::Reg || op.is_def || op.reg.count == 0) continue;
    if (op.tied_to >= 0) {
      o.c = op.reg;
      continue;
    }
    srcs.push_back(op.reg);
  }
  if (srcs.size() > 0) o.a = srcs[0];
  if (srcs.size() > 1) o.b = srcs[1];
  if (starts_with(i.mnemonic, "v_smfmac")) {
    if (srcs.size() > 2) o.idx = srcs[2];
  } else if (o.c.count == 0 && srcs.size() > 2) {
    o.c = srcs[2];
  }
  return o;
}

// ---- Operand helpers ---------------------------------------------------------------------------

std::vector<RegRange> explicit_uses(const Instruction& i) {
  std::vector<RegRange> out;
  for (const auto& op : i.operands)
    if (op.kind == program::Operand::Reg && !op.is_def && op.reg.count) out.push_back(op.reg);
  return out;
}

std::vector<RegRange> explicit_defs(const Instruction& i) {
  std::vector<RegRange> out;
  for (const auto& op : i.operands)
    if (op.kind == program::Operand::Reg && op.is_def && op.reg.count) out.push_back(op.reg);
  return out;
}

std::optional<RegRange> first_def(const Instruction& i) {
  for (const auto& op : i.operands)
    if (op.kind == program::Operand::Reg && op.is_def && op.reg.count) return op.reg;
  return std::nullopt;
}

std::optional<RegRange> store_data(const Instruction& i) {
  if (!i.may_store) return std::nullopt;
  auto ops = printed_operands(i.text);
  std::string_view m = i.mnemonic;
  size_t index;
  if (starts_with(m, "buffer_") || starts_with(m, "tbuffer_")) {
    index = 0;
  } else if (starts_with(m, "global_") || starts_with(m, "flat_") || starts_with(m, "scratch_")) {
    index = explicit_defs(i).empty() ? 1 : 2;
  } else {
    return std::nullopt;
  }
  if (index >= ops.size()) return std::nullopt;
  auto r = reg_token(ops[index]);
  if (!r || !is_vector_file(r->file)) return std::nullopt;
  return r;
}

bool buffer_soffset_is_register(const Instruction& i) {
  auto ops = printed_operands(i.text);
  if (ops.size() < 4) return false;
  auto r = reg_token(ops[3]);
  return r.has_value();
}

std::optional<RegRange> lane_select(const Instruction& i) {
  std::string_view b = base_mnemonic(i.mnemonic);
  if (b != "v_readlane_b32" && b != "v_writelane_b32") return std::nullopt;
  // MCInst operands: v_readlane_b32 (sdst, src0, src1), v_writelane_b32 (vdst, src0, src1, vdst_in).
  if (i.operands.size() < 3) return std::nullopt;
  const auto& op = i.operands[2];
  if (op.kind != program::Operand::Reg || op.reg.count == 0 || !is_scalar_file(op.reg.file)) return std::nullopt;
  return op.reg;
}

std::optional<RegRange> readlane_source(const Instruction& i) {
  std::string_view b = base_mnemonic(i.mnemonic);
  if (b != "v_readlane_b32" && b != "v_readfirstlane_b32") return std::nullopt;
  auto uses = explicit_uses(i);
  if (uses.empty()) return std::nullopt;
  return uses[0];
}

std::vector<int> modifier_list(std::string_view text, std::string_view name) {
  std::vector<int> out;
  std::string key = " " + std::string(name) + ":[";
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return out;
  pos += key.size();
  while (pos < text.size() && text[pos] != ']') {
    if (text[pos] >= '0' && text[pos] <= '9') out.push_back(text[pos] - '0');
    ++pos;
  }
  return out;
}

std::optional<int64_t> modifier_value(std::string_view text, std::string_view name) {
  std::string key = " " + std::string(name) + ":";
  size_t pos = text.find(key);
  if (pos == std::string_view::npos) return std::nullopt;
  pos += key.size();
  std::string_view rest = text.substr(pos);
  int base = 10;
  if (starts_with(rest, "0x")) {
    base = 16;
    rest.remove_prefix(2);
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v, base);
  if (ec != std::errc()) return std::nullopt;
  return v;
}

std::optional<unsigned> hwreg_id(const Instruction& i) {
  std::string_view m = i.mnemonic;
  if (!starts_with(m, "s_getreg_") && !starts_with(m, "s_setreg_")) return std::nullopt;
  std::optional<int64_t> last;
  for (const auto& op : i.operands)
    if (op.kind == program::Operand::Imm) last = op.imm;
  if (!last) return std::nullopt;
  return static_cast<unsigned>(*last & 0x3f);
}

std::optional<RegRange> dst_sel_forwarded(const Instruction& i, codeobj::Arch arch) {
  if (arch == codeobj::Arch::gfx90a || !is_valu(i)) return std::nullopt;
  auto dst = first_def(i);
  if (!dst || !is_vector_file(dst->file)) return std::nullopt;
  std::string_view m = base_mnemonic(i.mnemonic);
  // Type 1: SDWA with dst_sel != DWORD.
  if (is_sdwa(i)) {
    size_t pos = i.text.find("dst_sel:");
    if (pos != std::string::npos && i.text.compare(pos + 8, 5, "DWORD") != 0) return dst;
  }
  // FP4 conversions (gfx950 cvt-scale): a nop for every op_sel value.
  bool fp4 = starts_with(m, "v_cvt_scalef32_pk_fp4_") || starts_with(m, "v_cvt_scalef32_sr_pk_fp4_");
  if (fp4) return dst;
  bool fp8 = starts_with(m, "v_cvt_pk_fp8_") || starts_with(m, "v_cvt_pk_bf8_") || starts_with(m, "v_cvt_sr_fp8_") ||
             starts_with(m, "v_cvt_sr_bf8_") || starts_with(m, "v_cvt_scalef32_pk_fp8_") ||
             starts_with(m, "v_cvt_scalef32_pk_bf8_") || starts_with(m, "v_cvt_scalef32_sr_fp8_") ||
             starts_with(m, "v_cvt_scalef32_sr_bf8_");
  auto op_sel = modifier_list(i.text, "op_sel");
  if (i.cls == InstClass::VOP3P) {
    // VOP3P: src0_modifiers bit 3 is OP_SEL_1 (op_sel_hi[0]), the same bit LLVM tests as
    // DST_OP_SEL. It defaults to 1 for packed math (printed only when not all ones) and to 0
    // for the mixed-precision v_fma_mix/v_mad_mix. Instructions without op_sel operands
    // (VOP3_PACKED_NO_OPSEL dot4/dot8, the fp8 dot4) are exempt.
    static constexpr std::string_view kNoOpSel[] = {"v_dot4_i32_i8", "v_dot4_u32_u8", "v_dot8_i32_i4",
                                                    "v_dot8_u32_u4", "v_dot4_i32_iu8", "v_dot8_i32_iu4"};
    if (std::find(std::begin(kNoOpSel), std::end(kNoOpSel), m) != std::end(kNoOpSel)) return std::nullopt;
    if (starts_with(m, "v_dot4_f32_")) return std::nullopt;
    auto hi = modifier_list(i.text, "op_sel_hi");
    bool mix = starts_with(m, "v_fma_mix") || starts_with(m, "v_mad_mix");
    bool bit = hi.empty() ? !mix : hi[0] != 0;
    return bit ? dst : std::nullopt;
  }
  // Type 2: VOP3 writing the high half (op_sel on the destination: the last printed entry).
  if (!op_sel.empty() && op_sel.back() != 0) return dst;
  // Type 3: fp8 conversions with op_sel[3:2] != 0.
  if (fp8 && op_sel.size() > 2) {
    for (size_t k = 2; k < op_sel.size(); ++k)
      if (op_sel[k]) return dst;
  }
  return std::nullopt;
}

bool is_vector_file(RegFile f) { return f == RegFile::VGPR || f == RegFile::AGPR; }
bool is_scalar_file(RegFile f) {
  switch (f) {
    case RegFile::SGPR:
    case RegFile::VCC:
    case RegFile::EXEC:
    case RegFile::M0:
    case RegFile::FlatScratch:
    case RegFile::XnackMask:
    case RegFile::TTMP:
      return true;
    default:
      return false;
  }
}

}  // namespace asmevo::check
