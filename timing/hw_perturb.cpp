#include "timing/hw_perturb.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <variant>

namespace asmevo::timing {
namespace {

using Field = std::variant<unsigned HwParams::*, double HwParams::*>;

struct Uncertain {
  const char* name;
  Field field;
  // The archs whose row marks it [U] or fitted (hw_params.cpp's comments); a row that sources it
  // (S-key) is not listed.
  bool gfx90a, gfx942, gfx950;
};

// Timing-relevant fields only: launch_overhead_us is reported, never part of the kernel's cycles.
constexpr Uncertain kUncertain[] = {
    {"branch_taken_cycles", &HwParams::branch_taken_cycles, true, true, true},  // [U] everywhere
    {"ta_cycles", &HwParams::ta_cycles, true, true, true},                      // [U]
    {"lat_l1", &HwParams::lat_l1, true, true, true},                            // [U] unattributed p-chase
    {"lat_l2", &HwParams::lat_l2, true, true, true},                            // fitted (gfx942), reused [U]
    {"lat_mall", &HwParams::lat_mall, false, true, true},                       // fitted (gfx942), reused [U]; none on gfx90a
    {"lat_hbm", &HwParams::lat_hbm, true, true, true},                          // fitted (gfx942), reused [U]
    {"lat_atomic_extra", &HwParams::lat_atomic_extra, true, true, true},        // [U]
    {"lat_scache", &HwParams::lat_scache, true, true, true},                    // [U] unattributed p-chase
    {"lat_smem_miss", &HwParams::lat_smem_miss, true, true, true},              // [U] unattributed p-chase
    {"lds_cycles_base", &HwParams::lds_cycles_base, true, true, true},          // fitted (S11 blocks), reused [U]
    {"lds_cycles_per_phase_cycle", &HwParams::lds_cycles_per_phase_cycle, true, true, true},  // fitted, reused [U]
    {"lat_lds", &HwParams::lat_lds, true, true, true},                          // [U]
    {"barrier_cycles", &HwParams::barrier_cycles, true, true, true},            // [U]
    {"wave_launch_cycles", &HwParams::wave_launch_cycles, true, true, true},    // [U] mgpusim's figure
    {"hbm_efficiency", &HwParams::hbm_efficiency, true, true, true},            // fitted (BabelStream), reused [U]
    {"clock_mfma_ghz", &HwParams::clock_mfma_ghz, true, false, true},           // [U] on gfx90a/gfx950; gfx942 sourced
    {"mall_bw", &HwParams::mall_bw, false, false, true},                        // [U] on gfx950 (MI300X's figure assumed)
    {"l2_bw", &HwParams::l2_bw, false, false, true},                            // [U] on gfx950
};

bool marked(const Uncertain& u, codeobj::Arch arch) {
  switch (arch) {
    case codeobj::Arch::gfx90a: return u.gfx90a;
    case codeobj::Arch::gfx942: return u.gfx942;
    case codeobj::Arch::gfx950: return u.gfx950;
    default: return false;
  }
}

}  // namespace

std::vector<std::string> uncertain_params(codeobj::Arch arch) {
  std::vector<std::string> out;
  for (const auto& u : kUncertain)
    if (marked(u, arch)) out.push_back(u.name);
  return out;
}

HwParams perturbed_params(const HwParams& base, uint64_t seed, double fraction) {
  HwParams p = base;
  std::mt19937_64 rng(seed);
  for (const auto& u : kUncertain) {
    if (!marked(u, base.arch)) continue;
    const double f = (rng() & 1) ? 1.0 + fraction : 1.0 - fraction;
    if (auto* i = std::get_if<unsigned HwParams::*>(&u.field))
      p.*(*i) = std::max(1u, static_cast<unsigned>(std::lround(static_cast<double>(p.*(*i)) * f)));
    else
      p.*std::get<double HwParams::*>(u.field) *= f;
  }
  // A share cannot exceed the whole: hbm_efficiency 0.783 x 1.25 would exceed the peak bandwidth.
  p.hbm_efficiency = std::min(p.hbm_efficiency, 1.0);
  return p;
}

}  // namespace asmevo::timing
