#include "prove/launch_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <regex>
#include <set>

#include "emu/dispatch.h"
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

// `s_load_dword[xN] sD, s[P:P+1], OFFSET`: destination, pointer pair, byte offset.
struct ScalarLoad {
  unsigned dest = 0, dwords = 0, pointer = 0;
  uint64_t offset = 0;
};
std::optional<ScalarLoad> scalar_load(const std::string& text) {
  static const std::regex re(R"(^s_load_dword(?:x(\d+))?\s+s(?:\[(\d+):\d+\]|(\d+)),\s*s\[(\d+):\d+\],\s*(0x[0-9a-fA-F]+|\d+)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  ScalarLoad l;
  l.dwords = m[1].matched ? static_cast<unsigned>(std::stoul(m[1].str())) : 1;
  l.dest = static_cast<unsigned>(std::stoul(m[2].matched ? m[2].str() : m[3].str()));
  l.pointer = static_cast<unsigned>(std::stoul(m[4].str()));
  l.offset = std::stoull(m[5].str(), nullptr, 0);
  return l;
}

constexpr size_t kNoLine = SIZE_MAX;

int block_of(const program::Function& f, size_t line) {
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (line >= f.blocks[b].first && line <= f.blocks[b].last) return static_cast<int>(b);
  return -1;
}

// Whether some path of f runs from line `start` of block `sb` (inclusive; past the block's last
// line: its successors) to line `to` without passing line `avoid` (kNoLine: none). A block entered
// again starts at its first line, so a path round a loop is followed.
bool reaches(const program::Function& f, size_t sb, size_t start, size_t to, size_t avoid) {
  std::vector<bool> entered(f.blocks.size(), false);
  std::deque<std::pair<size_t, size_t>> todo{{sb, start}};
  while (!todo.empty()) {
    auto [b, line] = todo.front();
    todo.pop_front();
    bool blocked = false;
    for (; line <= f.blocks[b].last; ++line) {
      if (line == to) return true;
      if (line == avoid) {
        blocked = true;
        break;
      }
    }
    if (blocked) continue;
    for (size_t s : f.blocks[b].succs)
      if (!entered[s]) entered[s] = true, todo.push_back({s, f.blocks[s].first});
  }
  return false;
}

// Whether register unit `unit` still holds, at line `at`, the value line `def` gave it (kNoLine:
// its entry value): `def` dominates `at`, and no other writer reaches `at` without passing `def`.
bool holds_value_of(const program::Function& f, const std::vector<size_t>& writers, size_t def, size_t at) {
  if (f.blocks.empty() || block_of(f, at) < 0) return false;
  if (def != kNoLine && reaches(f, 0, f.blocks[0].first, at, def)) return false;  // a path skips def
  for (size_t w : writers) {
    const int wb = block_of(f, w);
    if (w != def && (wb < 0 || reaches(f, static_cast<size_t>(wb), w + 1, at, def))) return false;
  }
  return true;
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
  // Which lines write each SGPR, and v0.
  std::map<unsigned, std::vector<size_t>> writers;
  std::vector<size_t> v0_writers;
  for (size_t i = f->begin; i < f->end; ++i) {
    const program::Line& l = parent.text_line(i);
    if (!l.is_instruction()) continue;
    const program::LineRegisters regs = parent.registers_of(l);
    for (const program::RegRange& d : regs.defs) {
      if (d.file == program::RegFile::SGPR)
        for (unsigned s = d.first; s < d.first + d.count; ++s) writers[s].push_back(i);
      if (d.contains(program::RegFile::VGPR, 0)) v0_writers.push_back(i);
    }
  }
  // An entry SGPR still holding its entry value at line `at`.
  auto entry_value_at = [&](int s, size_t at) {
    return s >= 0 && holds_value_of(*f, writers[static_cast<unsigned>(s)], kNoLine, at);
  };
  static const char* const kDim = "xyz";
  for (unsigned d = 0; d < 3; ++d)
    if (entry_value_at(b.workgroup_id_sgpr[d], window_first) && b.max_grid[d] > 0)
      out.push_back({false, static_cast<unsigned>(b.workgroup_id_sgpr[d]), 0, 32, 0, b.max_grid[d] - 1,
                     fmt::format("workgroup id {}: grid {} at most {}", kDim[d], kDim[d], b.max_grid[d])});
  if (b.whole_waves && holds_value_of(*f, v0_writers, kNoLine, window_first)) {
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
      const std::optional<ScalarLoad> ld = scalar_load(l.text);
      // The pointer the load reads must be the entry's kernarg pointer, and each loaded SGPR must
      // still hold what this load gave it when the window starts.
      if (!ld || ld->pointer != static_cast<unsigned>(b.kernarg_ptr_sgpr) || !entry_value_at(b.kernarg_ptr_sgpr, i) ||
          !entry_value_at(b.kernarg_ptr_sgpr + 1, i))
        continue;
      for (unsigned k = 0; k < ld->dwords; ++k) {
        const unsigned s = ld->dest + k;
        if (holds_value_of(*f, writers[s], i, window_first)) add_dword_facts(out, s, ld->offset + 4ull * k, b, "loaded");
      }
    }
  }
  return out;
}

}  // namespace asmevo::prove
