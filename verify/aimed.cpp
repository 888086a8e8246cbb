#include "verify/aimed.h"
#include "verify/exact_sums.h"
#include "verify/aim_ties.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "emu/context.h"
#include "emu/wave.h"
#include "program/instruction.h"
#include "support/error.h"
#include "verify/element_value.h"
#include "verify/input_set.h"

namespace asmevo::verify {
namespace {

using emu::ExecInst;
using emu::Operand;
using emu::Wave;
constexpr unsigned kLanes = emu::kWaveSize;

// value(lane) = a * element + b, element `elem` of buffer argument `arg` (arg < 0: not derived).
enum class Num { Float, Signed, Unsigned };
struct Origin {
  int32_t arg = -1;
  uint32_t chain = 0;
  uint64_t elem = 0;
  double a = 1, b = 0;
  Num num = Num::Unsigned;  // how the register's bits read as the number a * element + b
  // False: the value depends on the element by a chain the affine steps do not cover (a product
  // of two element-derived values, a transcendental, a 16-bit element, a cross-lane move); a and
  // b mean nothing and the threshold search (search_thresholds) finds the element value instead.
  bool affine = true;
};
using Lanes = std::array<Origin, kLanes>;

// "v_add_f32_e32" -> "v_add_f32"
std::string base_mnemonic(const ExecInst& in) {
  std::string m = in.raw ? in.raw->mnemonic : std::string();
  for (const char* sfx : {"_e32", "_e64"})
    if (m.size() > 4 && m.ends_with(sfx)) m.resize(m.size() - 4);
  return m;
}

Num num_of(const std::string& m) {
  if (m.find("_f32") != std::string::npos) return Num::Float;
  if (m.find("_i32") != std::string::npos || m.find("_i24") != std::string::npos) return Num::Signed;
  return Num::Unsigned;
}

// The numeric value of a 32-bit source in lane l (NaN when it cannot be read here).
double value_of(const Wave& w, const Operand& o, unsigned l, Num n) {
  uint32_t bits = 0;
  switch (o.kind) {
    case Operand::VGPR: bits = w.v[o.index][l]; break;
    case Operand::SGPR: bits = w.s[o.index]; break;
    case Operand::Const: bits = static_cast<uint32_t>(o.bits); break;
    default: return std::nan("");
  }
  if (n == Num::Float) {
    double x = std::bit_cast<float>(bits);
    if (o.abs) x = std::fabs(x);
    if (o.neg) x = -x;
    return x;
  }
  return n == Num::Signed ? static_cast<double>(static_cast<int32_t>(bits)) : static_cast<double>(bits);
}

struct WaveShadow {
  std::unordered_map<uint32_t, Lanes> v;  // VGPR -> per-lane origin (absent: none)
  std::unordered_map<uint32_t, Origin> sg;  // SGPR -> origin (a lane's value read into it, and SALU results of it)
  const ExecInst* last_load = nullptr;    // MUBUF loads call on_access once per dword
  std::array<uint8_t, kLanes> next_dword{};
  const ExecInst* last_scalar_load = nullptr;
  unsigned next_sdword = 0;
  const Origin* at(const Operand& o, unsigned l) const {
    if (o.kind == Operand::SGPR) {
      auto it = sg.find(o.index);
      return it != sg.end() ? &it->second : nullptr;
    }
    if (o.kind != Operand::VGPR) return nullptr;
    auto it = v.find(o.index);
    return it != v.end() && it->second[l].arg >= 0 ? &it->second[l] : nullptr;
  }
};

class DecisionObserver final : public emu::ExecObserver {
 public:
  // `snapshot_pc`: also capture the state of the first wave that reaches that instruction.
  explicit DecisionObserver(const emu::LaunchSpec& spec, std::optional<uint64_t> snapshot_pc = std::nullopt)
      : spec_(spec), snapshot_pc_(snapshot_pc) {
    const uint64_t n = workgroup_count(spec);
    for (uint64_t g : {uint64_t{0}, uint64_t{1}, n - 2, n - 1})
      if (g < n) sampled_.push_back(g);
  }

  void before_inst(const emu::ExecContext& ctx, const Wave& w, const ExecInst& in) override {
    if (!sampled(ctx)) return;
    std::lock_guard lock(mu_);
    WaveShadow& s = shadow_[key(ctx, w)];
    if (snapshot_pc_ && !snapshot.reached && in.raw && in.raw->address == *snapshot_pc_) capture(s, w);
    for (unsigned i = 0; i < in.nsrc; ++i)
      if (in.src[i].kind == Operand::Const && (in.src[i].ty == emu::Ty::F32 || in.src[i].ty == emu::Ty::B32)) literal_bits.insert(static_cast<uint32_t>(in.src[i].bits));
    const std::string m = base_mnemonic(in);
    float_division |= m.starts_with("v_rcp_f") || m.starts_with("v_div_scale_f");
    const uint64_t exec = w.exec();
    const bool cmp = m.starts_with("v_cmp") && m.find("class") == std::string::npos;
    const bool select = m.starts_with("v_max") || m.starts_with("v_min");
    if ((cmp || select) && in.encoding < 3) record_decision(s, w, in, m, exec);
    if (m.starts_with("s_cmp_") && !m.starts_with("s_cmp_bit")) record_decision(s, w, in, m, 1, /*scalar=*/true);  // one "lane"
    // Scalar results of element-derived values: v_readlane/readfirstlane and SALU ops of them.
    std::optional<std::pair<uint32_t, Origin>> scalar_out;
    if (in.ndst >= 1 && in.dst[0].kind == Operand::SGPR) scalar_out = scalar_taint(s, w, in, m, exec);
    // LDS: a dword keeps the origin of the value stored there; a read takes it back (ds_bpermute
    // from the lane it reads).
    std::vector<std::pair<uint32_t, Lanes>> lds_out;
    if (m.starts_with("ds_")) lds_out = lds_taint(ctx, s, w, in, m, exec);
    // The destination's origin after this instruction, from the sources' before it.
    bool produced = false;
    Lanes out{};
    if (in.ndst >= 1 && in.dst[0].kind == Operand::VGPR && in.dst[0].count <= 1) {
      if (in.encoding < 3) produced = propagate(s, w, in, m, exec, out);
      produced |= taint(s, in, m, exec, out);
    }
    for (const auto& d : in.defs)
      for (uint32_t r = d.first; r < uint32_t{d.first} + d.count; ++r) d.file == 0 ? s.v.erase(r) : s.sg.erase(r);
    if (scalar_out) {
      s.sg[scalar_out->first] = scalar_out->second;
      if (in.dst[0].count == 2) s.sg[scalar_out->first + 1] = scalar_out->second;
    }
    for (auto& [reg, lanes] : lds_out) s.v[reg] = lanes;
    if (produced) {
      // Lanes outside EXEC keep their old value, hence no origin known here: the erase is right for them.
      for (unsigned l = 0; l < kLanes; ++l)
        if (!(exec >> l & 1)) out[l] = Origin{};
      s.v[in.dst[0].index] = out;
    }
  }

