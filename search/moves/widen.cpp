#include "search/moves/widen.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <set>
#include <sstream>

#include "rebuild/rebuild.h"
#include "check/check.h"
#include "check/isa.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

// Instructions between the two accesses of a pair that are examined at most (longer distances
// rarely pay and make each probe costlier).
constexpr size_t kMaxDistance = 64;

enum class Space { Global, Lds };

// One memory access this move understands, parsed from LLVM's printed text:
//   global_load_dword[xN] vdst, vaddr, saddr|off [offset:k] [cache bits]
//   global_store_dword[xN] vaddr, vdata, saddr|off [offset:k] [cache bits]
//   buffer_load_dword[xN] vdata, vaddr|off, srsrc, soffset [offen|idxen] [offset:k] [cache bits]
//   buffer_store_dword[xN] vdata, ...   (same operands)
//   ds_read_b32|b64 vdst, vaddr [offset:k]     ds_write_b32|b64 vaddr, vdata [offset:k]
struct Mem {
  enum Kind { Global, Buffer, Ds } kind = Global;
  bool store = false;
  unsigned dwords = 1;                 // data registers of the access
  int64_t offset = 0;                  // bytes (the instruction's offset field)
  RegRange data;                       // vdst (loads) or vdata (stores)
  std::vector<RegRange> addr;          // address registers (vaddr, saddr, srsrc, soffset)
  std::string base;                    // address operands as printed: equal base = equal address
  std::string mods;                    // modifiers other than the offset, sorted
  std::vector<std::string> operands;   // as printed
  std::vector<std::string> tail;       // modifier tokens as printed, in order
  size_t data_index = 0;               // operand index of the data register
  Space space() const { return kind == Ds ? Space::Lds : Space::Global; }
  check::Counter counter() const { return kind == Ds ? check::kLgkmCnt : check::kVmCnt; }
};

std::optional<Mem> parse_mem(const std::string& text) {
  size_t sp = text.find(' ');
  if (sp == std::string::npos) return std::nullopt;
  std::string mn = text.substr(0, sp);
  Mem m;
  std::string prefix;
  if (mn.rfind("global_load_dword", 0) == 0) m.kind = Mem::Global, prefix = "global_load_dword";
  else if (mn.rfind("global_store_dword", 0) == 0) m.kind = Mem::Global, m.store = true, prefix = "global_store_dword";
  else if (mn.rfind("buffer_load_dword", 0) == 0) m.kind = Mem::Buffer, prefix = "buffer_load_dword";
  else if (mn.rfind("buffer_store_dword", 0) == 0) m.kind = Mem::Buffer, m.store = true, prefix = "buffer_store_dword";
  else if (mn == "ds_read_b32" || mn == "ds_read_b64") m.kind = Mem::Ds, m.dwords = mn == "ds_read_b64" ? 2 : 1;
  else if (mn == "ds_write_b32" || mn == "ds_write_b64") m.kind = Mem::Ds, m.store = true, m.dwords = mn == "ds_write_b64" ? 2 : 1;
  else return std::nullopt;
  if (m.kind != Mem::Ds) {
    std::string suffix = mn.substr(prefix.size());
    if (suffix == "") m.dwords = 1;
    else if (suffix == "x2") m.dwords = 2;
    else if (suffix == "x3") m.dwords = 3;
    else if (suffix == "x4") m.dwords = 4;
    else return std::nullopt;
  }
  // Operands are separated by ", "; the last one is followed by space-separated modifiers.
  std::vector<std::string> parts;
  std::string rest = text.substr(sp + 1);
  size_t start = 0;
  while (true) {
    size_t comma = rest.find(',', start);
    std::string part = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && part.front() == ' ') part.erase(part.begin());
    parts.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::istringstream last(parts.back());
  std::string tok;
  last >> parts.back();
  std::vector<std::string> mods;
  while (last >> tok) {
    m.tail.push_back(tok);
    if (tok.rfind("offset:", 0) == 0) {
      try {
        m.offset = std::stoll(tok.substr(7), nullptr, 0);
      } catch (...) {
        return std::nullopt;
      }
    } else {
      mods.push_back(tok);
    }
  }
  for (const std::string& t : mods)
    // LDS-DMA, texture-fail and GDS forms move data elsewhere; offset0/offset1 are read2 forms.
    if (t == "lds" || t == "tfe" || t == "lwe" || t == "gds" || t.rfind("offset", 0) == 0) return std::nullopt;
  std::sort(mods.begin(), mods.end());
  for (const std::string& t : mods) m.mods += t + " ";
  m.operands = parts;
  const size_t expected = m.kind == Mem::Ds ? 2 : m.kind == Mem::Global ? 3 : 4;
  if (parts.size() != expected) return std::nullopt;
  m.data_index = (m.kind == Mem::Global && m.store) || (m.kind == Mem::Ds && m.store) ? 1 : 0;
  auto data = program::parse_reg(parts[m.data_index]);
  if (!data || (data->file != RegFile::VGPR && data->file != RegFile::AGPR) || data->count != m.dwords) return std::nullopt;
  m.data = *data;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i == m.data_index) continue;
    m.base += parts[i] + "|";
    if (auto r = program::parse_reg(parts[i])) m.addr.push_back(*r);
  }
  return m;
}

