#include "check/code.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <map>
#include <set>

#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::check {

using program::Instruction;

namespace {

bool is_setpc(const Instruction& i) { return i.mnemonic == "s_setpc_b64"; }

// A literal LLVM 22 prints as an expression: "lit(0xffffffff)", "0x14", "-4".
std::optional<uint32_t> literal_value(std::string_view t) {
  if (t.rfind("lit64(", 0) == 0) t = t.substr(6);
  else if (t.rfind("lit(", 0) == 0) t = t.substr(4);
  if (!t.empty() && t.back() == ')') t.remove_suffix(1);
  bool neg = !t.empty() && t.front() == '-';
  if (neg) t.remove_prefix(1);
  int base = 10;
  if (t.rfind("0x", 0) == 0) {
    base = 16;
    t.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return static_cast<uint32_t>(neg ? (0 - v) : v);
}

}  // namespace

// LLVM materializes code addresses (long branches, SIInstrInfo::insertIndirectBranch; call
// targets, SIISelLowering) as
//   s_getpc_b64 s[a:b]; s_add_u32 sa, sa, lo; s_addc_u32 sb, sb, hi
// so the value is the address after s_getpc_b64 plus the 64-bit literal offset.
std::optional<uint64_t> getpc_value(const std::vector<Instruction>& insts, size_t before, const program::RegRange& pair) {
  if (pair.file != program::RegFile::SGPR || pair.count != 2) return std::nullopt;
  unsigned lo = pair.first, hi = lo + 1;
  std::optional<uint32_t> off_lo, off_hi;
  for (size_t k = before; k-- > 0 && before - k <= 12;) {
    const auto& in = insts[k];
    auto literal = [&]() -> std::optional<uint32_t> {
      for (const auto& op : in.operands) {
        if (op.kind == program::Operand::Imm) return static_cast<uint32_t>(op.imm);
        if (op.kind == program::Operand::Expr) return literal_value(op.text);
      }
      return std::nullopt;
    };
    bool writes_lo = in.writes({program::RegFile::SGPR, lo, 1}), writes_hi = in.writes({program::RegFile::SGPR, hi, 1});
    if (in.mnemonic == "s_getpc_b64") {
      if (!(in.defs.size() >= 1 && in.defs[0] == program::RegRange{program::RegFile::SGPR, lo, 2})) return std::nullopt;
      if (!off_lo || !off_hi) return std::nullopt;
      int64_t off = static_cast<int64_t>((static_cast<uint64_t>(*off_hi) << 32) | *off_lo);
      return in.address + in.size + off;
    }
    if (in.mnemonic == "s_add_u32" && writes_lo && !off_lo) {
      off_lo = literal();
      continue;
    }
    if (in.mnemonic == "s_addc_u32" && writes_hi && !off_hi) {
      off_hi = literal();
      continue;
    }
    if (writes_lo || writes_hi || in.is_branch || in.is_terminator) return std::nullopt;
  }
  return std::nullopt;
}

namespace {

std::optional<uint64_t> long_branch_target(const std::vector<Instruction>& insts, size_t setpc) {
  const auto& sp = insts[setpc];
  if (sp.uses.empty()) return std::nullopt;
  return getpc_value(insts, setpc, sp.uses[0]);
}

}  // namespace

Function build_function(std::string name, bool is_kernel, std::vector<Instruction> insts) {
  Function f;
  f.name = std::move(name);
  f.is_kernel = is_kernel;
  f.insts = std::move(insts);
  const auto& in = f.insts;
  const size_t n = in.size();
  f.block_of.assign(n, 0);
  if (n == 0) return f;

  std::map<uint64_t, size_t> by_address;
  for (size_t i = 0; i < n; ++i) by_address[in[i].address] = i;
  auto index_at = [&](int64_t a) -> std::optional<size_t> {
    auto it = by_address.find(static_cast<uint64_t>(a));
    if (it == by_address.end()) return std::nullopt;
    return it->second;
  };

  // Resolved jump target (instruction index) of each control-transfer instruction.
  std::vector<std::optional<size_t>> target(n);
  std::vector<bool> ends(n, false);  // control does not continue to i+1
  std::set<size_t> leaders{0};
  for (size_t i = 0; i < n; ++i) {
    const Instruction& x = in[i];
    bool transfer = false;
    if (x.branch_target && !x.is_call) {
      target[i] = index_at(*x.branch_target);
      transfer = true;
      if (!target[i]) f.exits.push_back(i);  // a branch out of the function leaves it
    } else if (is_setpc(x)) {
      if (auto t = long_branch_target(in, i)) target[i] = index_at(static_cast<int64_t>(*t));
      transfer = true;
      if (!target[i]) f.exits.push_back(i);
    }
    if (x.is_return) f.exits.push_back(i);
    bool falls = !x.no_fallthrough && !x.is_return && !is_setpc(x);
    ends[i] = !falls;
    if (transfer || x.is_terminator || x.is_return || !falls) {
      if (target[i]) leaders.insert(*target[i]);
      if (i + 1 < n) leaders.insert(i + 1);
    }
  }
  std::vector<size_t> starts(leaders.begin(), leaders.end());
  for (size_t b = 0; b < starts.size(); ++b) {
    Block blk;
    blk.first = starts[b];
    blk.last = (b + 1 < starts.size() ? starts[b + 1] : n) - 1;
    for (size_t i = blk.first; i <= blk.last; ++i) f.block_of[i] = b;
    f.blocks.push_back(blk);
  }
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    auto& blk = f.blocks[b];
    size_t l = blk.last;
    auto add = [&](size_t s) {
      if (std::find(blk.succs.begin(), blk.succs.end(), s) == blk.succs.end()) blk.succs.push_back(s);
    };
    if (target[l]) add(f.block_of[*target[l]]);
    if (!ends[l] && l + 1 < n) add(f.block_of[l + 1]);
  }
  for (size_t b = 0; b < f.blocks.size(); ++b)
    for (size_t s : f.blocks[b].succs) f.blocks[s].preds.push_back(b);
  std::sort(f.exits.begin(), f.exits.end());
  f.exits.erase(std::unique(f.exits.begin(), f.exits.end()), f.exits.end());
  return f;
}

std::vector<Function> functions_of(const codeobj::CodeObject& co) {
  program::Decoder dec(co.target());
  std::vector<Function> out;
  std::set<std::string> seen;  // a kernel listed twice (e.g. from .symtab and .dynsym) is checked once
  for (const auto& k : co.kernels()) {
    if (!seen.insert(k.name).second) continue;
    auto bytes = co.code_bytes(k);
    if (bytes.empty() && k.code_size)
      throw Error("kernel code lies outside the file's sections", co.elf().name() + ": " + k.name);
    out.push_back(build_function(k.name, true, dec.decode_range(bytes, k.code_address)));
  }
  for (const auto& d : co.device_functions()) {
    auto bytes = co.elf().bytes_at_address(d.address, d.size);
    if (!bytes) throw Error("function code lies outside the file's sections", co.elf().name() + ": " + d.name);
    out.push_back(build_function(d.name, false, dec.decode_range(*bytes, d.address)));
  }
  return out;
}

std::optional<size_t> index_of_address(const Function& f, uint64_t address) {
  for (size_t i = 0; i < f.insts.size(); ++i)
    if (f.insts[i].address == address) return i;
  return std::nullopt;
}

}  // namespace asmevo::check
