// Move: guarded store-to-load forwarding in LDS (issue 17). A workgroup scan keeps each lane's value in
// LDS at buf[threadIdx.x] and, after a barrier, reads it back: `ds_write_b32 vA, vD` ... `ds_read_b32
// vR, vA` with vA = 4 * work-item id x. The read costs an LDS round trip (and the lgkmcnt wait after
// it) for a value the lane already has. The edit (a guarded copy, guarded_copy.h) runs, for one-
// dimensional workgroups only, a copy of the kernel in which each such read is `v_mov_b32 vR, vD` (or
// reads a fresh VGPR that a `v_mov_b32 vF, vD` right after the store filled, where vD is overwritten
// before the read); every other launch runs the original code.
//
// Why the result is the same for every launch. The guard (one_dimensional_workgroup_guard) sends a
// launch to the copy only when its workgroup size is (X, 1, 1), read from the dispatch packet; all
// waves of a workgroup take the same path. In the copy, for a forwarded pair S = `ds_write_b32 vA, vD
// offset:o` and R = `ds_read_b32 vR, vA offset:o`, in a lane l active at R:
//  - Same address: vA is not written between S and R (R is reached from S only along straight-line
//    code: no label between them, so no other path enters; branches out are fine), and o is the same.
//  - l wrote it at S: EXEC at S is the kernel's entry EXEC (E0, tracked below) and EXEC at R is a
//    subset of E0, so l was active at S.
//  - Nothing else wrote that word in between, in any lane of the workgroup (LDS is per workgroup; the
//    other waves may run any LDS store of the kernel meanwhile, barriers or not). Every LDS store of
//    the kernel is classified by the definitions reaching its address register: (a) a lane word
//    `4 * x + o` (every reaching definition is `v_lshlrev_b32 vA, 2, v0` where no definition of v0 reaches
//    it, so v0 is the work-item id x the hardware set up; only X is enabled, the emulator's and the hardware's
//    v0 hold x and nothing else), a 4-byte store at the same offset o: another lane's x' differs from
//    x in a one-dimensional workgroup, so 4x'+o is another word; l's own such stores end the straight
//    line (the next pair starts there); (b) a constant address K (every reaching definition is
//    `v_mov_b32 vC, K`): its bytes [K+off, K+off+size) lie outside [o, o + 4 * max_flat_workgroup_size),
//    the words any lane's R can read; (c) anything else refuses the edit, as do LDS stores the move
//    cannot classify (DS atomics, ds_*_addtid, GWS), flat stores (a flat address may be LDS) and LDS
//    DMA loads (`lds` modifier).
//  - So R returns the 32 bits S stored, which are vD's bits at S, and v_mov_b32 copies bits (no float
//    conversion). vF is a VGPR the kernel never names, written at S under E0 and read only by S's
//    pairs, all before the next lane-word store (where the scan stops), so it still holds vD.
//  - Counters: the copy issues fewer LDS operations; a wait `lgkmcnt(0)` still waits for every earlier
//    one, so the move refuses kernels with a partial lgkmcnt wait (whose meaning the removal changes).
//    v_mov writes vR at once instead of when the read returns: compiled code reads or writes vR only
//    after its wait (the cascade's static check proves the waits of the copy).
// EXEC tracking is program/reaching.h's exec_from_entry (E0 is the entry EXEC: saveexec narrows,
// its restore from a pair still holding E0 restores it, any other EXEC write makes it unknown, so no
// forwarding across it); reaching definitions are program/reaching.h's, where a definition hides the
// ones before it when made under E0, or when it lies in the use's block with no EXEC write between it
// and the use (same lanes).
//
// Refused (no edit), with the reason: guarded_copy.h's refusals (raw instructions, ...), the guard's
// (dispatch pointer already enabled, ...), calls, work-item ids y/z enabled (then v0 is not x alone),
// v0 written, an LDS store the classification above does not cover, a partial lgkmcnt wait, no pair,
// a window that holds no forwarded read, and no free VGPR where one is needed.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "codeobj/arch_params.h"
#include "program/reaching.h"
#include "search/moves/guarded_copy.h"
#include "search/moves/lds_forward.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"