  void on_access(const emu::ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t address, unsigned size, bool write,
                 int lane) override {
    if (write || in.ndst < 1 || !sampled(ctx)) return;
    if (lane < 0 ? in.dst[0].kind != Operand::SGPR : in.dst[0].kind != Operand::VGPR) return;
    const auto at = element_at(*ctx.mem, spec_, address);
    if (!at || !at->aligned) return;
    const size_t arg = at->arg;
    const std::string& dt = spec_.args[arg].dtype;
    const unsigned esize = element_bytes(dt);
    const uint64_t off = at->element * esize;
    std::lock_guard lock(mu_);
    WaveShadow& s = shadow_[key(ctx, w)];
    if (lane < 0) {  // a scalar load of buffer data: each SGPR takes its dword's first element (not affine)
      const unsigned d0 = s.last_scalar_load == &in ? s.next_sdword : 0;
      s.last_scalar_load = &in;
      const unsigned dwords = std::max(1u, size / 4);
      for (unsigned d = 0; d < dwords; ++d) {
        const uint64_t elem = static_cast<uint64_t>(off) / esize + d * (4 / esize);
        if (elem >= spec_.args[arg].count) continue;
        Origin o;
        o.arg = static_cast<int32_t>(arg), o.elem = elem, o.affine = false;
        s.sg[in.dst[0].index + d0 + d] = o;
      }
      s.next_sdword = d0 + dwords;
      return;
    }
    const unsigned l = static_cast<unsigned>(lane);
    unsigned d0 = s.last_load == &in ? s.next_dword[l] : 0;
    if (s.last_load != &in) s.next_dword.fill(0), s.last_load = &in;
    // One origin per destination dword: its first element (16- and 8-bit elements: not affine,
    // the dword's bits are not the element's number).
    const unsigned dwords = std::max(1u, size / 4);
    for (unsigned d = 0; d < dwords; ++d) {
      const uint64_t elem = static_cast<uint64_t>(off) / esize + d * (4 / esize);
      if (elem >= spec_.args[arg].count) continue;
      Origin o;
      o.arg = static_cast<int32_t>(arg);
      o.elem = elem;
      o.num = dt == "f32" ? Num::Float : dt == "i32" ? Num::Signed : Num::Unsigned;
      o.affine = esize == 4;
      s.v[in.dst[0].index + d0 + d][l] = o;
    }
    s.next_dword[l] = static_cast<uint8_t>(d0 + dwords);
  }

  std::vector<Threshold> thresholds;
  // Decisions on non-affine operands: (pc, argument, element) -> the operand's value and the other
  // side's, first occurrence in this run.
  using ProbeKey = std::tuple<uint64_t, int32_t, uint64_t>;
  struct Probe {
    std::string inst;
    double u = 0, c = 0;
    uint32_t chain = 0;
  };
  std::map<ProbeKey, Probe> probes;
  std::map<uint64_t, UnresolvedDecision> unresolved;
  std::set<uint64_t> decision_pcs, data_derived_pcs;  // every decision seen; those with an element-derived operand in some lane
  std::set<uint32_t> literal_bits;  // the 32-bit constant operands of the instructions run (aim_literals.h)
  bool float_division = false;      // a float reciprocal estimate ran (v_rcp_f*, v_div_scale_f*): exact_sums.h aims at it
  std::map<uint64_t, LaneComparisons> lane_comparisons;  // per decision: the first lane's elements (aim_ties.h)
  ObservedState snapshot;

 private:
  void capture(const WaveShadow& s, const Wave& w) {
    snapshot.reached = true;
    for (size_t i = 0; i < snapshot.s.size() && i < w.s.size(); ++i) snapshot.s[i] = w.s[i];
    snapshot.scc = w.scc;
    snapshot.v.resize(std::min<unsigned>(w.num_vregs, 256));
    for (unsigned r = 0; r < snapshot.v.size(); ++r)
      for (unsigned l = 0; l < kLanes; ++l) snapshot.v[r][l] = w.v[r].lane[l];
    for (const auto& [reg, lanes] : s.v)
      for (unsigned l = 0; l < kLanes; ++l)
        if (lanes[l].arg >= 0 && lanes[l].affine && lanes[l].a != 0)
          snapshot.origins[{reg, l}] = {static_cast<size_t>(lanes[l].arg), lanes[l].elem, lanes[l].a, lanes[l].b, lanes[l].num == Num::Float,
                                        lanes[l].num == Num::Signed};
  }
  bool sampled(const emu::ExecContext& ctx) const {
    const uint64_t g = ctx.wg_id[0] + static_cast<uint64_t>(spec_.grid[0]) * (ctx.wg_id[1] + static_cast<uint64_t>(spec_.grid[1]) * ctx.wg_id[2]);
    return std::find(sampled_.begin(), sampled_.end(), g) != sampled_.end();
  }
  static uint64_t key(const emu::ExecContext& ctx, const Wave& w) {
    return (static_cast<uint64_t>(ctx.wg_id[0]) << 40) ^ (static_cast<uint64_t>(ctx.wg_id[1]) << 24) ^
           (static_cast<uint64_t>(ctx.wg_id[2]) << 12) ^ w.id_in_group;
  }

