// Move: workgroup-remap. The mapping, the argument and the refusals are in workgroup_remap.h.
#include "search/moves/workgroup_remap.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <regex>

#include "codeobj/arch_params.h"
#include "codeobj/initial_sgprs.h"
#include "codeobj/resources.h"
#include "search/moves/kernarg.h"
#include "search/moves/moves.h"
#include "search/moves/probe.h"
#include "support/error.h"
#include "timing/hw_params.h"

namespace asmevo::search {
namespace {

const char* const kSpecialFloatAtomicParts[] = {"_f32", "_f64", "_f16", "bf16", "fmin", "fmax"};

bool global_atomic(const std::string& m) {
  for (const char* prefix : {"global_atomic", "buffer_atomic", "flat_atomic", "s_atomic", "s_buffer_atomic"})
    if (m.rfind(prefix, 0) == 0) return true;
  return false;
}

// Everything the prologue needs, or why there is none.
struct Plan {
  std::string refusal;
  size_t first = 0;              // the kernel's first instruction line: the counts' loads issue there
  size_t use = 0;                // the entry block's first line that reads or writes an id, writes EXEC, waits or
                                 // branches: the arithmetic goes there, so that the loads overlap the kernel's own
  unsigned kernarg = 0;          // kernarg pointer SGPR pair's first
  unsigned id_x = 0, id_y = 0;   // workgroup id SGPRs
  uint64_t count_x = 0, count_y = 0;  // kernarg offsets of hidden_block_count_x/y
  unsigned xcds = 1, group_rows = 1;
  bool two_d = false;            // workgroup id y enabled: the XCD swizzle then grouped ordering
  // The counts come from the AQL packet (no hidden block counts in the metadata): ceil(grid_size /
  // workgroup_size). enable_dispatch: the edit enables the dispatch pointer (Edit::dispatch_ptr), so the
  // user and system SGPRs after the private segment buffer arrive 2 higher and the prologue moves them back.
  bool packet = false, enable_dispatch = false;
  unsigned dispatch = 0;         // the dispatch pointer's first SGPR (as the hardware delivers it)
  unsigned moved_first = 0, moved_end = 0;  // SGPRs [moved_first, moved_end) to move down by 2
  unsigned vgpr = 0;             // a VGPR not live at the entry
  unsigned fresh = 0;            // first fresh SGPR (even)
};

Plan plan_remap(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>* perf_runs) {
  Plan plan;
  auto refuse = [&](std::string why) {
    plan.refusal = std::move(why);
    return plan;
  };
  const program::Function& f = kernel_function(p, kernel);
  if (f.blocks.empty()) return refuse("the kernel has no code");
  const codeobj::KernelDescriptor& kd = p.kernel_descriptor(kernel);
  if (!kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_x"))
    return refuse("the kernel does not read workgroup id x (no grid to renumber)");
  plan.two_d = kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y");
  if (kd.kernarg_preload_length() > 0) return refuse("the kernel preloads kernel arguments (its entry is a firmware prologue)");
  const std::optional<unsigned> kernarg = kernarg_pointer_sgpr(kd);
  if (!kernarg) return refuse("the kernel has no kernarg segment pointer (the grid's workgroup counts cannot be read)");
  plan.kernarg = *kernarg;
  const codeobj::KernelMetadata* md = p.metadata() ? p.metadata()->kernel(kernel) : nullptr;
  bool have_x = false, have_y = false;
  if (md)
    for (const codeobj::KernelArg& a : md->args) {
      if (a.value_kind == "hidden_block_count_x" && a.size == 4) plan.count_x = a.offset, have_x = true;
      if (a.value_kind == "hidden_block_count_y" && a.size == 4) plan.count_y = a.offset, have_y = true;
    }
  const unsigned initialized = codeobj::initialized_sgpr_count(kd);  // the hardware-set SGPRs: [0, initialized)
  plan.dispatch = 4 * kd.get("kernel_code_properties.enable_sgpr_private_segment_buffer");
  if (!have_x || (plan.two_d && !have_y)) {
    // Clang lists the hidden arguments only where the kernel uses them; the packet always has the sizes.
    plan.packet = true;
    plan.enable_dispatch = !kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr");
    if (plan.enable_dispatch && kd.user_sgpr_count() + 2 > 16)
      return refuse("no hidden block counts in the metadata and no room for the dispatch pointer (16 user SGPRs)");
    if (plan.enable_dispatch) plan.moved_first = plan.dispatch, plan.moved_end = initialized;
  }
  if (!plan.packet && (plan.count_x % 4 || (plan.two_d && plan.count_y % 4))) return refuse("hidden block counts not dword-aligned in the kernarg segment");
  // Workgroup ids follow the user SGPRs (AMDGPUUsage, "Initial Kernel Execution State"): set below.
  // What the argument in the header rests on: ids come only from the id SGPRs, and the workgroups do
  // not communicate through anything whose result follows their order.
  for (size_t i = f.begin; i < f.end; ++i) {
    const program::Line& l = p.text_line(i);
    if (!l.is_instruction()) continue;
    if (!l.inst) return refuse(fmt::format("line {} is not decoded (its registers are unknown)", i));
    const program::Instruction& in = *l.inst;
    for (const program::RegRange& u : in.uses)
      if (u.file == program::RegFile::TTMP) return refuse(fmt::format("'{}' reads a TTMP register (not the id SGPRs)", in.text));
    if (in.mnemonic.rfind("s_getreg", 0) == 0) return refuse(fmt::format("'{}' reads a hardware register (HW_ID/XCC_ID tell where a workgroup runs)", in.text));
    if (global_atomic(in.mnemonic)) {
      for (const char* part : kSpecialFloatAtomicParts)
        if (in.mnemonic.find(part) != std::string::npos)
          return refuse(fmt::format("'{}' is a float global atomic: its result follows the workgroups' order", in.text));
      for (const program::RegRange& d : in.defs)
        if (d.file == program::RegFile::VGPR || d.file == program::RegFile::SGPR)
          return refuse(fmt::format("'{}' returns a value: the order of the workgroups shows in it", in.text));
    }
  }
  if (!f.callees.empty()) return refuse("the kernel calls functions");
  plan.first = f.begin;
  while (plan.first < f.end && p.text_line(plan.first).kind != program::Line::Instr) ++plan.first;
  if (plan.first >= f.end) return refuse("no instruction at the kernel's entry");
  for (size_t i = f.begin; i < plan.first; ++i)
    if (p.text_line(i).kind == program::Line::Label && i != f.begin) return refuse("a label before the first instruction");
  plan.id_x = kd.user_sgpr_count();
  plan.id_y = plan.id_x + 1;
  const program::RegRange ids{program::RegFile::SGPR, plan.id_x, plan.two_d ? 2u : 1u}, exec{program::RegFile::EXEC, 0, 2};
  plan.use = plan.first;
  for (; plan.use <= f.blocks.front().last; ++plan.use) {
    const program::Line& l = p.text_line(plan.use);
    if (l.kind == program::Line::Label) break;
    if (l.kind != program::Line::Instr) continue;
    const program::Instruction& in = *l.inst;
    if (in.reads(ids) || in.writes(ids) || in.writes(exec) || in.is_branch || in.is_terminator || in.mnemonic.rfind("s_waitcnt", 0) == 0) break;
  }
  const std::vector<program::RegSet> live = p.live_in(f, /*vector_writes_kill=*/false);
  const program::RegSet& at = live[plan.use - f.begin];
  if (at.bits.test(program::RegSet::kScc)) return refuse("SCC is live where the ids are first read");
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  if (!ap) return refuse("no resource table for the arch");
  plan.vgpr = 0;
  while (plan.vgpr < 256 && at.bits.test(program::RegSet::kVgpr + plan.vgpr)) ++plan.vgpr;
  if (plan.vgpr >= 256) return refuse("no VGPR free where the ids are first read");
  // The prologue handles a 1-D grid (the XCD swizzle of x), but it is proposed only on 2-D grids: the
  // corpus's 1-D kernels that would share inputs across workgroups (Triton's matmuls) preload kernel
  // arguments (refused above), and the rest read disjoint data, where an order gains nothing.
  if (!plan.two_d) return refuse("a 1-D grid (workgroup id x only): no tile rows whose workgroups share inputs");
  const timing::HwParams& hw = timing::hw_params(p.original().target().arch);
  if (!std::has_single_bit(hw.xcds)) return refuse(fmt::format("the device's XCD count {} is not a power of two", hw.xcds));
  plan.xcds = hw.xcds;
  plan.group_rows = workgroup_remap_group_rows(p, kernel, perf_runs);
  const program::RegisterUse use = p.register_use(kernel);
  plan.fresh = std::max(static_cast<unsigned>(use.max_sgpr + 1), initialized + 2 * plan.enable_dispatch);
  plan.fresh = (plan.fresh + 1) & ~1u;  // s_load_dwordx2 writes an even-aligned pair
  return plan;
}

// LLVM's exact expansion of a 32-bit unsigned division (AMDGPUCodeGenPrepare::expandDivRem32): q =
// n / d, r = n % d for every n and every d > 0. t1, t2 scratch SGPRs, v a free VGPR.
void udiv(std::vector<std::string>& out, unsigned q, unsigned r, unsigned n, unsigned d, unsigned t1, unsigned t2, unsigned v) {
  out.push_back(fmt::format("v_cvt_f32_u32_e32 v{}, s{}", v, d));
  out.push_back(fmt::format("v_rcp_iflag_f32_e32 v{}, v{}", v, v));
  out.push_back("s_nop 0");  // gfx940 hazard: a TRANS result read by a non-TRANS VALU op needs 1 wait state
  out.push_back(fmt::format("v_mul_f32_e32 v{}, 0x4f7ffffe, v{}", v, v));  // 2^32 - 512: the estimate stays below 2^32 / d
  out.push_back(fmt::format("v_cvt_u32_f32_e32 v{}, v{}", v, v));
  out.push_back("s_nop 0");  // gfx940 hazard: a VALU-written VGPR read by v_readfirstlane needs 1 wait state
  out.push_back(fmt::format("v_readfirstlane_b32 s{}, v{}", t2, v));  // z ~ 2^32 / d (uniform: every lane computed it)
  out.push_back(fmt::format("s_sub_i32 s{}, 0, s{}", t1, d));         // one Newton step on z
  out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", t1, t1, t2));
  out.push_back(fmt::format("s_mul_hi_u32 s{}, s{}, s{}", t1, t2, t1));
  out.push_back(fmt::format("s_add_i32 s{}, s{}, s{}", t2, t2, t1));
  out.push_back(fmt::format("s_mul_hi_u32 s{}, s{}, s{}", q, n, t2));  // q estimate, at most 2 low
  out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", t1, q, d));
  out.push_back(fmt::format("s_sub_i32 s{}, s{}, s{}", r, n, t1));
  for (int k = 0; k < 2; ++k) {  // two corrections
    out.push_back(fmt::format("s_add_i32 s{}, s{}, 1", t1, q));
    out.push_back(fmt::format("s_sub_i32 s{}, s{}, s{}", t2, r, d));
    out.push_back(fmt::format("s_cmp_ge_u32 s{}, s{}", r, d));
    out.push_back(fmt::format("s_cselect_b32 s{}, s{}, s{}", q, t1, q));
    out.push_back(fmt::format("s_cselect_b32 s{}, s{}, s{}", r, t2, r));
  }
}

// The prologue in two parts: what issues at the kernel's first instruction (the dispatch pointer's copy,
// the SGPRs moved back, the counts' loads) and the arithmetic at `Plan::use`.
std::pair<std::vector<std::string>, std::vector<std::string>> prologue(const Plan& pl) {
  // Fresh SGPRs, named after what they hold.
  const unsigned gx = pl.fresh, gy = gx + 1, hi = gx + 2, t = gx + 3, l = gx + 4, xcd = gx + 5, loc = gx + 6, per = gx + 7, tall = gx + 8,
                 n = gx + 9, gc = gx + 10, w = gx + 11, grp = gx + 12, rin = gx + 13, first = gx + 14, size = gx + 15, nx = gx + 16,
                 ry = gx + 17, t1 = gx + 18, t2 = gx + 19;
  std::vector<std::string> issue, out;
  if (pl.packet) {
    const unsigned d = gx + 20, wsz = gx + 22, grid = gx + 24;  // d, grid: even pairs
    out.push_back(fmt::format("s_mov_b64 s[{}:{}], s[{}:{}]", d, d + 1, pl.dispatch, pl.dispatch + 1));
    for (unsigned r = pl.moved_first; r < pl.moved_end; ++r) out.push_back(fmt::format("s_mov_b32 s{}, s{}", r, r + 2));
    // hsa_kernel_dispatch_packet_t: workgroup_size_x/y (u16) at 4 and 6, grid_size_x/y (u32) at 12 and 16.
    out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], 0x4", wsz, d, d + 1));
    if (pl.two_d) out.push_back(fmt::format("s_load_dwordx2 s[{}:{}], s[{}:{}], 0xc", grid, grid + 1, d, d + 1));
    else out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], 0xc", grid, d, d + 1));
    issue = std::move(out);
    out.clear();
    out.push_back("s_waitcnt lgkmcnt(0)");
    for (unsigned k = 0; k < (pl.two_d ? 2u : 1u); ++k) {  // count = ceil(grid / size), without overflow
      out.push_back(k == 0 ? fmt::format("s_and_b32 s{}, s{}, 0xffff", w, wsz) : fmt::format("s_lshr_b32 s{}, s{}, 16", w, wsz));
      udiv(out, gx + k, rin, grid + k, w, t1, t2, pl.vgpr);
      out.push_back(fmt::format("s_cmp_lg_u32 s{}, 0", rin));
      out.push_back(fmt::format("s_addc_u32 s{}, s{}, 0", gx + k, gx + k));
    }
  } else if (pl.two_d && pl.count_y == pl.count_x + 4) {
    out.push_back(fmt::format("s_load_dwordx2 s[{}:{}], s[{}:{}], {:#x}", gx, gy, pl.kernarg, pl.kernarg + 1, pl.count_x));
  } else {
    out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], {:#x}", gx, pl.kernarg, pl.kernarg + 1, pl.count_x));
    if (pl.two_d) out.push_back(fmt::format("s_load_dword s{}, s[{}:{}], {:#x}", gy, pl.kernarg, pl.kernarg + 1, pl.count_y));
  }
  if (!pl.packet) {
    issue = std::move(out);
    out.clear();
    out.push_back("s_waitcnt lgkmcnt(0)");
  }
  if (pl.two_d) {
    out.push_back(fmt::format("s_mul_hi_u32 s{}, s{}, s{}", hi, gx, gy));  // nonzero: T does not fit 32 bits, keep the ids
    out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", t, gx, gy));
    out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", l, gx, pl.id_y));
    out.push_back(fmt::format("s_add_i32 s{}, s{}, s{}", l, l, pl.id_x));
  } else {
    out.push_back(fmt::format("s_mov_b32 s{}, s{}", t, gx));
    out.push_back(fmt::format("s_mov_b32 s{}, s{}", l, pl.id_x));
  }
  if (pl.xcds > 1) {
    const unsigned shift = static_cast<unsigned>(std::countr_zero(pl.xcds));
    out.push_back(fmt::format("s_and_b32 s{}, s{}, {}", xcd, l, pl.xcds - 1));
    out.push_back(fmt::format("s_lshr_b32 s{}, s{}, {}", loc, l, shift));
    out.push_back(fmt::format("s_lshr_b32 s{}, s{}, {}", per, t, shift));
    out.push_back(fmt::format("s_and_b32 s{}, s{}, {}", tall, t, pl.xcds - 1));
    out.push_back(fmt::format("s_cmp_lg_u32 s{}, 0", tall));
    out.push_back(fmt::format("s_cselect_b32 s{}, s{}, {}", tall, tall, pl.xcds));  // T mod X, X when 0
    out.push_back(fmt::format("s_addc_u32 s{}, s{}, 0", per, per));                // ceil(T / X): + SCC
    out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", n, xcd, per));
    out.push_back(fmt::format("s_add_i32 s{}, s{}, s{}", n, n, loc));
    out.push_back(fmt::format("s_sub_i32 s{}, s{}, s{}", t1, xcd, tall));
    out.push_back(fmt::format("s_max_i32 s{}, s{}, 0", t1, t1));
    out.push_back(fmt::format("s_sub_i32 s{}, s{}, s{}", n, n, t1));
  } else {
    out.push_back(fmt::format("s_mov_b32 s{}, s{}", n, l));
  }
  if (!pl.two_d) {
    out.push_back(fmt::format("s_mov_b32 s{}, s{}", pl.id_x, n));
    return {issue, out};
  }
  out.push_back(fmt::format("s_min_u32 s{}, s{}, {}", gc, gy, pl.group_rows));
  out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", w, gc, gx));  // ids per group, at most T
  udiv(out, grp, rin, n, w, t1, t2, pl.vgpr);
  out.push_back(fmt::format("s_mul_i32 s{}, s{}, s{}", first, grp, gc));
  out.push_back(fmt::format("s_sub_i32 s{}, s{}, s{}", size, gy, first));
  out.push_back(fmt::format("s_min_u32 s{}, s{}, s{}", size, size, gc));
  udiv(out, nx, ry, rin, size, t1, t2, pl.vgpr);
  out.push_back(fmt::format("s_add_i32 s{}, s{}, s{}", ry, ry, first));
  out.push_back(fmt::format("s_cmp_eq_u32 s{}, 0", hi));
  out.push_back(fmt::format("s_cselect_b32 s{}, s{}, s{}", pl.id_x, nx, pl.id_x));
  out.push_back(fmt::format("s_cselect_b32 s{}, s{}, s{}", pl.id_y, ry, pl.id_y));
  return {issue, out};
}

// The edit that inserts the prologue into `kernel` (and enables the dispatch pointer where it reads the packet).
Edit remap_edit(const Plan& pl, const std::string& kernel) {
  Edit e;
  e.kernel = kernel;
  auto [issue, arithmetic] = prologue(pl);
  if (pl.use == pl.first) {
    issue.insert(issue.end(), arithmetic.begin(), arithmetic.end());
    e.hunks.push_back(make_insertion(pl.first, issue));
  } else {
    e.hunks.push_back(make_insertion(pl.use, arithmetic));
    e.hunks.push_back(make_insertion(pl.first, issue));
  }
  e.dispatch_ptr = pl.enable_dispatch;
  return e;
}

class WorkgroupRemapMove final : public Move {
 public:
  std::string name() const override { return kWorkgroupRemapMove; }
  std::string proposer() const override { return "rules"; }