bool overlaps_any(const std::vector<RegRange>& a, const std::vector<RegRange>& b) {
  for (const RegRange& x : a)
    for (const RegRange& y : b)
      if (program::overlaps(x, y)) return true;
  return false;
}

// One instruction of the block being rewritten, with what the legality rules need.
struct Item {
  std::string text;
  size_t parent_line = 0;
  bool changed = false;
  std::vector<RegRange> defs, uses;
  bool fence = false;                 // nothing may move across it
  bool global_read = false, global_write = false, lds_read = false, lds_write = false;
  bool vm_event = false, lgkm_event = false;
  bool is_return = false;
  std::optional<check::Wait> wait;
  std::optional<Mem> mem;
  bool event(check::Counter c) const { return c == check::kVmCnt ? vm_event : c == check::kLgkmCnt ? lgkm_event : false; }
};

Item make_item(const program::Line& l, size_t line, codeobj::Arch arch) {
  Item it;
  it.text = l.text;
  it.parent_line = line;
  if (l.kind != program::Line::Instr || !l.inst) {
    it.fence = true;  // raw bytes or undecoded: unknown effects
    return it;
  }
  const program::Instruction& in = *l.inst;
  it.defs = in.defs;
  it.uses = in.uses;
  it.is_return = in.is_return;
  using program::InstClass;
  switch (in.cls) {
    case InstClass::Branch: case InstClass::Barrier: case InstClass::Message: case InstClass::VMEMCache:
    case InstClass::Other:
      it.fence = true;
      break;
    default:
      break;
  }
  if (in.is_call || check::is_lds_dma(in) || check::is_gds(in)) it.fence = true;
  if (check::is_smem(in) && !in.may_load) it.fence = true;  // s_store/s_dcache_*/s_memtime: keep order
  const bool vm = check::is_vmem(in), flat = check::is_flat(in);
  if (vm || check::is_smem(in)) {
    it.global_read = in.may_load;
    it.global_write = in.may_store;
  }
  if ((check::is_ds(in) && check::ds_accesses_lds_memory(in)) || flat) {
    it.lds_read = in.may_load;
    it.lds_write = in.may_store;
  }
  it.vm_event = vm;
  it.lgkm_event = check::is_ds(in) || check::is_smem(in) || flat || in.cls == InstClass::Message;
  if (in.cls == InstClass::Waitcnt) {
    it.wait = check::decode_waitcnt(in, arch);
    if (!it.wait) it.fence = true;  // s_waitcnt_vmcnt & co.: not re-derived here
  }
  it.mem = parse_mem(in.text);
  return it;
}