namespace asmevo::search {
namespace {

using program::RegFile;
using program::RegRange;

using program::EntryExec;
constexpr size_t kEntry = program::kEntryValue;
const RegRange kExec{RegFile::EXEC, 0, 2};

// An LDS access the move understands: a one-address read or write of `bytes`, or a write2 pair.
struct DsAccess {
  bool write = false;
  unsigned bytes = 0;
  unsigned addr = 0;                 // address VGPR
  std::vector<unsigned> offsets;     // byte offsets of each address (write2: two)
  std::string data;                  // read: destination; write: data (one-address forms)
};

std::optional<DsAccess> parse_ds(const program::Instruction& in) {
  static const std::regex one(R"(^ds_(read|write)_(b8|b16|b32|b64|b96|b128|u8|i8|u16|i16) (v\d+|v\[\d+:\d+\]), (v\d+|v\[\d+:\d+\])( offset:(\d+))?$)");
  static const std::regex two(R"(^ds_write2(st64)?_(b32|b64) (v\d+), (v\d+|v\[\d+:\d+\]), (v\d+|v\[\d+:\d+\])( offset0:(\d+))?( offset1:(\d+))?$)");
  std::smatch m;
  auto size_of = [](const std::string& t) {
    const unsigned bits = std::stoul(t.substr(1));
    return bits / 8;
  };
  if (std::regex_match(in.text, m, one)) {
    DsAccess a;
    a.write = m[1] == "write";
    a.bytes = size_of(m[2]);
    const std::string addr = a.write ? m[3] : m[4];
    a.data = a.write ? m[4] : m[3];
    auto r = program::parse_reg(addr);
    if (!r || r->file != RegFile::VGPR || r->count != 1) return std::nullopt;
    a.addr = r->first;
    a.offsets = {m[6].matched ? static_cast<unsigned>(std::stoul(m[6])) : 0u};
    return a;
  }
  if (std::regex_match(in.text, m, two)) {
    DsAccess a;
    a.write = true;
    a.bytes = size_of(m[2]);
    const unsigned unit = a.bytes * (m[1].matched ? 64 : 1);
    auto r = program::parse_reg(m[3].str());
    if (!r || r->file != RegFile::VGPR || r->count != 1) return std::nullopt;
    a.addr = r->first;
    a.offsets = {(m[7].matched ? static_cast<unsigned>(std::stoul(m[7])) : 0u) * unit, (m[9].matched ? static_cast<unsigned>(std::stoul(m[9])) : 0u) * unit};
    return a;
  }
  return std::nullopt;
}

// DS instructions that touch no LDS memory or only read it (a read needs no classification).
bool ds_without_store(const std::string& m) {
  return m.rfind("ds_read", 0) == 0 || m == "ds_bpermute_b32" || m == "ds_permute_b32" || m == "ds_swizzle_b32" || m == "ds_nop";
}

struct Value {
  enum Kind { LaneWord, Constant, Other } kind = Other;  // 4 * x, a constant, unknown
  uint32_t constant = 0;
};

class Analysis {
 public:
  Analysis(const program::Program& p, const program::Function& f) : p_(p), f_(f), exec_(program::exec_from_entry(p, f)) {
    block_of_.assign(f.end, 0);
    for (size_t b = 0; b < f.blocks.size(); ++b)
      for (size_t i = f.blocks[b].first; i <= f.blocks[b].last; ++i) block_of_[i] = b;
  }

  EntryExec exec(size_t line) const { return exec_[line - f_.begin]; }

  // The definitions of one VGPR that the value read at `line` may come from (kEntry: the entry value).
  // A definition hides the ones before it when made under E0, or when it lies in `line`'s block with
  // no EXEC write from it to `line` (the same lanes).
  std::set<size_t> reaching(size_t line, unsigned vgpr) const {
    const program::BasicBlock& blk = f_.blocks[block_of_[line]];
    size_t same_lanes_from = blk.first;  // the last EXEC write before `line` in its block, or its first line
    for (size_t i = blk.first; i < line; ++i)
      if (const program::Line& l = p_.text_line(i); l.kind == program::Line::Instr && l.inst && l.inst->writes(kExec)) same_lanes_from = i;
    return program::reaching_definitions(p_, f_, line, RegRange{RegFile::VGPR, vgpr, 1}, [&](size_t d) {
      return exec(d) == EntryExec::Entry || (same_lanes_from <= d && d < line);
    });
  }