  // Operand `x` (origin o) against the value c of the other side: element = (c - b) / a.
  void threshold(const ExecInst& in, const Origin& o, double c) {
    if (o.a == 0 || !std::isfinite(c)) return;
    const double v = (c - o.b) / o.a;
    if (!std::isfinite(v)) return;
    const uint64_t pc = in.raw ? in.raw->address : in.address;
    if (!seen_.insert({pc, o.arg, o.elem}).second) return;
    if (per_pc_[pc]++ >= kPerDecision) return;
    thresholds.push_back({pc, in.raw ? in.raw->text : std::string(), static_cast<size_t>(o.arg), o.elem, v, o.chain});
  }

  // `scalar`: an s_cmp; one without an element-derived operand (a loop count) is not counted as unresolved.
  void record_decision(const WaveShadow& s, const Wave& w, const ExecInst& in, const std::string& m, uint64_t exec, bool scalar = false) {
    const Num n = num_of(m);
    if (m.find("f16") != std::string::npos || m.find("64") != std::string::npos || in.nsrc < 2) return;
    const unsigned nsrc = std::min<unsigned>(in.nsrc, m.ends_with("3_f32") || m.ends_with("3_i32") || m.ends_with("3_u32") ? 3 : 2);
    bool any = false;
    uint64_t lanes = 0;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      ++lanes;
      for (unsigned i = 0; i < nsrc; ++i) {
        const Origin* o = s.at(in.src[i], l);
        if (!o) continue;
        for (unsigned j = 0; j < nsrc; ++j) {
          if (j == i || (in.src[j].kind == in.src[i].kind && in.src[j].index == in.src[i].index)) continue;
          if (o->affine) threshold(in, *o, value_of(w, in.src[j], l, n));
          if (o->affine && !scalar) compared(s, in, m, *o, l, i);
          else probe(in, *o, value_of(w, in.src[i], l, n), value_of(w, in.src[j], l, n));
          any = true;
        }
      }
    }
    const uint64_t at_pc = in.raw ? in.raw->address : in.address;
    decision_pcs.insert(at_pc);
    if (any) data_derived_pcs.insert(at_pc);
    if (!any && !scalar) {
      auto& u = unresolved[in.raw ? in.raw->address : in.address];
      u.pc = in.raw ? in.raw->address : in.address;
      u.inst = in.raw ? in.raw->text : std::string();
      u.lanes += lanes;
    }
  }

  // The first lane to compare an element at `in` (an ordered v_cmp), and the elements it compares there.
  void compared(const WaveShadow& s, const ExecInst& in, const std::string& m, const Origin& o, unsigned lane, unsigned side) {
    const bool greater = m.find("_gt_") != std::string::npos || m.find("_ge_") != std::string::npos;
    const bool less = m.find("_lt_") != std::string::npos || m.find("_le_") != std::string::npos;
    if (!m.starts_with("v_cmp_") || !(greater || less) || o.arg < 0) return;
    auto [it, fresh] = lane_comparisons.try_emplace(in.raw ? in.raw->address : in.address);
    LaneComparisons& lc = it->second;
    if (fresh) {
      tie_owner_[it->first] = {&s, lane, side};
      lc.inst = in.raw ? in.raw->text : std::string();
      lc.keeps_greater = greater == (side == 0);  // x > c, or c < x
      lc.arg = static_cast<size_t>(o.arg);
    }
    if (tie_owner_[it->first] != std::tuple{&s, lane, side} || static_cast<size_t>(o.arg) != lc.arg || lc.elements.size() >= 2) return;
    if (lc.elements.empty() || lc.elements.back() != o.elem) lc.elements.push_back(o.elem);
  }

  std::optional<std::pair<uint32_t, Origin>> scalar_taint(const WaveShadow& s, const Wave& w, const ExecInst& in, const std::string& m, uint64_t exec) {
    if (m == "v_readfirstlane_b32" || m == "v_readlane_b32") {
      unsigned lane = exec ? static_cast<unsigned>(std::countr_zero(exec)) : 0;
      if (m == "v_readlane_b32") {
        if (in.nsrc < 2) return std::nullopt;
        const double l = value_of(w, in.src[1], 0, Num::Unsigned);
        if (!std::isfinite(l)) return std::nullopt;
        lane = static_cast<unsigned>(l) % kLanes;
      }
      if (const Origin* o = s.at(in.src[0], lane)) {
        Origin r = *o;
        r.chain = o->chain + 1;
        if (r.chain <= kMaxTaintChain) return std::pair{static_cast<uint32_t>(in.dst[0].index), r};
      }
      return std::nullopt;
    }
    if (!m.starts_with("s_") || m.starts_with("s_cmp")) return std::nullopt;
    for (unsigned i = 0; i < in.nsrc && i < 3; ++i)
      if (in.src[i].kind == Operand::SGPR)
        if (const Origin* o = s.at(in.src[i], 0); o && o->chain + 1 <= kMaxTaintChain) {
          Origin r = *o;
          r.chain = o->chain + 1;
          if (m != "s_mov_b32") r.affine = false, r.num = num_of(m);
          return std::pair{static_cast<uint32_t>(in.dst[0].index), r};
        }
    return std::nullopt;
  }