  std::vector<Edit> propose(const MoveContext& c) override {
    const program::Function* f = c.program.function(c.kernel);
    if (!f || !f->is_kernel) return {};
    // A whole-kernel edit: the window is only a trigger (the optimizer's candidate hashes drop repeats).
    const Plan pl = plan_remap(c.program, c.kernel, c.perf_runs);
    if (!pl.refusal.empty()) return {};
    Edit e = remap_edit(pl, c.kernel);
    e.move = name();
    e.proposer = proposer();
    e.description = pl.two_d ? fmt::format("workgroups renumbered at the entry: XCD swizzle over {} XCDs, then groups of {} tile rows (ids s{}, s{})",
                                           pl.xcds, pl.group_rows, pl.id_x, pl.id_y)
                             : fmt::format("workgroups renumbered at the entry: XCD swizzle over {} XCDs (id s{})", pl.xcds, pl.id_x);
    try {
      apply_edit(c.program, e);  // the arch's SGPR limit
    } catch (const Error&) {
      return {};
    }
    return {e};
  }
};

}  // namespace

std::string workgroup_remap_refusal(const program::Program& p, const std::string& kernel) {
  const Plan pl = plan_remap(p, kernel, nullptr);
  if (!pl.refusal.empty()) return pl.refusal;
  try {
    apply_edit(p, remap_edit(pl, kernel));
  } catch (const Error& err) {
    return std::string("the prologue does not fit: ") + err.what_text();
  }
  return "";
}

