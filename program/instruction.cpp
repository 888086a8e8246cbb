#include "program/instruction.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace asmevo::program {
namespace {

// ---- Classes ---------------------------------------------------------------------------------

constexpr std::array<const char*, kNumInstClasses> kClassNames = {
    "SALU",   "VALU",   "VOP3P",   "MFMA",   "SMEM",    "VMEMLoad", "VMEMStore",
    "VMEMAtomic", "VMEMCache", "FLAT", "GLOBAL", "SCRATCH", "DS", "Branch",
    "Waitcnt", "Barrier", "Message", "Nop", "Other"};

struct PrefixClass {
  std::string_view prefix;
  InstClass cls;
};

// Mnemonic prefix -> class. The first matching row wins, so specific prefixes precede the
// generic "s_" and "v_" rows. Mnemonics are LLVM's printed ones (with _e32/_e64/_dpp/_sdwa).
constexpr PrefixClass kClassTable[] = {
    // Scalar instructions that are not plain scalar ALU work.
    {"s_waitcnt", InstClass::Waitcnt},  // s_waitcnt, s_waitcnt_{vscnt,vmcnt,expcnt,lgkmcnt,depctr}
    {"s_barrier", InstClass::Barrier},
    {"s_sendmsg", InstClass::Message},  // s_sendmsg, s_sendmsghalt
    {"s_trap", InstClass::Message},
    {"s_nop", InstClass::Nop},
    {"s_branch", InstClass::Branch},
    {"s_cbranch_", InstClass::Branch},
    {"s_setpc_", InstClass::Branch},
    {"s_swappc_", InstClass::Branch},
    {"s_call_", InstClass::Branch},
    {"s_endpgm", InstClass::Branch},  // s_endpgm, s_endpgm_saved, s_endpgm_ordered_ps_done
    {"s_rfe_", InstClass::Branch},    // return from the trap handler
    {"s_load_", InstClass::SMEM},
    {"s_buffer_load_", InstClass::SMEM},
    {"s_store_", InstClass::SMEM},
    {"s_buffer_store_", InstClass::SMEM},
    {"s_scratch_", InstClass::SMEM},
    {"s_atomic_", InstClass::SMEM},
    {"s_buffer_atomic_", InstClass::SMEM},
    {"s_dcache_", InstClass::SMEM},
    {"s_memtime", InstClass::SMEM},
    {"s_memrealtime", InstClass::SMEM},
    {"s_atc_probe", InstClass::SMEM},
    // Wave control executed by the sequencer, not the scalar ALU.
    {"s_sleep", InstClass::Other},
    {"s_setprio", InstClass::Other},
    {"s_sethalt", InstClass::Other},
    {"s_setkill", InstClass::Other},
    {"s_icache_inv", InstClass::Other},
    {"s_incperflevel", InstClass::Other},
    {"s_decperflevel", InstClass::Other},
    {"s_ttracedata", InstClass::Other},
    {"s_", InstClass::SALU},
    {"v_mfma", InstClass::MFMA},
    {"v_smfmac", InstClass::MFMA},
    {"v_pk_", InstClass::VOP3P},
    {"v_dot", InstClass::VOP3P},
    {"v_fma_mix", InstClass::VOP3P},
    {"v_mad_mix", InstClass::VOP3P},
    {"v_", InstClass::VALU},
    {"ds_", InstClass::DS},
    {"buffer_load_", InstClass::VMEMLoad},
    {"tbuffer_load_", InstClass::VMEMLoad},
    {"buffer_store_", InstClass::VMEMStore},
    {"tbuffer_store_", InstClass::VMEMStore},
    {"buffer_atomic_", InstClass::VMEMAtomic},
    {"buffer_", InstClass::VMEMCache},  // buffer_wbl2, buffer_inv, buffer_wbinvl1, buffer_wbinvl1_vol
    {"global_", InstClass::GLOBAL},
    {"flat_", InstClass::FLAT},
    {"scratch_", InstClass::SCRATCH},
};

// ---- Registers -------------------------------------------------------------------------------

struct FileSpelling {
  RegFile file;
  std::string_view name;      // as in regfile_name()
  std::string_view prefix;    // indexed files: "s", "v", "a", "ttmp"; empty for special registers
  std::string_view special;   // special registers: the whole-register name ("vcc")
  unsigned special_units;     // units in the whole special register (0 if not special)
};

// One row per register file: its name and how the assembler spells its registers.
constexpr FileSpelling kFiles[] = {
    {RegFile::SGPR, "SGPR", "s", "", 0},
    {RegFile::VGPR, "VGPR", "v", "", 0},
    {RegFile::AGPR, "AGPR", "a", "", 0},
    {RegFile::VCC, "VCC", "", "vcc", 2},
    {RegFile::EXEC, "EXEC", "", "exec", 2},
    {RegFile::SCC, "SCC", "", "scc", 1},
    {RegFile::M0, "M0", "", "m0", 1},
    {RegFile::FlatScratch, "FlatScratch", "", "flat_scratch", 2},
    {RegFile::XnackMask, "XnackMask", "", "xnack_mask", 2},
    {RegFile::TTMP, "TTMP", "ttmp", "", 0},
    {RegFile::Mode, "Mode", "", "mode", 1},
    {RegFile::Other, "Other", "", "", 0},
};

const FileSpelling& spelling(RegFile f) {
  for (const auto& s : kFiles)
    if (s.file == f) return s;
  return kFiles[std::size(kFiles) - 1];
}

bool parse_uint(std::string_view s, unsigned& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// "4" -> {4,1}; "[4:7]" -> {4,4}; "[4]" -> {4,1}.
std::optional<RegRange> parse_index(RegFile f, std::string_view s) {
  unsigned a = 0, b = 0;
  if (parse_uint(s, a)) return RegRange{f, a, 1};
  if (s.size() < 3 || s.front() != '[' || s.back() != ']') return std::nullopt;
  s = s.substr(1, s.size() - 2);
  auto colon = s.find(':');
  if (colon == std::string_view::npos) {
    if (!parse_uint(s, a)) return std::nullopt;
    return RegRange{f, a, 1};
  }
  if (!parse_uint(s.substr(0, colon), a) || !parse_uint(s.substr(colon + 1), b) || b < a)
    return std::nullopt;
  return RegRange{f, a, b - a + 1};
}

std::string hex_words(const std::vector<uint8_t>& bytes) {
  // llvm-objdump style: little-endian 32-bit words, upper-case, space separated.
  std::string s;
  char buf[9];
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t w = 0;
    for (size_t k = 0; k < 4 && i + k < bytes.size(); ++k) w |= uint32_t(bytes[i + k]) << (8 * k);
    std::snprintf(buf, sizeof buf, "%08X", w);
    if (!s.empty()) s += ' ';
    s += buf;
  }
  return s;
}

}  // namespace