  std::vector<std::pair<uint32_t, Lanes>> lds_taint(const emu::ExecContext& ctx, const WaveShadow& s, const Wave& w, const ExecInst& in,
                                                    const std::string& m, uint64_t exec) {
    std::vector<std::pair<uint32_t, Lanes>> out;
    const uint64_t wg = (static_cast<uint64_t>(ctx.wg_id[0]) << 44) ^ (static_cast<uint64_t>(ctx.wg_id[1]) << 34) ^ (static_cast<uint64_t>(ctx.wg_id[2]) << 26);
    auto dwords_of = [&](std::string_view sfx) -> unsigned { return sfx == "b32" ? 1 : sfx == "b64" ? 2 : sfx == "b96" ? 3 : sfx == "b128" ? 4 : 0; };
    const bool two = m.starts_with("ds_write2") || m.starts_with("ds_read2");
    const unsigned n = dwords_of(m.substr(m.rfind('_') + 1));
    const unsigned stride = m.find("st64") != std::string::npos ? 64 : 1;
    const bool write = m.starts_with("ds_write"), read = m.starts_with("ds_read");
    if (m == "ds_bpermute_b32" || m == "ds_swizzle_b32") {  // cross-lane reads (swizzle: the lane's own, a guess the search checks)
      if (in.ndst < 1 || in.dst[0].kind != Operand::VGPR) return out;
      const Operand& data = m == "ds_bpermute_b32" ? in.src[1] : in.src[0];
      Lanes lanes{};
      bool any = false;
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!(exec >> l & 1)) continue;
        const unsigned from = m == "ds_bpermute_b32" ? (static_cast<unsigned>(w.v[in.src[0].index][l] + in.mods.offset) / 4) % kLanes : l;
        if (const Origin* o = s.at(data, from)) lanes[l] = *o, lanes[l].affine = lanes[l].affine && from == l, any = true;
      }
      if (any) out.push_back({static_cast<uint32_t>(in.dst[0].index), lanes});
      return out;
    }
    if (!n || (!write && !read) || in.src[0].kind != Operand::VGPR) return out;
    const unsigned bytes = n * 4;
    const uint64_t o0 = two ? static_cast<uint64_t>(in.mods.offset) * bytes * stride : static_cast<uint64_t>(in.mods.offset);
    const uint64_t o1 = static_cast<uint64_t>(in.mods.offset1) * bytes * stride;
    const unsigned parts = two ? 2 : 1;
    if (write) {
      for (unsigned l = 0; l < kLanes; ++l) {
        if (!(exec >> l & 1)) continue;
        const uint64_t a = w.v[in.src[0].index][l];
        for (unsigned p = 0; p < parts; ++p)
          for (unsigned d = 0; d < n; ++d) {
            const uint64_t at = wg | ((a + (p ? o1 : o0) + 4 * d) & 0x3ffffff);
            Operand data = in.src[1 + p];
            data.index += d;
            if (const Origin* o = s.at(data, l)) lds_[at] = *o;
            else lds_.erase(at);
          }
      }
      return out;
    }
    if (in.ndst < 1 || in.dst[0].kind != Operand::VGPR) return out;
    std::vector<Lanes> regs(parts * n);
    std::vector<bool> any(parts * n);
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      const uint64_t a = w.v[in.src[0].index][l];
      for (unsigned p = 0; p < parts; ++p)
        for (unsigned d = 0; d < n; ++d)
          if (auto it = lds_.find(wg | ((a + (p ? o1 : o0) + 4 * d) & 0x3ffffff)); it != lds_.end()) {
            Origin o = it->second;
            if (++o.chain > kMaxTaintChain) continue;
            regs[p * n + d][l] = o, any[p * n + d] = true;
          }
    }
    for (unsigned r = 0; r < regs.size(); ++r)
      if (any[r]) out.push_back({static_cast<uint32_t>(in.dst[0].index + r), regs[r]});
    return out;
  }

  // A non-affine operand u (a function of element o.elem) against the other side's value c.
  void probe(const ExecInst& in, const Origin& o, double u, double c) {
    if (!std::isfinite(u) || !std::isfinite(c)) return;
    const uint64_t pc = in.raw ? in.raw->address : in.address;
    const ProbeKey k{pc, o.arg, o.elem};
    if (probes.count(k) || probe_per_pc_[pc] >= kPerDecision) return;
    ++probe_per_pc_[pc];
    probes[k] = {in.raw ? in.raw->text : std::string(), u, c, o.chain};
  }

  // Any other VALU instruction with an element-derived source: the result still depends on that
  // element (the first such source's), by a function only the emulator knows. Lanes the affine
  // steps already set keep their affine origin.
  bool taint(const WaveShadow& s, const ExecInst& in, const std::string& m, uint64_t exec, Lanes& out) {
    if (!m.starts_with("v_") || m.starts_with("v_cmp")) return false;
    bool any = false;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1) || out[l].arg >= 0) continue;
      for (unsigned i = 0; i < in.nsrc && i < 3; ++i) {
        const Origin* o = s.at(in.src[i], l);
        if (!o || o->chain + 1 > kMaxTaintChain) continue;
        out[l] = *o;
        out[l].affine = false;
        out[l].chain = o->chain + 1;
        out[l].num = num_of(m);
        any = true;
        break;
      }
    }
    return any;
  }

  // Affine steps: result = a' * element + b' in every lane where exactly the tracked operands allow.
  bool propagate(const WaveShadow& s, const Wave& w, const ExecInst& in, const std::string& m, uint64_t exec, Lanes& out) {
    const Num n = num_of(m);
    auto src = [&](unsigned i) -> const Operand& { return in.src[i]; };
    const bool keeps_num = m == "v_mov_b32" || m == "v_cndmask_b32";  // bit moves: the number stays what it was
    auto step = [&](unsigned l, const Origin& o, double a, double b) {
      if (o.chain + 1 > kMaxChain) return;
      Origin r = o;
      r.a = o.a * a, r.b = o.b * a + b, r.chain = o.chain + 1;
      if (!keeps_num) r.num = n;
      out[l] = r;
    };
    enum Kind { None, Mov, Add, Sub, SubRev, Mul, Shl, Fma, Fmac, Cndmask, Select } kind = None;
    if (m == "v_mov_b32" || m == "v_cvt_f32_i32" || m == "v_cvt_f32_u32") kind = Mov;
    else if (m == "v_add_f32" || m == "v_add_u32" || m == "v_add_co_u32" || m == "v_add_i32" || m == "v_add_nc_u32") kind = Add;
    else if (m == "v_sub_f32" || m == "v_sub_u32" || m == "v_sub_co_u32" || m == "v_sub_i32") kind = Sub;
    else if (m == "v_subrev_f32" || m == "v_subrev_u32" || m == "v_subrev_co_u32") kind = SubRev;
    else if (m == "v_mul_f32" || m == "v_mul_legacy_f32" || m == "v_mul_lo_u32" || m == "v_mul_u32_u24" || m == "v_mul_i32_i24") kind = Mul;
    else if (m == "v_lshlrev_b32") kind = Shl;
    else if (m == "v_fma_f32" || m == "v_mad_f32" || m == "v_mad_u32_u24" || m == "v_mad_i32_i24" || m == "v_fma_legacy_f32") kind = Fma;
    else if (m == "v_fmac_f32" || m == "v_mac_f32") kind = Fmac;
    else if (m == "v_cndmask_b32") kind = Cndmask;
    else if (m == "v_max_f32" || m == "v_min_f32" || m == "v_max_i32" || m == "v_min_i32" || m == "v_max_u32" || m == "v_min_u32") kind = Select;
    if (kind == None || in.mods.omod || in.mods.clamp) return false;
    uint64_t mask = 0;
    if (kind == Cndmask) {
      const Operand& c = in.nsrc > 2 ? src(2) : Operand{};
      if (in.nsrc > 2 && c.kind == Operand::SGPR) mask = w.sreg64(c.index);
      else if (in.nsrc <= 2) mask = w.vcc();
      else return false;
    }
    bool any = false;
    for (unsigned l = 0; l < kLanes; ++l) {
      if (!(exec >> l & 1)) continue;
      const Origin* o0 = in.nsrc > 0 ? s.at(src(0), l) : nullptr;
      const Origin* o1 = in.nsrc > 1 ? s.at(src(1), l) : nullptr;
      const Origin* o2 = in.nsrc > 2 ? s.at(src(2), l) : nullptr;
      auto val = [&](unsigned i) { return value_of(w, src(i), l, n); };
      const double sign0 = (n == Num::Float && src(0).neg) ? -1 : 1, sign1 = (n == Num::Float && in.nsrc > 1 && src(1).neg) ? -1 : 1;
      if ((o0 && src(0).abs) || (o1 && in.nsrc > 1 && src(1).abs)) continue;
      // When several sources derive from elements (x - max(x), with the maximum itself one of the
      // elements), the first is the variable and the others count as the values they have now.
      switch (kind) {
        case Mov: if (o0) step(l, *o0, sign0, 0); break;
        case Add:
          if (o0) step(l, *o0, sign0, val(1));
          else if (o1) step(l, *o1, sign1, val(0));
          break;
        case Sub:
          if (o0) step(l, *o0, sign0, -val(1));
          else if (o1) step(l, *o1, -sign1, val(0));
          break;
        case SubRev:
          if (o1) step(l, *o1, sign1, -val(0));
          else if (o0) step(l, *o0, -sign0, val(1));
          break;
        case Mul:
          if (o0) step(l, *o0, sign0 * val(1), 0);
          else if (o1) step(l, *o1, sign1 * val(0), 0);
          break;
        case Shl:
          if (o1 && !o0 && val(0) >= 0 && val(0) < 31) step(l, *o1, std::ldexp(1.0, static_cast<int>(val(0))), 0);
          break;
        case Fma:  // s0 * s1 + s2
          if (in.nsrc < 3) break;
          if (o0) step(l, *o0, sign0 * val(1), val(2));
          else if (o1) step(l, *o1, sign1 * val(0), val(2));
          else if (o2) step(l, *o2, (n == Num::Float && src(2).neg) ? -1 : 1, val(0) * val(1));
          break;
        case Fmac: {  // dst + s0 * s1, the accumulator is the last source
          const unsigned acc = in.nsrc - 1;
          if (acc != 2) break;
          const Origin* oa = s.at(src(acc), l);
          if (o0) step(l, *o0, val(1), val(acc));
          else if (o1) step(l, *o1, val(0), val(acc));
          else if (oa) step(l, *oa, 1, val(0) * val(1));
          break;
        }
        case Cndmask: {
          const Origin* chosen = (mask >> l & 1) ? o1 : o0;
          if (chosen) step(l, *chosen, (mask >> l & 1) ? sign1 : sign0, 0);
          break;
        }
        case Select: {
          const double a = val(0), b = val(1);
          const bool max = m.starts_with("v_max");
          const bool first = max ? a >= b : a <= b;
          const Origin* chosen = first ? o0 : o1;
          if (chosen) step(l, *chosen, first ? sign0 : sign1, 0);
          break;
        }
        case None: break;
      }
      any |= out[l].arg >= 0;
    }
    return any;
  }

  static constexpr unsigned kPerDecision = 4096;
  const emu::LaunchSpec& spec_;
  std::optional<uint64_t> snapshot_pc_;
  std::vector<uint64_t> sampled_;
  std::mutex mu_;
  std::unordered_map<uint64_t, WaveShadow> shadow_;
  std::set<std::tuple<uint64_t, int32_t, uint64_t>> seen_;
  std::map<uint64_t, unsigned> per_pc_, probe_per_pc_;
  std::map<uint64_t, std::tuple<const WaveShadow*, unsigned, unsigned>> tie_owner_;  // lane_comparisons' lane and operand per decision
  std::unordered_map<uint64_t, Origin> lds_;  // (workgroup, LDS byte address) -> origin of the dword there
};