// Registers a memory access reads: its address registers, EXEC, and a store's data.
std::vector<RegRange> mem_reads(const Mem& m) {
  std::vector<RegRange> r = m.addr;
  r.push_back({RegFile::EXEC, 0, 2});
  if (m.store) r.push_back(m.data);
  return r;
}

std::string join_operands(const std::vector<std::string>& ops) {
  std::string s;
  for (size_t i = 0; i < ops.size(); ++i) s += (i ? ", " : "") + ops[i];
  return s;
}

// The merged access of `a` (earlier line) and `b`, or nullopt when they cannot form one.
std::optional<Mem> merged_access(const Mem& a, const Mem& b, std::string& text) {
  if (a.kind != b.kind || a.store != b.store || a.base != b.base || a.mods != b.mods || a.data.file != b.data.file)
    return std::nullopt;
  // Loaded registers may not feed an address (the merged load would read the address once).
  if (!a.store && (overlaps_any({a.data}, a.addr) || overlaps_any({b.data}, b.addr))) return std::nullopt;
  if (a.kind == Mem::Ds) {
    // ds_read2/ds_write2 (ISA "LDS instructions"; LLVM DSInstructions.td): ADDR + OFFSET0*S and
    // ADDR + OFFSET1*S with 8-bit unsigned offsets in units of the element size S (4 or 8 bytes).
    // Each element has the same alignment requirement as the single ds_read/ds_write it replaces.
    if (a.dwords != b.dwords) return std::nullopt;
    const int64_t s = 4 * a.dwords;
    for (const Mem* m : {&a, &b})
      if (m->offset < 0 || m->offset % s != 0 || m->offset / s > 255) return std::nullopt;
    // Two writes to one address: the ISA does not say which of write2's elements lands last.
    if (a.store && a.offset == b.offset) return std::nullopt;
    Mem m = a;
    const std::string size = a.dwords == 1 ? "b32" : "b64";
    auto offsets = [&](int64_t o0, int64_t o1) {
      std::string t;
      if (o0 / s) t += fmt::format(" offset0:{}", o0 / s);
      if (o1 / s) t += fmt::format(" offset1:{}", o1 / s);
      return t;
    };
    if (!a.store) {
      // vdst is one tuple: element 0 (offset0) in the low registers; tuples start even on gfx90a+.
      const Mem *lo = nullptr, *hi = nullptr;
      if (a.data.first + a.dwords == b.data.first) lo = &a, hi = &b;
      else if (b.data.first + b.dwords == a.data.first) lo = &b, hi = &a;
      else return std::nullopt;
      if (lo->data.first % 2) return std::nullopt;
      m.data = {a.data.file, lo->data.first, 2 * a.dwords};
      text = fmt::format("ds_read2_{} {}, {}{}", size, program::to_string(m.data), a.operands[1], offsets(lo->offset, hi->offset));
    } else {
      // ds_write2 takes two data operands, so the data registers need not be consecutive.
      text = fmt::format("ds_write2_{} {}, {}, {}{}", size, a.operands[0], a.operands[1], b.operands[1], offsets(a.offset, b.offset));
    }
    m.dwords = 2 * a.dwords;
    m.operands.clear();
    m.tail.clear();
    return m;
  }
  // Global / buffer: contiguous bytes in consecutive registers, lower offset in lower registers.
  const Mem* lo = nullptr;
  if (a.offset + 4 * a.dwords == b.offset && a.data.first + a.dwords == b.data.first) lo = &a;
  else if (b.offset + 4 * b.dwords == a.offset && b.data.first + b.dwords == a.data.first) lo = &b;
  else return std::nullopt;
  const unsigned n = a.dwords + b.dwords;
  if (n > 4) return std::nullopt;
  // gfx90a/gfx942/gfx950 need 64-bit-aligned register tuples (LLVM AMDGPUOperandSyntax
  // "GFX90A and GFX942 ... pairs of vector registers must be even-aligned"; the assembler
  // rejects "global_load_dwordx2 v[1:2], ..." with "vgpr tuples must be 64 bit aligned").
  if (lo->data.first % 2) return std::nullopt;
  // The merged access starts at the lower access's address, which the original code already
  // accessed as a dword: gfx9 multi-dword global/buffer accesses need no more than dword
  // alignment (LLVM AMDGPU.td: FeatureGFX9 has FeatureUnalignedBufferAccess; SH_MEM_CONFIG
  // alignment mode DWORD or UNALIGNED as HSA sets it). Buffer range checking is per dword for
  // dwordx2..x4 (ISA "Range Checking"; emu/semantics/mubuf.cpp), so masked-off dwords stay so.
  Mem m = *lo;
  m.dwords = n;
  m.data = {lo->data.file, lo->data.first, n};
  m.operands[m.data_index] = program::to_string(m.data);
  std::string mn = m.kind == Mem::Global ? (m.store ? "global_store_dword" : "global_load_dword")
                                         : (m.store ? "buffer_store_dword" : "buffer_load_dword");
  mn += fmt::format("x{}", n);
  text = mn + " " + join_operands(m.operands);
  for (const std::string& t : lo->tail) text += " " + t;
  return m;
}

