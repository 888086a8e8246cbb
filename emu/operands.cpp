#include "emu/operands.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "emu/memory.h"
#include "program/instruction.h"

namespace asmevo::emu {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool parse_int(std::string_view s, int64_t& v) {
  bool neg = false;
  if (!s.empty() && s[0] == '-') neg = true, s.remove_prefix(1);
  uint64_t u = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) base = 16, s.remove_prefix(2);
  auto r = std::from_chars(s.data(), s.data() + s.size(), u, base);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return false;
  v = neg ? -static_cast<int64_t>(u) : static_cast<int64_t>(u);
  return true;
}

// [a,b,c] -> bit i set when element i is nonzero; also returns the values.
bool parse_list(std::string_view s, std::vector<int64_t>& out) {
  if (s.size() < 2 || s.front() != '[' || s.back() != ']') return false;
  s = s.substr(1, s.size() - 2);
  while (!s.empty()) {
    size_t c = s.find(',');
    int64_t v;
    if (!parse_int(trim(s.substr(0, c)), v)) return false;
    out.push_back(v);
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return true;
}

uint8_t list_bits(const std::vector<int64_t>& v) {
  uint8_t b = 0;
  for (size_t i = 0; i < v.size() && i < 8; ++i)
    if (v[i]) b |= static_cast<uint8_t>(1u << i);
  return b;
}

constexpr std::string_view kFlagMods[] = {"clamp", "glc", "slc", "nt", "sc0", "sc1", "dlc", "lds", "gds", "offen",
                                          "idxen", "addr64", "tfe", "lwe", "row_mirror", "row_half_mirror", "d16",
                                          "bound_ctrl:1", "bound_ctrl:0", "unorm", "da", "r128", "a16", "scc"};
constexpr std::string_view kKeyMods[] = {"mul:", "div:", "op_sel:", "op_sel_hi:", "neg_lo:", "neg_hi:", "quad_perm:",
                                         "row_shl:", "row_shr:", "row_ror:", "wave_shl:", "wave_rol:", "wave_shr:",
                                         "wave_ror:", "row_bcast:", "row_newbcast:", "row_mask:", "bank_mask:",
                                         "bound_ctrl:", "fi:", "dst_sel:", "dst_unused:", "src0_sel:", "src1_sel:",
                                         "offset:", "offset0:", "offset1:", "format:", "cbsz:", "abid:", "blgp:",
                                         "neg:", "byte_sel:", "dmask:", "swizzle(", "bitop3:"};

// vN, sN, aN (a register name that some modifier spellings share).
bool looks_like_register(std::string_view tok) {
  if (tok.size() < 2 || (tok[0] != 'v' && tok[0] != 's' && tok[0] != 'a')) return false;
  for (size_t i = 1; i < tok.size(); ++i)
    if (tok[i] < '0' || tok[i] > '9') return false;
  return true;
}

}  // namespace

bool is_modifier_token(std::string_view tok) {
  for (auto f : kFlagMods)
    if (tok == f) return true;
  for (auto k : kKeyMods)
    if (tok.starts_with(k)) return true;
  return false;
}

SplitText split_instruction_text(std::string_view text) {
  SplitText out;
  text = trim(text);
  size_t sp = text.find(' ');
  if (sp == std::string_view::npos) return out;
  std::string_view rest = trim(text.substr(sp + 1));
  // Split on top-level commas (brackets and parentheses nest).
  std::vector<std::string_view> pieces;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == '[' || c == '(') ++depth;
    else if (c == ']' || c == ')') --depth;
    else if (c == ',' && depth == 0) {
      pieces.push_back(trim(rest.substr(start, i - start)));
      start = i + 1;
    }
  }
  pieces.push_back(trim(rest.substr(start)));
  // Space-separated tokens: modifiers are recognised by name; in the last piece anything else is an operand.
  for (size_t p = 0; p < pieces.size(); ++p) {
    std::string_view piece = pieces[p];
    size_t i = 0;
    bool first = true;
    while (i < piece.size()) {
      while (i < piece.size() && piece[i] == ' ') ++i;
      if (i >= piece.size()) break;
      size_t j = i;
      int d = 0;
      while (j < piece.size() && (piece[j] != ' ' || d > 0)) {
        if (piece[j] == '[' || piece[j] == '(') ++d;
        if (piece[j] == ']' || piece[j] == ')') --d;
        ++j;
      }
      std::string_view tok = piece.substr(i, j - i);
      // A piece's first token is an operand when a comma follows or precedes it (every operand list
      // starts with one), and also when it reads as a register: "a16" is MIMG's 16-bit-address flag
      // and AGPR 16 ("v_accvgpr_read_b32 v118, a16").
      if (is_modifier_token(tok) && !(first && (pieces.size() > 1 || looks_like_register(tok))))
        out.modifiers.emplace_back(tok);
      else if (first)
        out.operands.emplace_back(tok);
      else  // e.g. "s_waitcnt vmcnt(0) lgkmcnt(0)": keep together with the previous operand
        out.operands.back() += " " + std::string(tok);
      first = false;
      i = j;
    }
  }
  return out;
}