const char* class_name(InstClass c) { return kClassNames[static_cast<size_t>(c)]; }

std::optional<InstClass> class_from_name(std::string_view name) {
  for (int i = 0; i < kNumInstClasses; ++i)
    if (name == kClassNames[i]) return static_cast<InstClass>(i);
  return std::nullopt;
}

InstClass classify(std::string_view mnemonic) {
  for (const auto& row : kClassTable)
    if (mnemonic.starts_with(row.prefix)) return row.cls;
  return InstClass::Other;
}

bool is_vmem(InstClass c) {
  switch (c) {
    case InstClass::VMEMLoad:
    case InstClass::VMEMStore:
    case InstClass::VMEMAtomic:
    case InstClass::VMEMCache:
    case InstClass::FLAT:
    case InstClass::GLOBAL:
    case InstClass::SCRATCH:
      return true;
    default:
      return false;
  }
}

const char* regfile_name(RegFile f) { return spelling(f).name.data(); }

bool overlaps(const RegRange& a, const RegRange& b) {
  return a.file == b.file && a.count && b.count && a.first < b.first + b.count &&
         b.first < a.first + a.count;
}

std::string to_string(const RegRange& r) {
  const FileSpelling& s = spelling(r.file);
  if (r.file == RegFile::Other) return "other#" + std::to_string(r.first);
  if (!s.prefix.empty()) {
    std::string out(s.prefix);
    if (r.count == 1) return out + std::to_string(r.first);
    return out + "[" + std::to_string(r.first) + ":" + std::to_string(r.first + r.count - 1) + "]";
  }
  std::string out(s.special);
  if (r.first == 0 && r.count == s.special_units) return out;
  if (s.special_units == 2 && r.count == 1 && r.first < 2) return out + (r.first == 0 ? "_lo" : "_hi");
  return out + "[" + std::to_string(r.first) + ":" + std::to_string(r.first + r.count - 1) + "]";
}