// The element value on `side` of threshold v, in the buffer's dtype: at it (0), the next
// representable value below or above (-1, +1), a little further (-2, +2: 1e-3 relative for floats,
// 2 for integers).
void place(std::vector<uint8_t>& bytes, const std::string& dtype, uint64_t elem, double v, int side) {
  if (!element_searchable(dtype)) return;
  std::optional<uint32_t> b;
  if (emu::dtype_is_float(dtype) && (side == -2 || side == 2)) b = element_from_number(dtype, v + side / 2 * (std::fabs(v) * 1e-3 + 1e-3));
  else if (auto at = element_from_number(dtype, v)) b = side ? element_of_key(dtype, element_key(dtype, *at) + side) : at;
  if (b) set_element_bits(bytes, dtype, elem, *b);
}

// The threshold search for decisions on non-affine operands (aimed.h). One walk per element: the
// operand u(x) of its decision against the other side's value c, g(x) = u - c. Secant steps until
// g changes sign, then regula falsi alternating with bisection of the element's ordered
// representation until the two ends are adjacent values (or g = 0). All walks move at once, one
// observed run of K0 per step; a walk whose decision is no longer reached backs off, then stops.
struct Walk {
  DecisionObserver::ProbeKey key;
  std::string dtype, inst;
  uint32_t chain = 0;
  int64_t k_prev = 0, k_cur = 0;
  double g_prev = 0;
  bool bracketed = false;
  int64_t k_lo = 0, k_hi = 0;
  double g_lo = 0, g_hi = 0;
  unsigned fails = 0, steps = 0;
  bool done = false;
  std::optional<int64_t> result;
};