Item merged_item(const Item& placed, const Mem& m, const std::string& text) {
  Item it;
  it.text = text;
  it.parent_line = placed.parent_line;
  it.changed = true;
  it.uses = mem_reads(m);
  if (!m.store) it.defs = {m.data};
  if (m.space() == Space::Global) (m.store ? it.global_write : it.global_read) = true;
  else (m.store ? it.lds_write : it.lds_read) = true;
  it.vm_event = m.counter() == check::kVmCnt;
  it.lgkm_event = m.counter() == check::kLgkmCnt;
  it.mem = m;
  // A merged DS access is a read2/write2: not merged again (parse_mem does not take it).
  if (m.kind == Mem::Ds) it.mem.reset();
  return it;
}

// May the access `x` move across `i`?
bool can_cross(const Item& i, const Mem& x) {
  if (i.fence) return false;
  if (overlaps_any(i.defs, mem_reads(x))) return false;
  if (!x.store && (overlaps_any(i.defs, {x.data}) || overlaps_any(i.uses, {x.data}))) return false;
  const bool same_write = x.space() == Space::Global ? i.global_write : i.lds_write;
  const bool same_read = x.space() == Space::Global ? i.global_read : i.lds_read;
  if (same_write) return false;           // may alias: a load would see a different value
  if (x.store && same_read) return false;  // a store moved across a load of the same memory
  return true;
}

struct Merged {
  std::vector<Item> items;
  size_t index = 0;  // of the merged access in `items`
};

