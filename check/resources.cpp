#include "check/resources.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "check/isa.h"
#include "codeobj/arch_params.h"

namespace asmevo::check {

using program::Instruction;
using program::RegFile;
using program::RegRange;

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Highest register referenced per file, and the instruction that references it.
struct RegMax {
  int sgpr = -1, vgpr = -1, agpr = -1;
  const Instruction* sgpr_at = nullptr;
  const Instruction* vgpr_at = nullptr;
  const Instruction* agpr_at = nullptr;
  std::string sgpr_fn, vgpr_fn, agpr_fn;
  bool vcc = false, flat_scratch = false;
};

void scan(const Function& f, RegMax& m) {
  auto see = [&](const RegRange& r, const Instruction& i) {
    if (!r.count) return;
    int top = static_cast<int>(r.first + r.count) - 1;
    switch (r.file) {
      case RegFile::SGPR:
        if (top > m.sgpr) m.sgpr = top, m.sgpr_at = &i, m.sgpr_fn = f.name;
        break;
      case RegFile::VGPR:
        if (top > m.vgpr) m.vgpr = top, m.vgpr_at = &i, m.vgpr_fn = f.name;
        break;
      case RegFile::AGPR:
        if (top > m.agpr) m.agpr = top, m.agpr_at = &i, m.agpr_fn = f.name;
        break;
      case RegFile::VCC: m.vcc = true; break;
      case RegFile::FlatScratch: m.flat_scratch = true; break;
      default: break;
    }
  };
  for (const auto& i : f.insts) {
    for (const auto& r : i.defs) see(r, i);
    for (const auto& r : i.uses) see(r, i);
  }
}

// Bytes one DS instruction accesses per address, from the data type in its mnemonic.
unsigned ds_element_bytes(std::string_view m) {
  if (starts_with(m, "ds_pk_")) return 4;
  struct T {
    std::string_view tag;
    unsigned bytes;
  };
  static constexpr T kTypes[] = {{"b128", 16}, {"b96", 12}, {"b64", 8}, {"u64", 8}, {"i64", 8}, {"f64", 8},
                                 {"b32", 4},   {"u32", 4},  {"i32", 4}, {"f32", 4}, {"b16", 2}, {"u16", 2},
                                 {"i16", 2},   {"f16", 2},  {"b8", 1},  {"u8", 1},  {"i8", 1}};
  for (const auto& t : kTypes) {
    size_t pos = m.find(t.tag);
    if (pos != std::string_view::npos && pos > 0 && m[pos - 1] == '_') return t.bytes;
  }
  return 1;
}

// Bytes of a scratch_* access: dword, dwordx2..x4, short, byte (d16 variants included).
unsigned scratch_bytes(std::string_view m) {
  if (m.find("dwordx4") != std::string_view::npos) return 16;
  if (m.find("dwordx3") != std::string_view::npos) return 12;
  if (m.find("dwordx2") != std::string_view::npos) return 8;
  if (m.find("dword") != std::string_view::npos) return 4;
  if (m.find("short") != std::string_view::npos) return 2;
  return 1;
}

// The end (exclusive) of the byte range an LDS access reaches beyond its base address.
uint64_t ds_reach(const Instruction& i) {
  std::string_view m = i.mnemonic;
  unsigned elem = ds_element_bytes(m);
  bool two = m.find("2st64") != std::string_view::npos || m.find("read2") != std::string_view::npos ||
             m.find("write2") != std::string_view::npos || m.find("wrxchg2") != std::string_view::npos;
  if (two) {
    uint64_t unit = elem * (m.find("st64") != std::string_view::npos ? 64 : 1);
    uint64_t o0 = static_cast<uint64_t>(modifier_value(i.text, "offset0").value_or(0));
    uint64_t o1 = static_cast<uint64_t>(modifier_value(i.text, "offset1").value_or(0));
    return std::max(o0, o1) * unit + elem;
  }
  return static_cast<uint64_t>(modifier_value(i.text, "offset").value_or(0)) + elem;
}

Violation make(const std::string& rule, const std::string& fn, const Instruction* at, std::string message) {
  Violation v;
  v.check = "resources";
  v.rule = rule;
  v.function = fn;
  if (at) {
    v.pc = at->address;
    v.text = at->text;
  }
  v.message = std::move(message);
  return v;
}

}  // namespace