double number_at(const std::string& dtype, int64_t k) {
  auto b = element_of_key(dtype, k);
  return b ? element_number(dtype, *b) : std::nan("");
}

// The key nearest to x, none when x is outside the dtype's finite range.
std::optional<int64_t> key_near(const std::string& dtype, double x) {
  auto b = element_from_number(dtype, x);
  if (!b) return std::nullopt;
  return element_key(dtype, *b);
}

void next_bracket_point(Walk& w) {
  if (w.k_hi - w.k_lo <= 1) {
    w.result = w.k_hi, w.done = true;
    return;
  }
  int64_t k = w.k_lo + (w.k_hi - w.k_lo) / 2;
  if (w.steps % 2 == 0) {  // regula falsi in value space: exact for a linear operand
    const double xl = number_at(w.dtype, w.k_lo), xh = number_at(w.dtype, w.k_hi);
    const double x = xl - w.g_lo * (xh - xl) / (w.g_hi - w.g_lo);
    if (auto kf = key_near(w.dtype, x); kf && *kf > w.k_lo && *kf < w.k_hi) k = *kf;
  }
  w.k_cur = k;
}

void step_walk(Walk& w, std::optional<double> g) {
  ++w.steps;
  if (!g || !std::isfinite(*g)) {  // the decision was not reached (or not finite) at k_cur: back off
    if (++w.fails > 3) return void(w.done = true);
    if (w.bracketed) return void(w.done = true);  // inside the bracket the decision is skipped: no crossing to place
    w.k_cur = w.k_prev + (w.k_cur - w.k_prev) / 2;
    if (w.k_cur == w.k_prev) w.done = true;
    return;
  }
  if (*g == 0) {
    w.result = w.k_cur, w.done = true;
    return;
  }
  if (w.bracketed) {
    if ((*g < 0) == (w.g_lo < 0)) w.k_lo = w.k_cur, w.g_lo = *g;
    else w.k_hi = w.k_cur, w.g_hi = *g;
    return next_bracket_point(w);
  }
  if ((*g < 0) != (w.g_prev < 0)) {
    w.bracketed = true;
    if (w.k_prev < w.k_cur) w.k_lo = w.k_prev, w.g_lo = w.g_prev, w.k_hi = w.k_cur, w.g_hi = *g;
    else w.k_lo = w.k_cur, w.g_lo = *g, w.k_hi = w.k_prev, w.g_hi = w.g_prev;
    return next_bracket_point(w);
  }
  const double xp = number_at(w.dtype, w.k_prev), xc = number_at(w.dtype, w.k_cur);
  double d = *g != w.g_prev ? -*g * (xc - xp) / (*g - w.g_prev) : 4 * (xc - xp);
  const double max_step = 16 * std::fabs(xc - xp) + 1e-30;
  if (!std::isfinite(d)) d = 4 * (xc - xp);
  if (std::fabs(d) > max_step) d = std::copysign(max_step, d);
  auto kn = key_near(w.dtype, xc + d);
  if (!kn) return void(w.done = true);
  if (*kn == w.k_cur) *kn += d < 0 ? -1 : 1;
  w.k_prev = w.k_cur, w.g_prev = *g, w.k_cur = *kn;
}

// `base` with the given argument bytes (empty: as in base).
emu::LaunchSpec with_bytes(const emu::LaunchSpec& base, std::vector<std::vector<uint8_t>> bytes) {
  emu::LaunchSpec run = base;
  run.special_variant = -1;
  for (size_t a = 0; a < bytes.size(); ++a)
    if (!bytes[a].empty()) set_input_bytes(run.args[a], std::move(bytes[a]));
  return run;
}