  // What one VGPR holds at `line` in every lane that runs it.
  Value value(size_t line, unsigned vgpr) const {
    std::optional<Value> v;
    static const std::regex lane_word(R"(^v_lshlrev_b32(_e32|_e64)? v(\d+), 2, v0$)");
    static const std::regex constant(R"(^v_mov_b32(_e32)? v(\d+), (-?(0x[0-9a-fA-F]+|\d+))$)");
    for (size_t d : reaching(line, vgpr)) {
      Value x;
      if (d != kEntry) {
        const std::string& t = p_.text_line(d).text;
        std::smatch m;
        if (std::regex_match(t, m, lane_word) && std::stoul(m[2]) == vgpr && reaching(d, 0) == std::set<size_t>{kEntry}) x.kind = Value::LaneWord;
        else if (std::regex_match(t, m, constant) && std::stoul(m[2]) == vgpr)
          x.kind = Value::Constant, x.constant = static_cast<uint32_t>(std::stoll(m[3], nullptr, 0));
      }
      if (v && (v->kind != x.kind || v->constant != x.constant)) return {};
      v = x;
    }
    return v.value_or(Value{});
  }

 private:
  const program::Program& p_;
  const program::Function& f_;
  std::vector<EntryExec> exec_;
  std::vector<size_t> block_of_;
};

struct Pair {
  size_t store = 0, load = 0;
  std::string data, dest;  // S's data VGPR, R's destination
  bool data_intact = true; // S's data register still holds it at R
};

class LdsForwardMove final : public Move {
 public:
  std::string name() const override { return "lds-forward"; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    std::string why;
    std::optional<Edit> e = forward(c, why);
    if (!e) return {};
    return {std::move(*e)};
  }