std::array<uint32_t, 2> remapped_workgroup(std::array<uint32_t, 2> id, std::array<uint32_t, 2> grid, const WorkgroupOrder& order) {
  const auto [x, y] = id;
  const auto [gx, gy] = grid;
  const bool two_d = order.group_rows > 0;
  const uint64_t t64 = two_d ? uint64_t{gx} * gy : gx;
  if (t64 >> 32) return id;
  const uint32_t X = order.xcds, t = static_cast<uint32_t>(t64), l = two_d ? x + gx * y : x;
  const uint32_t xcd = l % X, local = l / X, per = t / X + (t % X != 0), tall = t % X ? t % X : X;
  const uint32_t n = xcd * per + local - (xcd > tall ? xcd - tall : 0);
  if (!two_d) return {n, y};
  const uint32_t gc = std::min(gy, order.group_rows), w = gc * gx, group = n / w, first = group * gc, size = std::min(gy - first, gc);
  return {(n % w) / size, first + (n % w) % size};
}

std::array<uint32_t, 2> original_workgroup(std::array<uint32_t, 2> id, std::array<uint32_t, 2> grid, const WorkgroupOrder& order) {
  const auto [x, y] = id;
  const auto [gx, gy] = grid;
  const bool two_d = order.group_rows > 0;
  const uint64_t t64 = two_d ? uint64_t{gx} * gy : gx;
  if (t64 >> 32) return id;
  uint32_t n = x;
  if (two_d) {  // ungroup
    const uint32_t gc = std::min(gy, order.group_rows), group = y / gc, first = group * gc, size = std::min(gy - first, gc);
    n = group * gc * gx + x * size + (y - first);
  }
  const uint32_t X = order.xcds, t = static_cast<uint32_t>(t64), per = t / X + (t % X != 0), tall = t % X ? t % X : X;
  // XCD c's ids start at c * per - max(0, c - tall); the last start at or below n is n's XCD.
  uint32_t c = X - 1;
  while (c > 0 && c * per - (c > tall ? c - tall : 0) > n) --c;
  const uint32_t l = (n - (c * per - (c > tall ? c - tall : 0))) * X + c;
  return two_d ? std::array<uint32_t, 2>{l % gx, l / gx} : std::array<uint32_t, 2>{l, y};
}