// Thresholds of the decisions on non-affine operands, by the walks above (aimed.h).
std::vector<Threshold> search_thresholds(Backend& backend, const LoadedKernel& k0, const emu::LaunchSpec& base,
                                         const std::vector<std::shared_ptr<std::vector<uint8_t>>>& inputs,
                                         const std::map<DecisionObserver::ProbeKey, DecisionObserver::Probe>& probes, AimedInputs& out) {
  // Elements spread over each decision's lanes by a hash; one walk per element.
  std::vector<std::pair<uint64_t, const DecisionObserver::ProbeKey*>> order;
  for (const auto& [key, p] : probes) order.push_back({mix(std::get<2>(key) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(std::get<1>(key))), &key});
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(*a.second), a.first) < std::tie(std::get<0>(*b.second), b.first);
  });
  std::vector<Walk> walks;
  std::set<std::pair<int32_t, uint64_t>> taken;
  std::map<uint64_t, unsigned> per_pc;
  for (const auto& [h, key] : order) {
    const auto& [pc, arg, elem] = *key;
    if (arg < 0 || static_cast<size_t>(arg) >= inputs.size() || !inputs[arg]) continue;
    const std::string& dtype = base.args[arg].dtype;
    if (!element_searchable(dtype) || per_pc[pc] >= kSearchPerDecision || !taken.insert({arg, elem}).second) continue;
    const DecisionObserver::Probe& p = probes.at(*key);
    Walk w;
    w.key = *key, w.dtype = dtype, w.inst = p.inst, w.chain = p.chain;
    w.k_prev = element_key(dtype, element_bits(*inputs[arg], dtype, elem));
    w.g_prev = p.u - p.c;
    if (w.g_prev == 0) {
      w.result = w.k_prev, w.done = true;
    } else {  // first step toward the threshold as if the operand grew with the element
      const double x = number_at(dtype, w.k_prev);
      auto kn = key_near(dtype, x - std::copysign(std::fabs(x) * 0.5 + 1, w.g_prev));
      if (!kn || *kn == w.k_prev) continue;
      w.k_cur = *kn;
    }
    ++per_pc[pc];
    walks.push_back(std::move(w));
  }
  out.search_walks = walks.size();
  for (unsigned run = 0; run < kSearchRuns; ++run) {
    std::vector<std::vector<uint8_t>> bytes(base.args.size());
    size_t active = 0;
    for (const Walk& w : walks) {
      if (w.done) continue;
      const auto& [pc, arg, elem] = w.key;
      auto b = element_of_key(w.dtype, w.k_cur);
      if (!b) continue;
      if (bytes[arg].empty()) bytes[arg] = *inputs[arg];
      set_element_bits(bytes[arg], w.dtype, elem, *b);
      ++active;
    }
    if (!active) break;
    emu::LaunchSpec r = with_bytes(base, std::move(bytes));
    DecisionObserver obs(r);
    const bool completed = backend.run(k0, r, 1ull << 32, {}, &obs).status == RunOutcome::Completed;
    ++out.search_runs;
    for (Walk& w : walks) {
      if (w.done) continue;
      std::optional<double> g;
      if (auto it = obs.probes.find(w.key); completed && it != obs.probes.end()) g = it->second.u - it->second.c;
      step_walk(w, g);
    }
  }
  std::vector<Threshold> found;
  for (const Walk& w : walks) {
    if (!w.result) continue;
    const auto& [pc, arg, elem] = w.key;
    found.push_back({pc, w.inst, static_cast<size_t>(arg), elem, number_at(w.dtype, *w.result), w.chain, true});
  }
  out.search_found = found.size();
  return found;
}

}  // namespace

std::string AimedSet::describe() const {
  std::string d = fmt::format("{} {} threshold(s) of {} decision(s)", side, thresholds, decisions);
  if (!decision_texts.empty()) {
    d += " (";
    for (size_t i = 0; i < decision_texts.size(); ++i) d += (i ? "; " : "") + decision_texts[i];
    d += decisions > decision_texts.size() ? "; ...)" : ")";
  }
  return d;
}

std::optional<ElementAt> element_at(const emu::DeviceMemory& mem, const emu::LaunchSpec& spec, uint64_t address) {
  const emu::DeviceMemory::Region* r = mem.find(address);
  if (!r || !r->guard) return std::nullopt;
  size_t arg = 0;
  if (std::sscanf(r->name.c_str(), "argument %zu", &arg) != 1 || arg >= spec.args.size()) return std::nullopt;
  const std::string& dt = spec.args[arg].dtype;
  if (!element_searchable(dt)) return std::nullopt;  // 64-bit and fp8 elements are not tracked
  const unsigned esize = element_bytes(dt);
  const int64_t off = static_cast<int64_t>(address - r->base) - static_cast<int64_t>(r->guard);
  if (off < 0 || static_cast<uint64_t>(off) / esize >= spec.args[arg].count) return std::nullopt;
  return ElementAt{arg, static_cast<uint64_t>(off) / esize, off % esize == 0};
}

ObservedState observe_at(Backend& backend, const LoadedKernel& k0, const emu::LaunchSpec& base, uint64_t pc) {
  DecisionObserver obs(base, pc);
  RunOutcome o = backend.run(k0, base, 1ull << 32, {}, &obs);
  ObservedState st = std::move(obs.snapshot);
  if (o.status != RunOutcome::Completed) return ObservedState{};
  st.inputs = o.input_bytes(base.args.size());
  return st;
}

