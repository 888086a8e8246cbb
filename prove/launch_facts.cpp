#include "prove/launch_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "emu/dispatch.h"
#include "program/reaching.h"
#include "support/error.h"

namespace asmevo::prove {
namespace {

// Arguments whose bytes are the same for every allocation: by-value and launch-shape hidden ones.
// Pointers (buffers, queue, apertures) are not facts a proof may use.
bool shape_or_value(const codeobj::KernelArg& a) {
  static const char* const kPrefixes[] = {"hidden_block_count_", "hidden_group_size_", "hidden_remainder_", "hidden_global_offset_"};
  if (a.value_kind == "by_value" || a.value_kind == "hidden_grid_dims" || a.value_kind == "hidden_dynamic_lds_size") return true;
  for (const char* p : kPrefixes)
    if (a.value_kind.rfind(p, 0) == 0) return true;
  return false;
}

std::string arg_label(const codeobj::KernelArg& a) { return a.name.empty() ? a.value_kind : a.name; }

void widen(LaunchBounds::Range& r, uint32_t v, const std::string& name) {
  r.min = std::min(r.min, v), r.max = std::max(r.max, v);
  if (r.name.empty()) r.name = name;
}

// `s_load_dword[xN] sD, s[P:P+1], OFFSET` with an immediate offset, from the decoded operands
// (LLVM's SMEM order: sdst, sbase, offset, cpol). An edited line (no decoded instruction) or an
// SGPR offset gives none: a fact missed, never a wrong one.
struct ScalarLoad {
  unsigned dest = 0, dwords = 0, pointer = 0;
  uint64_t offset = 0;
};
std::optional<ScalarLoad> scalar_load(const program::Line& l) {
  if (!l.inst || !l.inst->mnemonic.starts_with("s_load_dword")) return std::nullopt;
  const std::vector<program::Operand>& o = l.inst->operands;
  if (o.size() < 3 || o[0].kind != program::Operand::Reg || o[0].reg.file != program::RegFile::SGPR || !o[0].is_def ||
      o[1].kind != program::Operand::Reg || o[1].reg.file != program::RegFile::SGPR || o[1].reg.count != 2 || o[2].kind != program::Operand::Imm)
    return std::nullopt;
  for (size_t k = 3; k < o.size(); ++k)
    if (o[k].kind == program::Operand::Reg) return std::nullopt;  // an SGPR offset besides the immediate
  return ScalarLoad{o[0].reg.first, o[0].reg.count, o[1].reg.first, static_cast<uint64_t>(o[2].imm)};
}

void add_dword_facts(std::vector<RegisterFact>& out, unsigned sgpr, uint64_t offset, const LaunchBounds& b, const char* how) {
  auto it = b.kernarg_dwords.find(offset);
  if (it == b.kernarg_dwords.end()) return;
  out.push_back({false, sgpr, 0, 32, it->second.min, it->second.max, fmt::format("{} kernarg 0x{:x} ({})", how, offset, it->second.name),
                 static_cast<int64_t>(offset)});
  for (unsigned half = 0; half < 2; ++half) {
    auto h = b.kernarg_halves.find(offset + 2 * half);
    if (h == b.kernarg_halves.end()) continue;
    out.push_back({false, sgpr, 16 * half, 16, h->second.min, h->second.max,
                   fmt::format("{} kernarg 0x{:x} ({})", how, offset + 2 * half, h->second.name)});
  }
}

}  // namespace

std::string fact_text(const RegisterFact& f) {
  const std::string reg = f.vector ? fmt::format("v{}", f.reg) : fmt::format("s{}", f.reg);
  const std::string bits = f.lo_bit == 0 && f.width == 32 ? "" : fmt::format("[{}:{}]", f.lo_bit + f.width - 1, f.lo_bit);
  return fmt::format("{}{} in [{}, {}] ({})", reg, bits, f.min, f.max, f.why);
}

LaunchBounds launch_bounds(const codeobj::CodeObject& co, const codeobj::Kernel& kernel, const std::vector<emu::LaunchSpec>& launches) {
  LaunchBounds b;
  for (const emu::LaunchSpec& spec : launches) {
    std::unique_ptr<emu::Launch> L = emu::prepare_launch(co, kernel, spec, 1);
    if (b.launches == 0) {
      const emu::WaveSetup ws = emu::wave_setup(*L);
      unsigned s = ws.private_segment_buffer ? 4 : 0;
      s += ws.dispatch_ptr ? 2 : 0;
      s += ws.queue_ptr ? 2 : 0;
      if (ws.kernarg_segment_ptr) b.kernarg_ptr_sgpr = static_cast<int>(s), s += 2;
      s += (ws.dispatch_id ? 2 : 0) + (ws.flat_scratch_init ? 2 : 0) + (ws.private_segment_size ? 1 : 0);
      b.preload_first_sgpr = s, b.preload_dwords = ws.kernarg_preload_length, b.preload_offset_dwords = ws.kernarg_preload_offset;
      unsigned sys = ws.user_sgpr_count;
      for (unsigned d = 0; d < 3; ++d)
        if (ws.workgroup_id[d]) b.workgroup_id_sgpr[d] = static_cast<int>(sys++);
      b.packed_ids = co.target().arch != codeobj::Arch::Other;
      b.workitem_id_vgprs = ws.workitem_id_vgprs;
    }
    ++b.launches;
    for (unsigned d = 0; d < 3; ++d) b.max_grid[d] = std::max(b.max_grid[d], L->num_groups[d]), b.max_block[d] = std::max(b.max_block[d], L->block[d]);
    b.whole_waves &= (L->block[0] * L->block[1] * L->block[2]) % 64 == 0;
    const std::span<uint8_t> ka = L->mem.bytes(L->kernarg_addr);
    // Which bytes belong to a shape-or-value argument (a dword is a fact only if all four do).
    std::map<uint64_t, std::string> owner;
    for (const codeobj::KernelArg& a : L->md->args)
      for (uint64_t i = 0; i < a.size; ++i) owner[a.offset + i] = shape_or_value(a) ? arg_label(a) : "";
    auto owned = [&](uint64_t off, unsigned n) {
      for (unsigned i = 0; i < n; ++i)
        if (auto it = owner.find(off + i); it == owner.end() || it->second.empty()) return false;
      return true;
    };
    for (uint64_t off = 0; off + 4 <= ka.size() && off < L->md->kernarg_extent(); off += 4) {
      if (!owned(off, 4)) continue;
      uint32_t v;
      std::memcpy(&v, ka.data() + off, 4);
      const std::string name = owner[off] == owner[off + 3] ? owner[off] : owner[off] + ", " + owner[off + 3];
      widen(b.kernarg_dwords[off], v, name);
      widen(b.kernarg_halves[off], v & 0xffff, owner[off]);
      widen(b.kernarg_halves[off + 2], v >> 16, owner[off + 2]);
    }
  }
  // A dword some launch did not have as shape-or-value (its argument list is fixed, so none) stays.
  return b;
}

std::vector<RegisterFact> launch_facts(const program::Program& parent, const std::string& kernel, size_t window_first,
                                       const LaunchBounds& b) {
  std::vector<RegisterFact> out;
  const program::Function* f = parent.function(kernel);
  if (!f || b.launches == 0 || !f->callees.empty()) return out;  // a callee may write anything
  // A register still holding, at line `at`, the value line `def` gave it (kEntryValue: its entry
  // value): `def` is the only definition reaching `at`.
  auto holds = [&](program::RegFile file, unsigned reg, size_t def, size_t at) {
    return program::only_definition(parent, *f, at, program::RegRange{file, reg, 1}, def);
  };
  auto entry_value_at = [&](int s, size_t at) { return s >= 0 && holds(program::RegFile::SGPR, static_cast<unsigned>(s), program::kEntryValue, at); };
  static const char* const kDim = "xyz";
  for (unsigned d = 0; d < 3; ++d)
    if (entry_value_at(b.workgroup_id_sgpr[d], window_first) && b.max_grid[d] > 0)
      out.push_back({false, static_cast<unsigned>(b.workgroup_id_sgpr[d]), 0, 32, 0, b.max_grid[d] - 1,
                     fmt::format("workgroup id {}: grid {} at most {}", kDim[d], kDim[d], b.max_grid[d])});
  if (b.whole_waves && holds(program::RegFile::VGPR, 0, program::kEntryValue, window_first)) {
    if (b.packed_ids) {
      const unsigned dims = 1 + std::min(2u, b.workitem_id_vgprs);
      for (unsigned d = 0; d < 3; ++d) {
        const uint32_t hi = d < dims ? b.max_block[d] - 1 : 0;
        out.push_back({true, 0, 10 * d, 10, 0, hi, fmt::format("work-item id {}: block {} at most {}", kDim[d], kDim[d], b.max_block[d])});
      }
      out.push_back({true, 0, 30, 2, 0, 0, "packed work-item ids: bits 30..31 zero"});
    } else {
      out.push_back({true, 0, 0, 32, 0, b.max_block[0] - 1, fmt::format("work-item id x: block x at most {}", b.max_block[0])});
    }
  }
  // Preloaded kernarg SGPRs (never written) and kernarg loads through the never-written pointer.
  for (unsigned i = 0; i < b.preload_dwords; ++i)
    if (entry_value_at(static_cast<int>(b.preload_first_sgpr + i), window_first))
      add_dword_facts(out, b.preload_first_sgpr + i, 4ull * (b.preload_offset_dwords + i), b, "preloaded");
  if (b.kernarg_ptr_sgpr >= 0) {
    for (size_t i = f->begin; i < f->end; ++i) {
      const program::Line& l = parent.text_line(i);
      if (!l.is_instruction()) continue;
      const std::optional<ScalarLoad> ld = scalar_load(l);
      // The pointer the load reads must be the entry's kernarg pointer, and each loaded SGPR must
      // still hold what this load gave it when the window starts.
      if (!ld || ld->pointer != static_cast<unsigned>(b.kernarg_ptr_sgpr) || !entry_value_at(b.kernarg_ptr_sgpr, i) ||
          !entry_value_at(b.kernarg_ptr_sgpr + 1, i))
        continue;
      for (unsigned k = 0; k < ld->dwords; ++k) {
        const unsigned s = ld->dest + k;
        if (holds(program::RegFile::SGPR, s, i, window_first)) add_dword_facts(out, s, ld->offset + 4ull * k, b, "loaded");
      }
    }
  }
  return out;
}

}  // namespace asmevo::prove