std::optional<WorkgroupOrder> recognize_workgroup_remap(const program::Program& k1, const std::string& kernel) {
  // Loose on purpose: the order only chooses which workgroups of the candidate a sampled run starts;
  // the comparison with the original's outputs stays what it is whatever it chooses.
  const program::Function* f = k1.function(kernel);
  const codeobj::KernelMetadata* md = k1.metadata() ? k1.metadata()->kernel(kernel) : nullptr;
  if (!f || !md || f->blocks.empty()) return std::nullopt;
  const codeobj::KernelDescriptor& kd = k1.kernel_descriptor(kernel);
  const std::optional<unsigned> kernarg = kernarg_pointer_sgpr(kd);
  std::optional<uint64_t> count_x;
  for (const codeobj::KernelArg& a : md->args)
    if (a.value_kind == "hidden_block_count_x") count_x = a.offset;
  size_t i = f->begin;
  while (i < f->end && k1.text_line(i).kind != program::Line::Instr) ++i;
  if (i >= f->end) return std::nullopt;
  // The counts' load: of hidden_block_count_x first thing, or of the packet's workgroup size (0x4)
  // and grid size (0xc) from one SGPR pair among the first lines (after the dispatch pointer's copy
  // and the SGPRs moved back; lds-forward's guard loads 0x4 and 0x8); then the XCD swizzle's mask.
  bool counts = false;
  if (kernarg && count_x)
    if (const std::optional<ArgLoad> load = parse_arg_load(k1.text_line(i).text, *kernarg)) counts = load->offset == *count_x;
  static const std::regex size_re(R"(^s_load_dword s\d+, (s\[\d+:\d+\]), 0x4$)"), grid_re(R"(^s_load_dword(x2)? \S+, (s\[\d+:\d+\]), 0xc$)");
  std::smatch m;
  std::string size_pair;
  for (size_t k = i; !counts && kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr") && k < f->end && k < i + 24; ++k) {
    const std::string& text = k1.text_line(k).text;
    if (std::regex_match(text, m, size_re)) size_pair = m[1];
    else if (std::regex_match(text, m, grid_re)) counts = !size_pair.empty() && m[2] == size_pair;
  }
  if (!counts) return std::nullopt;
  WorkgroupOrder order;
  order.xcds = timing::hw_params(k1.original().target().arch).xcds;
  if (order.xcds > 1) {
    const std::regex mask_re(fmt::format(R"(^s_and_b32 s\d+, s\d+, {}$)", order.xcds - 1));
    bool mask = false;
    for (size_t k = i; !mask && k < f->end && k < i + 160; ++k) mask = std::regex_match(k1.text_line(k).text, mask_re);
    if (!mask) return std::nullopt;
  }
  if (!kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y")) return order;
  static const std::regex min_re(R"(^s_min_u32 s\d+, s\d+, (\d+)$)");
  for (size_t k = 0; k < 120 && i < f->end; ++i, ++k)
    if (std::regex_match(k1.text_line(i).text, m, min_re)) {
      order.group_rows = static_cast<unsigned>(std::stoul(m[1]));
      return order.group_rows ? std::optional(order) : std::nullopt;
    }
  return std::nullopt;
}

std::function<std::vector<uint64_t>(const emu::LaunchSpec&)> workgroup_remap_sampler(const codeobj::CodeObject& k1, const std::string& kernel) {
  std::optional<WorkgroupOrder> order;
  try {
    order = recognize_workgroup_remap(program::Program::recover(k1), kernel);
  } catch (const Error&) {
    return nullptr;
  }
  if (!order) return nullptr;
  return [order = *order](const emu::LaunchSpec& run) {
    const uint64_t gx = run.grid[0], gy = run.grid[1], slice = gx * gy;
    std::vector<uint64_t> out;
    for (uint64_t g : run.workgroup_sample) {
      const uint64_t z = g / slice, in = g % slice;
      const auto [x, y] = original_workgroup({static_cast<uint32_t>(in % gx), static_cast<uint32_t>(in / gx)},
                                             {static_cast<uint32_t>(gx), static_cast<uint32_t>(gy)}, order);
      out.push_back(z * slice + uint64_t{y} * gx + x);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
}

unsigned workgroup_remap_group_rows(const program::Program& p, const std::string& kernel, const std::vector<emu::LaunchSpec>* perf_runs) {
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  if (!ap) return 1;
  const timing::HwParams& hw = timing::hw_params(p.original().target().arch);
  const codeobj::KernelMetadata* md = p.metadata() ? p.metadata()->kernel(kernel) : nullptr;
  const codeobj::Resources res = codeobj::derive_resources(*ap, p.kernel_descriptor(kernel), md);
  unsigned wg = res.max_workgroup_size ? res.max_workgroup_size : 256;
  uint32_t lds = res.lds_bytes;
  if (perf_runs && !perf_runs->empty()) {
    const emu::LaunchSpec& r = perf_runs->front();
    wg = r.block[0] * r.block[1] * r.block[2];
    lds += r.dynamic_lds;
  }
  const codeobj::Occupancy occ = codeobj::compute_occupancy(*ap, res.vgprs_allocated, res.sgprs_allocated, lds, wg);
  const double resident = double(hw.cus / std::max(1u, hw.xcds)) * std::max(1u, occ.workgroups_per_cu);
  const unsigned g = 1u << static_cast<unsigned>(std::lround(std::log2(std::sqrt(resident))));
  return std::max(1u, g);
}

std::unique_ptr<Move> make_workgroup_remap_move() { return std::make_unique<WorkgroupRemapMove>(); }

}  // namespace asmevo::search