  std::optional<Edit> forward(const MoveContext& c, std::string& why) const {
    const program::Program& p = c.program;
    const program::Function* f = p.function(c.kernel);
    if (!f || !f->is_kernel || f->blocks.empty() || !f->callees.empty()) return why = "not a kernel without calls", std::nullopt;
    const codeobj::KernelDescriptor& kd = p.kernel_descriptor(c.kernel);
    if (kd.workitem_id_vgprs() != 0) return why = "work-item ids y/z are enabled", std::nullopt;
    uint64_t flat = 1024;
    if (const codeobj::Metadata* md = p.metadata())
      if (const codeobj::KernelMetadata* k = md->kernel(c.kernel); k && k->max_flat_workgroup_size) flat = std::min<uint64_t>(k->max_flat_workgroup_size, 1024);
    Analysis an(p, *f);

    // Every LDS store classified; the loads that can be forwarded.
    std::optional<unsigned> word_offset;  // o, the one offset of every lane-word store
    std::vector<std::pair<size_t, DsAccess>> constant_stores;  // with their constant address in .addr
    std::map<size_t, DsAccess> lane_stores, lane_loads;
    size_t g = 0;
    for (size_t i = f->begin; i < f->end; ++i) {
      const program::Line& l = p.text_line(i);
      if (l.kind == program::Line::RawInstr) return why = "raw instructions", std::nullopt;
      if (l.kind != program::Line::Instr || !l.inst) continue;
      if (!g) g = i;
      const program::Instruction& in = *l.inst;
      const std::string& m = in.mnemonic;
      static const std::regex partial_lgkm(R"(lgkmcnt\(([1-9]\d*)\))");
      if (m == "s_waitcnt" && std::regex_search(in.text, partial_lgkm)) return why = "a partial lgkmcnt wait", std::nullopt;
      if (in.cls == program::InstClass::FLAT && in.may_store) return why = "a flat store (may write LDS)", std::nullopt;
      if (m.find("_lds") != std::string::npos || in.text.find(" lds") != std::string::npos) return why = "an LDS DMA load", std::nullopt;
      if (m.rfind("ds_", 0) != 0) continue;
      std::optional<DsAccess> a = parse_ds(in);
      if (ds_without_store(m)) {
        if (a && !a->write && a->bytes == 4 && an.value(i, a->addr).kind == Value::LaneWord) lane_loads[i] = *a;
        continue;
      }
      if (!a) return why = "an LDS store the move cannot classify: " + in.text, std::nullopt;
      const Value v = an.value(i, a->addr);
      if (v.kind == Value::LaneWord && a->offsets.size() == 1 && a->bytes == 4) {
        if (word_offset && *word_offset != a->offsets[0]) return why = "lane-word stores at two offsets", std::nullopt;
        word_offset = a->offsets[0];
        lane_stores[i] = *a;
      } else if (v.kind == Value::Constant) {
        DsAccess k = *a;
        k.addr = v.constant;
        constant_stores.push_back({i, k});
      } else {
        return why = "an LDS store whose address is neither 4 * x nor a constant: " + in.text, std::nullopt;
      }
    }
    if (!word_offset || lane_loads.empty()) return why = "no lane-word store and load", std::nullopt;
    const uint64_t words_lo = *word_offset, words_hi = *word_offset + 4 * flat;  // the bytes any lane's R reads
    for (const auto& [line, k] : constant_stores)
      for (unsigned off : k.offsets) {
        const uint64_t lo = uint64_t{k.addr} + off, hi = lo + k.bytes;
        if (lo < words_hi && words_lo < hi) return why = "a constant-address LDS store inside the lane words: " + p.text_line(line).text, std::nullopt;
      }

    // Pairs: from each lane-word store under E0 along straight-line code.
    std::vector<Pair> pairs;
    for (const auto& [s, st] : lane_stores) {
      if (an.exec(s) != EntryExec::Entry) continue;
      const RegRange addr{RegFile::VGPR, st.addr, 1};
      auto data = program::parse_reg(st.data);
      if (!data || data->file != RegFile::VGPR || data->count != 1) continue;
      bool intact = true;
      for (size_t i = s + 1; i < f->end; ++i) {
        const program::Line& l = p.text_line(i);
        if (l.kind == program::Line::Label) break;
        if (l.kind != program::Line::Instr || !l.inst) continue;
        const program::Instruction& in = *l.inst;
        if (lane_stores.count(i) || an.exec(i) == EntryExec::Unknown) break;
        if (auto ld = lane_loads.find(i); ld != lane_loads.end() && ld->second.addr == st.addr && ld->second.offsets[0] == *word_offset)
          pairs.push_back({s, i, st.data, ld->second.data, intact});
        if (in.writes(addr) || in.no_fallthrough || in.is_call) break;
        if (in.writes(*data)) intact = false;
      }
    }
    if (pairs.empty()) return why = "no forwardable pair", std::nullopt;
    bool in_window = false;
    for (const Pair& pr : pairs) in_window |= c.window.first <= pr.load && pr.load <= c.window.last;
    if (!in_window) return why = "no forwarded read in the window", std::nullopt;

    std::optional<unsigned> fresh;
    if (std::any_of(pairs.begin(), pairs.end(), [](const Pair& pr) { return !pr.data_intact; })) {
      VgprRoom room;
      if (std::string w = fresh_vgpr_room(p, c.kernel, room); !w.empty()) return why = w, std::nullopt;
      fresh = room.take(1);
      if (!fresh) return why = "no free VGPR below the occupancy limit", std::nullopt;
    }

    std::optional<GuardedCopy> copy = copy_from(p, *f, g, "fwd");
    if (!copy) return why = "the kernel cannot be copied (guarded_copy.h)", std::nullopt;
    std::optional<std::vector<std::string>> guard = one_dimensional_workgroup_guard(p, *f, g, copy->orig(), why);
    if (!guard) return std::nullopt;

    std::map<size_t, std::string> replace;
    std::set<size_t> copy_after;
    for (const Pair& pr : pairs) {
      replace[pr.load] = fmt::format("v_mov_b32_e32 {}, {}", pr.dest, pr.data_intact ? pr.data : fmt::format("v{}", *fresh));
      if (!pr.data_intact) copy_after.insert(pr.store);
    }
    std::vector<std::string> lines;
    for (const CopiedLine& cl : copy->lines) {
      auto r = replace.find(cl.source);
      lines.push_back(!cl.label && r != replace.end() ? r->second : cl.text);
      if (!cl.label && copy_after.count(cl.source)) lines.push_back(fmt::format("v_mov_b32_e32 v{}, {}", *fresh, lane_stores.at(cl.source).data));
    }
    Edit e;
    e.kernel = c.kernel;
    e.move = name();
    e.proposer = proposer();
    e.dispatch_ptr = true;
    e.hunks.push_back(guarded_copy_hunk(g, *guard, lines, *copy));
    e.description = fmt::format("forwarded {} LDS read(s) of the lane's own word 4*x+{} from its store ({} through fresh v{}); "
                                "guarded copy for workgroups of size (X, 1, 1) read from the dispatch packet, the original code otherwise",
                                pairs.size(), *word_offset, copy_after.size(), fresh ? std::to_string(*fresh) : std::string("-"));
    return e;
  }
};

}  // namespace

std::unique_ptr<Move> make_lds_forward_move() { return std::make_unique<LdsForwardMove>(); }

std::string lds_forward_refusal(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f) return "no function " + kernel;
  std::mt19937_64 rng(1);
  MoveContext c{p, kernel, Window{f->begin, f->end - 1, 0, kernel}, rng};
  std::string why;
  return LdsForwardMove().forward(c, why) ? "" : why;
}

}  // namespace asmevo::search