std::optional<RegRange> parse_reg(std::string_view text) {
  std::string t(text);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view s = t;
  if (s.starts_with("other#")) {
    unsigned n = 0;
    if (!parse_uint(s.substr(6), n)) return std::nullopt;
    return RegRange{RegFile::Other, n, 1};
  }
  for (const auto& f : kFiles) {
    if (!f.special.empty() && s.starts_with(f.special)) {
      std::string_view rest = s.substr(f.special.size());
      if (rest.empty()) return RegRange{f.file, 0, f.special_units};
      if (f.special_units == 2 && rest == "_lo") return RegRange{f.file, 0, 1};
      if (f.special_units == 2 && rest == "_hi") return RegRange{f.file, 1, 1};
    }
  }
  // Indexed files: no prefix is a prefix of another ("s", "v", "a", "ttmp").
  for (const auto& f : kFiles) {
    if (f.prefix.empty() || !s.starts_with(f.prefix)) continue;
    if (auto r = parse_index(f.file, s.substr(f.prefix.size()))) return r;
  }
  return std::nullopt;
}

bool Instruction::reads(const RegRange& r) const {
  return std::any_of(uses.begin(), uses.end(), [&](const RegRange& u) { return overlaps(u, r); });
}

bool Instruction::writes(const RegRange& r) const {
  return std::any_of(defs.begin(), defs.end(), [&](const RegRange& d) { return overlaps(d, r); });
}

void to_json(nlohmann::json& j, const RegRange& r) { j = to_string(r); }

void to_json(nlohmann::json& j, const Operand& op) {
  switch (op.kind) {
    case Operand::Reg:
      j = {{"kind", "reg"}, {"reg", op.text}};
      if (op.is_def) j["def"] = true;
      break;
    case Operand::Imm:
      j = {{"kind", "imm"}, {"value", op.imm}};
      break;
    case Operand::FPImm:
      j = {{"kind", "fpimm"}, {"value", op.fpimm}};
      break;
    case Operand::Expr:
      j = {{"kind", "expr"}, {"text", op.text}};
      break;
  }
  if (op.tied_to >= 0) j["tied_to"] = op.tied_to;
}

void to_json(nlohmann::json& j, const Instruction& inst) {
  nlohmann::json flags = nlohmann::json::array();
  const std::pair<bool, const char*> kFlags[] = {
      {inst.is_branch, "branch"},       {inst.is_terminator, "terminator"},
      {inst.is_call, "call"},           {inst.is_return, "return"},
      {inst.no_fallthrough, "no_fallthrough"}, {inst.may_load, "load"},
      {inst.may_store, "store"}};
  for (const auto& [on, name] : kFlags)
    if (on) flags.push_back(name);
  j = {{"address", inst.address},
       {"size", inst.size},
       {"encoding", hex_words(inst.bytes)},
       {"opcode", inst.opcode},
       {"mnemonic", inst.mnemonic},
       {"text", inst.text},
       {"class", class_name(inst.cls)},
       {"operands", inst.operands},
       {"defs", inst.defs},
       {"uses", inst.uses},
       {"flags", std::move(flags)}};
  if (inst.branch_target) j["branch_target"] = *inst.branch_target;
}

nlohmann::json Instruction::to_json() const {
  nlohmann::json j;
  program::to_json(j, *this);
  return j;
}

}  // namespace asmevo::program