// Merges items[a] and items[b] (a < b) if legal; returns the new item list.
// `settled[c]`: every path out of the block reaches a wait of 0 on counter c (or the end of the
// program) before any other wait on c, so waits outside the block do not depend on how many
// operations the block issued.
// `stronger`: whether a wait that covered the first access but not the second may be made to wait
// for the merged access (for both halves).
std::optional<Merged> try_merge(const std::vector<Item>& items, size_t a, size_t b,
                                const check::CounterLimits& limits, const std::array<bool, check::kNumCounters>& settled,
                                bool stronger) {
  const Mem &ma = *items[a].mem, &mb = *items[b].mem;
  std::string text;
  auto m = merged_access(ma, mb, text);
  if (!m) return std::nullopt;
  // The other access's registers: neither may write what the other reads.
  if (!ma.store && (overlaps_any({ma.data}, mem_reads(mb)) || overlaps_any({mb.data}, mem_reads(ma)))) return std::nullopt;
  // Placement: loads at the earlier access (the later one is hoisted), stores at the later one
  // (their data is usually computed in between); the other placement as fallback.
  std::vector<size_t> places = ma.store ? std::vector<size_t>{b, a} : std::vector<size_t>{a, b};
  for (size_t place : places) {
    const size_t moved = place == a ? b : a;
    const Mem& x = *items[moved].mem;
    bool ok = true;
    for (size_t i = a + 1; i < b && ok; ++i) ok = can_cross(items[i], x);
    if (!ok) continue;
    // New list: the merged access at `place`, the moved one removed.
    std::vector<Item> out;
    std::vector<size_t> new_index(items.size(), SIZE_MAX);
    for (size_t i = 0; i < items.size(); ++i) {
      if (i == moved) continue;
      new_index[i] = out.size();
      out.push_back(i == place ? merged_item(items[place], *m, text) : items[i]);
    }
    // The merged access reads (and, a load, writes) the registers of both.
    Item& merged = out[new_index[place]];
    for (const Mem* y : {&ma, &mb}) {
      for (const RegRange& u : mem_reads(*y)) merged.uses.push_back(u);
      if (!y->store) merged.defs.push_back(y->data);
    }
    const size_t merged_new = new_index[place];
    new_index[moved] = merged_new;
    // Re-derive every wait after the first access on the merged access's counter.
    const check::Counter c = m->counter();
    bool resolved = false;
    for (size_t w = a + 1; w < items.size() && ok && !resolved; ++w) {
      if (w == moved || !items[w].wait || items[w].wait->count[c] >= limits.max[c]) continue;
      const unsigned count = items[w].wait->count[c];
      std::vector<size_t> before, before_new;  // events issued before the wait, old and new
      for (size_t e = 0; e < w; ++e)
        if (items[e].event(c)) before.push_back(e);
      for (size_t e = 0; e < new_index[w]; ++e)
        if (out[e].event(c)) before_new.push_back(e);
      unsigned next = count;
      if (count >= before.size()) {
        // Only operations from before the block are covered: keep the same number of newer ones.
        next = count - static_cast<unsigned>(before.size() - before_new.size());
      } else {
        // The covered operations are before[0 .. size-1-count]; the new wait must cover their
        // images (the merged access stands for both of the pair).
        long last = -1;
        bool covers_a = false, covers_b = false;
        for (size_t k = 0; k + count < before.size(); ++k) {
          covers_a |= before[k] == a;
          covers_b |= before[k] == b;
          size_t img = new_index[before[k]];
          auto pos = std::find(before_new.begin(), before_new.end(), img);
          if (pos == before_new.end()) {
            ok = false;  // a wait needed the sunk access before its new place
            break;
          }
          last = std::max<long>(last, pos - before_new.begin());
        }
        if (!ok) break;
        if (covers_a && !covers_b && !stronger) {
          ok = false;  // the wait would now also wait for the second half
          break;
        }
        next = static_cast<unsigned>(before_new.size() - 1 - last);
        if (next > count) {
          ok = false;  // cannot happen (one event fewer, none later); never weaken a wait
          break;
        }
        // Once a wait after both accesses covers them, every operation up to the pair is
        // complete and later waits keep their meaning.
        auto bpos = std::find(before.begin(), before.end(), b);
        if (w > b && bpos != before.end() && static_cast<size_t>(bpos - before.begin()) + count < before.size()) resolved = true;
      }
      if (next != count) {
        Item& it = out[new_index[w]];
        it.wait->count[c] = next;
        it.text = check::waitcnt_text(*it.wait, limits);
        it.changed = true;
      }
    }
    if (!ok) continue;
    // Unresolved: a wait in a later block could count one operation too many; allowed only when
    // every way out of the block settles the counter first.
    if (!resolved && !items.back().is_return && !settled[c]) continue;
    return Merged{std::move(out), merged_new};
  }
  return std::nullopt;
}