std::optional<double> ObservedState::element_value(unsigned reg, unsigned lane, uint32_t bits) const {
  auto it = origins.find({reg, lane});
  if (it == origins.end()) return std::nullopt;
  const ElementOrigin& o = it->second;
  const double x = o.is_float ? static_cast<double>(std::bit_cast<float>(bits)) : o.is_signed ? static_cast<double>(static_cast<int32_t>(bits)) : bits;
  const double v = (x - o.b) / o.a;
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<emu::LaunchSpec> with_elements(const emu::LaunchSpec& base, const ObservedState& st,
                                             const std::vector<std::tuple<size_t, uint64_t, double>>& elements, const std::string& label) {
  std::vector<std::vector<uint8_t>> bytes(base.args.size());
  size_t placed = 0;
  for (const auto& [arg, elem, value] : elements) {
    if (arg >= st.inputs.size() || !st.inputs[arg] || elem >= base.args[arg].count) continue;
    if (bytes[arg].empty()) bytes[arg] = *st.inputs[arg];
    place(bytes[arg], base.args[arg].dtype, elem, value, 0);
    ++placed;
  }
  if (!placed) return std::nullopt;
  emu::LaunchSpec run = with_bytes(base, std::move(bytes));
  const size_t shape_end = base.label.rfind(", ");
  run.label = (shape_end == std::string::npos ? std::string() : base.label.substr(0, shape_end) + ", ") + label;
  return run;
}

AimedInputs aim_inputs(Backend& backend, const LoadedKernel& k0, const emu::LaunchSpec& base, const DecisionSolver& solver) {
  AimedInputs out;
  DecisionObserver obs(base);
  RunOutcome o = backend.run(k0, base, 1ull << 32, {}, &obs);
  if (o.status != RunOutcome::Completed) return out;  // the reference reports the base run itself
  out.thresholds = std::move(obs.thresholds);
  for (auto& [pc, u] : obs.unresolved) out.unresolved.push_back(u);
  for (uint64_t pc : obs.decision_pcs)
    if (!obs.data_derived_pcs.count(pc)) out.launch_determined.insert(pc);
  // Input bytes as the base run had them.
  const auto inputs = o.input_bytes(base.args.size());
  out.magnitude = magnitude_sets(base, inputs);
  if (auto tiny = signed_tiny_set(base, inputs)) out.magnitude.push_back(std::move(*tiny));
  out.float_division = obs.float_division;
  if (obs.float_division) {
    if (auto sums = exact_sum_set(base, inputs)) out.magnitude.push_back(std::move(*sums));
    if (auto ties = tie_count_set(base, inputs)) out.tie_counts.push_back(std::move(*ties));
  }
  out.literal = literal_sets(base, inputs, obs.literal_bits);
  if (!obs.probes.empty()) {
    auto searched = search_thresholds(backend, k0, base, inputs, obs.probes, out);
    out.thresholds.insert(out.thresholds.end(), searched.begin(), searched.end());
    out.notes.push_back(fmt::format("{}: threshold search: {} of {} element(s) placed on a non-affine decision's threshold in {} observed run(s) of the original",
                                    base.label, out.search_found, out.search_walks, out.search_runs));
  }
  if (solver && !out.unresolved.empty()) {
    auto more = solver(base, out.unresolved);
    out.thresholds.insert(out.thresholds.end(), more.begin(), more.end());
  }
  std::vector<AimedSet> ties = tie_sets(base, inputs, obs.lane_comparisons);
  if (out.thresholds.empty()) {
    out.sets = std::move(ties);
    out.notes.push_back(fmt::format("{}: no decision of the original kernel derives from an input element: no aimed input sets", base.label));
    return out;
  }
  std::map<std::pair<size_t, uint64_t>, std::vector<size_t>> by_element;  // (arg, element) -> thresholds
  for (size_t i = 0; i < out.thresholds.size(); ++i) by_element[{out.thresholds[i].arg, out.thresholds[i].element}].push_back(i);
  static const std::pair<const char*, int> kSides[] = {{"at", 0}, {"below", -1}, {"above", 1}, {"further below", -2}, {"further above", 2}};
  int k = 0;
  for (const auto& [side_name, side] : kSides) {
    AimedSet set;
    set.run = base;
    set.side = side_name;
    set.run.label = derived_label(base.label, fmt::format("aimed set {} ({} thresholds)", k, side_name));
    set.run.special_variant = -1;
    set.run.poison = k % 2 ? 0xA5 : 0xFF;
    std::vector<std::vector<uint8_t>> bytes(base.args.size());
    std::set<std::pair<size_t, uint64_t>> placed;
    std::set<uint64_t> decisions;
    // Each set places half of the elements (alternating by element), so a reduction's extreme value
    // (a row maximum) most often stays where it was and the other thresholds still hold; an element
    // several decisions reach takes them in turn (by element and set), so every decision gets elements.
    for (const auto& [where, options] : by_element) {
      const auto& [arg, elem] = where;
      // Chosen by a hash of the element, not its index: kernels give each lane a fixed stride of
      // elements, and index arithmetic would leave some decisions without any.
      const uint64_t h = mix(elem * 0x9E3779B97F4A7C15ull + arg);
      if (!inputs[arg] || ((h >> 32) + static_cast<uint64_t>(k)) % 2) continue;
      const Threshold& t = out.thresholds[options[(h + static_cast<uint64_t>(k)) % options.size()]];
      placed.insert(where);
      if (bytes[arg].empty()) bytes[arg] = *inputs[arg];
      place(bytes[arg], base.args[arg].dtype, elem, t.value, side);
      if (decisions.insert(t.pc).second && set.decision_texts.size() < 3)
        set.decision_texts.push_back(fmt::format("{} at 0x{:x}", t.inst, t.pc));
    }
    set.thresholds = placed.size();
    set.decisions = decisions.size();
    for (size_t a = 0; a < bytes.size(); ++a)
      if (!bytes[a].empty()) set_input_bytes(set.run.args[a], std::move(bytes[a]));
    ++k;
    if (set.thresholds) out.sets.push_back(std::move(set));
  }
  for (auto& t : ties) out.sets.push_back(std::move(t));
  if (!out.unresolved.empty())
    out.notes.push_back(fmt::format("{}: {} decision(s) of the original kernel do not derive from one input element by a short affine chain (left to random and special inputs)",
                                    base.label, out.unresolved.size()));
  return out;
}

}  // namespace asmevo::verify