std::vector<size_t> callees_of(const Function& f, const std::vector<Function>& functions) {
  std::set<size_t> out;
  auto containing = [&](uint64_t addr) -> std::optional<size_t> {
    for (size_t k = 0; k < functions.size(); ++k) {
      const auto& g = functions[k];
      if (g.is_kernel || g.insts.empty()) continue;
      if (addr >= g.insts.front().address && addr < g.insts.back().address + g.insts.back().size) return k;
    }
    return std::nullopt;
  };
  for (size_t i = 0; i < f.insts.size(); ++i) {
    const Instruction& x = f.insts[i];
    if (!x.is_call) continue;
    std::optional<uint64_t> target;
    if (x.branch_target) {
      target = static_cast<uint64_t>(*x.branch_target);
    } else {
      for (const auto& r : explicit_uses(x))
        if (r.count == 2) target = getpc_value(f.insts, i, r);
    }
    std::optional<size_t> callee = target ? containing(*target) : std::nullopt;
    if (callee) {
      out.insert(*callee);
    } else {
      for (size_t k = 0; k < functions.size(); ++k)
        if (!functions[k].is_kernel) out.insert(k);
    }
  }
  return {out.begin(), out.end()};
}

std::vector<Violation> check_resources(const codeobj::CodeObject& co, const std::vector<Function>& functions,
                                       std::optional<uint32_t> dynamic_lds) {
  std::vector<Violation> out;
  const auto* params = codeobj::arch_params(co.target().arch);
  if (!params) return out;
  const bool xnack = co.target().xnack != codeobj::FeatureSetting::Off;
  const bool architected_flat_scratch = co.target().arch != codeobj::Arch::gfx90a;

  for (const auto& k : co.kernels()) {
    const Function* kf = nullptr;
    for (const auto& f : functions)
      if (f.is_kernel && f.name == k.name) kf = &f;
    if (!kf || !k.resources) continue;
    const codeobj::Resources& res = *k.resources;

    // The kernel and, transitively, every device function it may call.
    std::vector<const Function*> reach{kf};
    std::set<const Function*> seen{kf};
    for (size_t q = 0; q < reach.size(); ++q)
      for (size_t c : callees_of(*reach[q], functions))
        if (seen.insert(&functions[c]).second) reach.push_back(&functions[c]);
    RegMax m;
    for (const Function* f : reach) scan(*f, m);

    if (m.vgpr >= 0 && static_cast<unsigned>(m.vgpr) >= res.arch_vgprs)
      out.push_back(make("resources.vgpr", m.vgpr_fn, m.vgpr_at,
                         fmt::format("references v{} but the kernel descriptor allocates {} architectural VGPRs "
                                     "(v0..v{}{})",
                                     m.vgpr, res.arch_vgprs, res.arch_vgprs ? res.arch_vgprs - 1 : 0,
                                     res.agprs ? "; AGPRs start at accum_offset" : "")));
    if (m.agpr >= 0 && static_cast<unsigned>(m.agpr) >= res.agprs)
      out.push_back(make("resources.agpr", m.agpr_fn, m.agpr_at,
                         fmt::format("references a{} but the kernel descriptor allocates {} AGPRs (unified {} "
                                     "minus accum_offset {})",
                                     m.agpr, res.agprs, res.vgprs_allocated, res.arch_vgprs)));
    unsigned extra = m.vcc ? 2 : 0;
    if (xnack) extra = 4;
    if (m.flat_scratch || architected_flat_scratch) extra = 6;
    if (m.sgpr >= 0) {
      unsigned need = static_cast<unsigned>(m.sgpr) + 1;
      if (need > params->max_addressable_sgprs)
        out.push_back(make("resources.sgpr", m.sgpr_fn, m.sgpr_at,
                           fmt::format("references s{}, beyond the {} addressable SGPRs", m.sgpr,
                                       params->max_addressable_sgprs)));
      else if (need + extra > res.sgprs_allocated)
        out.push_back(make("resources.sgpr", m.sgpr_fn, m.sgpr_at,
                           fmt::format("references s{} but the kernel descriptor allocates {} SGPRs, of which the "
                                       "top {} hold VCC/FLAT_SCRATCH/XNACK_MASK: s0..s{} are usable",
                                       m.sgpr, res.sgprs_allocated, extra,
                                       res.sgprs_allocated > extra ? res.sgprs_allocated - extra - 1 : 0)));
    }

    // LDS.
    const uint64_t lds_fixed = k.kd.group_segment_fixed_size;
    for (const auto& i : kf->insts) {
      if (!ds_accesses_lds_memory(i)) continue;
      uint64_t reach_bytes = ds_reach(i);
      if (reach_bytes > params->lds_bytes_per_cu) {
        out.push_back(make("resources.lds-offset-limit", kf->name, &i,
                           fmt::format("the offset reaches byte {} of LDS, beyond the {} bytes a workgroup can have "
                                       "on {}",
                                       reach_bytes, params->lds_bytes_per_cu, params->name)));
        continue;
      }
      if (!dynamic_lds) continue;
      const uint64_t lds_total = lds_fixed + *dynamic_lds;
      if (lds_total == 0)
        out.push_back(make("resources.lds-offset", kf->name, &i,
                           "accesses LDS but the workgroup has none (group_segment_fixed_size 0, no dynamic LDS)"));
      else if (reach_bytes > lds_total)
        out.push_back(make("resources.lds-offset", kf->name, &i,
                           fmt::format("the offset reaches byte {} of LDS but the workgroup has {} "
                                       "(group_segment_fixed_size {} + dynamic {})",
                                       reach_bytes, lds_total, lds_fixed, *dynamic_lds)));
    }

    // Scratch.
    const bool dynamic_stack = k.kd.get("kernel_code_properties.uses_dynamic_stack") != 0;
    const uint64_t private_fixed = k.kd.private_segment_fixed_size;
    if (!dynamic_stack) {
      for (const Function* f : reach)
        for (const auto& i : f->insts) {
          if (i.cls != program::InstClass::SCRATCH) continue;
          if (private_fixed == 0) {
            out.push_back(make("resources.scratch", f->name, &i,
                               "uses scratch but the kernel descriptor allocates no private segment "
                               "(private_segment_fixed_size 0, no dynamic stack)"));
            break;
          }
          // Constant address: vaddr and saddr both `off`.
          std::string_view t = i.text;
          auto first = t.find(' ');
          std::string_view ops = first == std::string_view::npos ? "" : t.substr(first + 1);
          bool store = i.may_store;
          // loads: "vdst, vaddr, saddr"; stores: "vaddr, vdata, saddr".
          size_t c1 = ops.find(','), c2 = c1 == std::string_view::npos ? c1 : ops.find(',', c1 + 1);
          if (c2 == std::string_view::npos) continue;
          std::string_view vaddr = store ? ops.substr(0, c1) : ops.substr(c1 + 2, c2 - c1 - 2);
          std::string_view saddr = ops.substr(c2 + 2, 3);
          if (vaddr != "off" || saddr != "off") continue;
          uint64_t end = static_cast<uint64_t>(modifier_value(t, "offset").value_or(0)) + scratch_bytes(i.mnemonic);
          if (end > private_fixed)
            out.push_back(make("resources.scratch", f->name, &i,
                               fmt::format("the constant scratch address reaches byte {} but the private segment "
                                           "holds {} bytes per lane",
                                           end, private_fixed)));
        }
    }
  }
  return out;
}

}  // namespace asmevo::check