// The hunk turning the parent's lines of a block into `items`, or nullopt when nothing changed.
std::optional<Hunk> block_hunk(const program::Program& p, size_t first, size_t last, const std::vector<Item>& items) {
  std::vector<bool> kept(last + 1 - first, false);
  size_t lo = SIZE_MAX, hi = 0;
  for (const Item& it : items) {
    kept[it.parent_line - first] = true;
    if (it.changed) lo = std::min(lo, it.parent_line), hi = std::max(hi, it.parent_line);
  }
  for (size_t l = first; l <= last; ++l)
    if (!kept[l - first]) lo = std::min(lo, l), hi = std::max(hi, l);
  if (lo == SIZE_MAX) return std::nullopt;
  std::vector<std::string> lines;
  for (const Item& it : items)
    if (it.parent_line >= lo && it.parent_line <= hi) lines.push_back(it.text);
  return make_hunk(p, lo, hi, lines);
}

// Does every path from the end of block `start` reach `s_waitcnt` with counter c at 0, or
// s_endpgm, before any other wait on c, call or unknown instruction? (See try_merge.)
bool settles(const program::Program& p, const program::Function& f, size_t start, check::Counter c,
             const check::CounterLimits& limits, codeobj::Arch arch) {
  std::vector<size_t> todo = f.blocks[start].succs;
  std::set<size_t> seen;
  if (todo.empty()) return p.text_line(f.blocks[start].last).inst && p.text_line(f.blocks[start].last).inst->is_return;
  while (!todo.empty()) {
    size_t bi = todo.back();
    todo.pop_back();
    if (!seen.insert(bi).second) continue;
    const program::BasicBlock& blk = f.blocks[bi];
    bool done = false;
    for (size_t l = blk.first; l <= blk.last && !done; ++l) {
      const program::Line& line = p.text_line(l);
      if (line.kind != program::Line::Instr || !line.inst) return false;
      const program::Instruction& in = *line.inst;
      if (in.is_call) return false;
      if (in.is_return) {
        done = true;
      } else if (in.cls == program::InstClass::Waitcnt) {
        auto w = check::decode_waitcnt(in, arch);
        if (!w) return false;
        if (w->count[c] == 0) done = true;
        else if (w->count[c] < limits.max[c]) return false;
      }
    }
    if (done) continue;
    if (blk.succs.empty()) return false;  // leaves the function some other way
    for (size_t s : blk.succs) todo.push_back(s);
  }
  return true;
}

}  // namespace