bool encode_constant(std::string_view tok, Ty ty, uint64_t& bits) {
  bool is_float = tok.find('.') != std::string_view::npos && !tok.starts_with("0x");
  if (is_float) {
    double d = std::strtod(std::string(tok).c_str(), nullptr);
    bool inv2pi = std::fabs(std::fabs(d) - 0.15915494309189532) < 1e-7;
    switch (ty) {
      case Ty::F64: case Ty::B64: case Ty::I64: case Ty::Mask:
        bits = inv2pi ? 0x3fc45f306dc9c882ull : std::bit_cast<uint64_t>(d);
        return true;
      case Ty::F16: case Ty::B16: case Ty::I16:
        bits = inv2pi ? 0x3118 : std::bit_cast<uint16_t>(static_cast<_Float16>(d));
        return true;
      default:
        bits = inv2pi ? 0x3e22f983u : std::bit_cast<uint32_t>(static_cast<float>(d));
        return true;
    }
  }
  int64_t v;
  if (!parse_int(tok, v)) return false;
  bool hex = tok.starts_with("0x");
  switch (ty) {
    case Ty::F64:
      // A 32-bit literal in a 64-bit float slot is the high half (ISA "literal constants").
      bits = (hex && static_cast<uint64_t>(v) <= 0xffffffffull) ? static_cast<uint64_t>(v) << 32 : static_cast<uint64_t>(v);
      return true;
    case Ty::B64: case Ty::Mask:
      bits = (hex && static_cast<uint64_t>(v) <= 0xffffffffull) ? static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
      return true;
    case Ty::I64:
      bits = (hex && static_cast<uint64_t>(v) <= 0xffffffffull) ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v)))
                                                                   : static_cast<uint64_t>(v);
      return true;
    case Ty::F16: case Ty::B16: case Ty::I16:
      bits = static_cast<uint64_t>(v) & 0xffff;
      return true;
    default:
      bits = static_cast<uint64_t>(v) & 0xffffffffull;
      return true;
  }
}

bool parse_operand(std::string_view tok, Ty ty, const OperandEnv& env, Operand& out, std::string& err) {
  out = Operand{};
  out.ty = ty;
  std::string_view s = trim(tok);
  // Input modifiers: -x, |x|, -|x|, abs(x), neg(x), sext(x).
  bool is_number = !s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) ||
                                  (s[0] == '-' && s.size() > 1 && std::isdigit(static_cast<unsigned char>(s[1]))));
  if (!is_number) {
    if (s.starts_with("-")) out.neg = true, s.remove_prefix(1);
    if (s.starts_with("neg(") && s.ends_with(")")) out.neg = true, s = s.substr(4, s.size() - 5);
    if (s.starts_with("|") && s.ends_with("|") && s.size() > 2) out.abs = true, s = s.substr(1, s.size() - 2);
    if (s.starts_with("abs(") && s.ends_with(")")) out.abs = true, s = s.substr(4, s.size() - 5);
    if (s.starts_with("sext(") && s.ends_with(")")) out.sext = true, s = s.substr(5, s.size() - 6);
  }
  const bool sign_bit_slot = env.sign_bit_mods && ty == Ty::B32;  // emu/generic.h sign_bit_mods
  if ((out.neg || out.abs) && !ty_is_float(ty) && ty != Ty::Any && !sign_bit_slot) {
    err = "input modifier on a non-float operand '" + std::string(tok) + "'";
    return false;
  }
  // lit(...) / lit64(...): a literal LLVM prints explicitly (could have been an inline constant).
  for (std::string_view w : {"lit(", "lit64("})
    if (s.starts_with(w) && s.ends_with(")")) s = s.substr(w.size(), s.size() - w.size() - 1), is_number = true;
  if (s == "off") return out.kind = Operand::Off, true;
  if (s == "scc" || s == "src_scc") return out.kind = Operand::SCC, out.count = 1, true;
  if (s == "src_vccz" || s == "vccz") return out.kind = Operand::VCCZ, out.count = 1, true;
  if (s == "src_execz" || s == "execz") return out.kind = Operand::EXECZ, out.count = 1, true;
  auto aperture = [&](uint64_t v) { return out.kind = Operand::Const, out.bits = v, out.count = 1, true; };
  if (s == "src_shared_base") return aperture(DeviceMemory::kSharedAperture >> 32);
  if (s == "src_shared_limit") return aperture((DeviceMemory::kSharedAperture + DeviceMemory::kApertureSize - 1) >> 32);
  if (s == "src_private_base") return aperture(DeviceMemory::kPrivateAperture >> 32);
  if (s == "src_private_limit") return aperture((DeviceMemory::kPrivateAperture + DeviceMemory::kApertureSize - 1) >> 32);
  if (s.empty()) return err = "empty operand", false;
  if (is_number || s[0] == '-' || std::isdigit(static_cast<unsigned char>(s[0]))) {
    if (!encode_constant(s, ty, out.bits)) return err = "cannot read constant '" + std::string(s) + "'", false;
    out.kind = Operand::Const;
    out.count = static_cast<uint8_t>(ty_dwords(ty));
    return true;
  }
  auto r = program::parse_reg(s);
  if (!r) return err = "cannot read operand '" + std::string(tok) + "'", false;
  out.count = static_cast<uint8_t>(r->count);
  using program::RegFile;
  switch (r->file) {
    case RegFile::VGPR: out.kind = Operand::VGPR, out.index = static_cast<uint16_t>(r->first); break;
    case RegFile::AGPR:
      out.kind = Operand::VGPR, out.is_agpr = true, out.index = static_cast<uint16_t>(env.accum_offset + r->first);
      break;
    case RegFile::SGPR: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(r->first); break;
    case RegFile::VCC: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(kVccLo + r->first); break;
    case RegFile::EXEC: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(kExecLo + r->first); break;
    case RegFile::M0: out.kind = Operand::SGPR, out.index = kM0; break;
    case RegFile::FlatScratch: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(kFlatScratchLo + r->first); break;
    case RegFile::XnackMask: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(kXnackLo + r->first); break;
    case RegFile::TTMP: out.kind = Operand::SGPR, out.index = static_cast<uint16_t>(kTtmp0 + r->first); break;
    case RegFile::SCC: out.kind = Operand::SCC; break;
    default: return err = "operand '" + std::string(tok) + "' is not supported by the emulator", false;
  }
  return true;
}