Widening widen_accesses(const program::Program& p, const std::string& kernel, std::optional<std::pair<size_t, size_t>> window,
                        bool allow_stronger_waits) {
  const program::Function* f = p.function(kernel);
  if (!f || !f->is_kernel) throw Error("no kernel named " + kernel, p.original().elf().name());
  const codeobj::Arch arch = p.original().target().arch;
  if (arch != codeobj::Arch::gfx90a && arch != codeobj::Arch::gfx942 && arch != codeobj::Arch::gfx950)
    throw Error("load/store widening supports gfx90a, gfx942 and gfx950 only", p.original().elf().name());
  const check::CounterLimits limits = check::counter_limits(arch);
  const size_t first = window ? window->first : f->begin, last = window ? window->second : f->end - 1;

  Widening r{Edit{}, p, {}, 0, 0};
  r.edit.kernel = kernel;
  r.edit.move = "widen";
  r.edit.proposer = "rules";
  bool parent_checked = false;
  for (const program::BasicBlock& blk : f->blocks) {
    if (blk.last < first || blk.first > last) continue;
    bool plain = true;  // only instruction lines: a hunk may replace any range of them
    for (size_t l = blk.first; l <= blk.last && plain; ++l) plain = p.text_line(l).kind == program::Line::Instr;
    if (!plain) continue;
    const size_t bi = static_cast<size_t>(&blk - f->blocks.data());
    std::array<bool, check::kNumCounters> settled{};
    for (check::Counter c : {check::kVmCnt, check::kLgkmCnt}) settled[c] = settles(p, *f, bi, c, limits, arch);
    std::vector<Item> items;
    for (size_t l = blk.first; l <= blk.last; ++l) items.push_back(make_item(p.text_line(l), l, arch));
    bool merged_any = false;
    std::set<std::pair<size_t, size_t>> refused;  // parent lines of pairs the gate refused
    for (size_t a = 0; a < items.size();) {
      bool merged = false;
      if (items[a].mem && items[a].parent_line >= first && items[a].parent_line <= last) {
        for (size_t b = a + 1; b < items.size() && b <= a + kMaxDistance && !merged; ++b) {
          if (!items[b].mem || items[b].parent_line > last) continue;
          if (refused.count({items[a].parent_line, items[b].parent_line})) continue;
          auto next = try_merge(items, a, b, limits, settled, allow_stronger_waits);
          if (!next) continue;
          if (!parent_checked) {
            ++r.probes;
            if (!rebuilds_clean(p, kernel))
              throw Error("kernel " + kernel + " already has static findings; widening needs a clean kernel", p.original().elf().name(),
                          "run asmevo check on it");
            parent_checked = true;
          }
          // Gate: the kernel with every merge so far plus this one must check clean.
          Edit trial = r.edit;
          auto h = block_hunk(p, blk.first, blk.last, next->items);
          if (!h) continue;
          trial.hunks.push_back(*h);
          ++r.probes;
          bool ok = false;
          try {
            ok = rebuilds_clean(apply_edit(p, trial), kernel);
          } catch (const Error&) {
            ok = false;  // the assembler or a resource limit refused it
          }
          if (!ok) {
            ++r.rejected;
            refused.insert({items[a].parent_line, items[b].parent_line});
            continue;
          }
          r.changes.push_back({p.text_line(items[a].parent_line).address, {items[a].text, items[b].text}, next->items[next->index].text});
          items = std::move(next->items);
          merged = merged_any = true;
        }
      }
      // After a merge the same position is tried again: it holds the merged load (which may take
      // another neighbour: x2 + x2 -> x4) or the instruction after a store that moved down.
      if (!merged) ++a;
    }
    if (merged_any)
      if (auto h = block_hunk(p, blk.first, blk.last, items)) r.edit.hunks.push_back(*h);
  }
  if (!r.changes.empty()) {
    r.program = apply_edit(p, r.edit);
    r.edit.description = fmt::format("{} memory access pair(s) merged into wider accesses{}", r.changes.size(),
                                     allow_stronger_waits ? ", some waits now waiting for both halves" : "");
  }
  return r;
}

}  // namespace asmevo::search

namespace asmevo::search {
namespace {

class WidenMove final : public Move {
 public:
  std::string name() const override { return "widen"; }
  std::string proposer() const override { return "rules"; }
  std::vector<Edit> propose(const MoveContext& c) override {
    // First the merges that leave every wait as weak as before; then, if there are more, all merges
    // (a wait that waited for one half of a pair now waits for both: the timing decides).
    std::vector<Edit> edits;
    Widening w = widen_accesses(c.program, c.kernel, std::pair{c.window.first, c.window.last});
    if (!w.changes.empty()) edits.push_back(w.edit);
    if (edits.size() < c.max_edits) {
      Widening all = widen_accesses(c.program, c.kernel, std::pair{c.window.first, c.window.last}, true);
      if (all.changes.size() > w.changes.size()) edits.push_back(all.edit);
    }
    if (edits.size() > c.max_edits) edits.resize(c.max_edits);
    return edits;
  }
};

}  // namespace

std::unique_ptr<Move> make_widen_move() { return std::make_unique<WidenMove>(); }

}  // namespace asmevo::search