bool parse_modifier(std::string_view tok, Mods& m, std::string& err) {
  auto val = [&](std::string_view key, int64_t& v) { return parse_int(tok.substr(key.size()), v); };
  int64_t v = 0;
  std::vector<int64_t> list;
  auto fail = [&] { return err = "cannot read modifier '" + std::string(tok) + "'", false; };
  if (tok == "clamp") return m.clamp = true, true;
  if (tok == "glc") return m.glc = true, true;
  if (tok == "slc") return m.slc = true, true;
  if (tok == "nt") return m.nt = true, true;
  if (tok == "sc0") return m.sc0 = true, true;
  if (tok == "sc1") return m.sc1 = true, true;
  if (tok == "scc") return m.sc1 = true, true;  // gfx90a's name of the system-coherence bit gfx940 calls sc1
  if (tok == "dlc") return m.dlc = true, true;
  if (tok == "lds") return m.lds = true, true;
  if (tok == "gds") return m.gds = true, true;
  if (tok == "offen") return m.offen = true, true;
  if (tok == "idxen") return m.idxen = true, true;
  if (tok == "addr64") return m.addr64 = true, true;
  if (tok == "tfe") return m.tfe = true, true;
  if (tok == "lwe") return m.lwe = true, true;
  if (tok == "d16") return m.d16 = true, true;
  if (tok == "mul:2") return m.omod = 1, true;
  if (tok == "mul:4") return m.omod = 2, true;
  if (tok == "div:2") return m.omod = 3, true;
  auto lst = [&](std::string_view key, uint8_t& bits) {
    if (!parse_list(tok.substr(key.size()), list)) return fail();
    bits = list_bits(list);
    return true;
  };
  if (tok.starts_with("op_sel_hi:")) return m.op_sel_hi_given = true, lst("op_sel_hi:", m.op_sel_hi);
  if (tok.starts_with("op_sel:")) return lst("op_sel:", m.op_sel);
  if (tok.starts_with("neg_lo:")) return lst("neg_lo:", m.neg_lo);
  if (tok.starts_with("neg_hi:")) return lst("neg_hi:", m.neg_hi);
  // ds_swizzle_b32 prints its offset as a macro ("offset:swizzle(SWAP,16)"): keep the text; the unit reads
  // the encoded offset from ExecInst::simm.
  if (tok.starts_with("offset:swizzle(")) return m.other += (m.other.empty() ? "" : " ") + std::string(tok), true;
  if (tok.starts_with("offset:")) return val("offset:", m.offset) || fail();
  if (tok.starts_with("offset0:")) return val("offset0:", m.offset) || fail();
  if (tok.starts_with("offset1:")) return val("offset1:", m.offset1) || fail();
  if (tok.starts_with("cbsz:")) return (val("cbsz:", v) || fail()) && (m.cbsz = static_cast<uint8_t>(v), true);
  if (tok.starts_with("abid:")) return (val("abid:", v) || fail()) && (m.abid = static_cast<uint8_t>(v), true);
  if (tok.starts_with("blgp:")) return (val("blgp:", v) || fail()) && (m.blgp = static_cast<uint8_t>(v), true);
  if (tok.starts_with("bitop3:")) return (val("bitop3:", v) || fail()) && (m.bitop3 = static_cast<uint8_t>(v), true);
  // DPP.
  DppMods& d = m.dpp;
  if (tok.starts_with("quad_perm:")) {
    if (!parse_list(tok.substr(10), list) || list.size() != 4) return fail();
    for (int i = 0; i < 4; ++i) d.quad_perm[i] = static_cast<uint8_t>(list[i]);
    return d.ctrl = DppMods::QuadPerm, true;
  }
  struct Ctl {
    std::string_view key;
    DppMods::Ctrl c;
  };
  static constexpr Ctl kCtl[] = {{"row_shl:", DppMods::RowShl},       {"row_shr:", DppMods::RowShr},
                                 {"row_ror:", DppMods::RowRor},       {"wave_shl:", DppMods::WaveShl},
                                 {"wave_rol:", DppMods::WaveRol},     {"wave_shr:", DppMods::WaveShr},
                                 {"wave_ror:", DppMods::WaveRor},     {"row_newbcast:", DppMods::RowNewBcast}};
  for (const auto& c : kCtl)
    if (tok.starts_with(c.key)) {
      if (!val(c.key, v)) return fail();
      d.ctrl = c.c, d.shift = static_cast<uint8_t>(v);
      return true;
    }
  if (tok == "row_mirror") return d.ctrl = DppMods::RowMirror, true;
  if (tok == "row_half_mirror") return d.ctrl = DppMods::RowHalfMirror, true;
  if (tok == "row_bcast:15") return d.ctrl = DppMods::RowBcast15, true;
  if (tok == "row_bcast:31") return d.ctrl = DppMods::RowBcast31, true;
  if (tok.starts_with("row_mask:")) return (val("row_mask:", v) || fail()) && (d.row_mask = static_cast<uint8_t>(v), true);
  if (tok.starts_with("bank_mask:")) return (val("bank_mask:", v) || fail()) && (d.bank_mask = static_cast<uint8_t>(v), true);
  if (tok.starts_with("bound_ctrl:")) return (val("bound_ctrl:", v) || fail()) && (d.bound_ctrl = true, true);
  if (tok.starts_with("fi:")) return (val("fi:", v) || fail()) && (d.fi = v != 0, true);
  // SDWA.
  auto sel = [&](std::string_view name, SdwaMods::Sel& s) {
    static constexpr std::pair<std::string_view, SdwaMods::Sel> kSel[] = {
        {"BYTE_0", SdwaMods::Byte0}, {"BYTE_1", SdwaMods::Byte1}, {"BYTE_2", SdwaMods::Byte2}, {"BYTE_3", SdwaMods::Byte3},
        {"WORD_0", SdwaMods::Word0}, {"WORD_1", SdwaMods::Word1}, {"DWORD", SdwaMods::Dword}};
    for (const auto& [n, k] : kSel)
      if (name == n) return s = k, true;
    return fail();
  };
  if (tok.starts_with("dst_sel:")) return sel(tok.substr(8), m.sdwa.dst_sel);
  if (tok.starts_with("src0_sel:")) return sel(tok.substr(9), m.sdwa.src0_sel);
  if (tok.starts_with("src1_sel:")) return sel(tok.substr(9), m.sdwa.src1_sel);
  if (tok.starts_with("dst_unused:")) {
    std::string_view u = tok.substr(11);
    if (u == "UNUSED_PAD") return m.sdwa.dst_unused = SdwaMods::Pad, true;
    if (u == "UNUSED_SEXT") return m.sdwa.dst_unused = SdwaMods::Sext, true;
    if (u == "UNUSED_PRESERVE") return m.sdwa.dst_unused = SdwaMods::Preserve, true;
    return fail();
  }
  if (is_modifier_token(tok)) {  // known to exist, no framework field yet (format:, swizzle(...), ...)
    m.other += (m.other.empty() ? "" : " ") + std::string(tok);
    return true;
  }
  return err = "unknown modifier '" + std::string(tok) + "'", false;
}

}  // namespace asmevo::emu
