#include "rebuild/abi_diff.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>

#include <map>
#include <set>

#include "support/text.h"

namespace asmevo::rebuild {
namespace {

using codeobj::CodeObject;
using codeobj::KernelDescriptor;
using codeobj::KernelMetadata;
using KC = KdFieldClass;

// ---- Classification of every kernel-descriptor field -----------------------------------------
//
// | field group                                   | class    | why                                        |
// |-----------------------------------------------|----------|--------------------------------------------|
// | user SGPR enables + user_sgpr_count            | break    | which SGPRs hold the kernarg/dispatch ptrs |
// |   (unless B adds only the dispatch ptr, below)  |          |                                            |
// | workgroup id x/y/z, workgroup info (system)    | break    | system SGPRs set up after the user SGPRs   |
// | enable_vgpr_workitem_id                        | break    | workitem-id VGPRs set up at wave start     |
// | enable_private_segment                         | break    | scratch setup, adds a system SGPR          |
// | wavefront_size32                               | break    | wave size                                  |
// | uses_dynamic_stack                             | break    | runtime must provide a dynamic stack       |
// | kernarg_preload length/offset                  | break    | kernargs preloaded into SGPRs              |
// |   (unless B adds preloading, below)            |          |                                            |
// | float round/denorm modes, dx10_clamp, ieee,    | break    | initial MODE register: results change      |
// |   fp16_ovfl                                    |          |                                            |
// | exception enables, trap handler, priv, debug,  | break    | trap/privilege behaviour of the wave       |
// |   cdbg_user, bulky                             |          |                                            |
// | tg_split                                       | break    | memory-model code sequences depend on it   |
// | kernarg_size                                   | break    | kernarg segment size                       |
// | VGPR/SGPR granules, accum_offset, LDS granule, | resource | occupancy and speed only                   |
// |   group/private segment fixed size, priority   |          |                                            |
// | kernel_code_entry_byte_offset                  | ignored  | layout: each KD points to its own code     |
const std::vector<KdFieldRule> kKdClassification = {
    {"compute_pgm_rsrc1.granulated_workitem_vgpr_count", KC::Resource, "VGPRs allocated per lane"},
    {"compute_pgm_rsrc1.granulated_wavefront_sgpr_count", KC::Resource, "SGPRs allocated per wave"},
    {"compute_pgm_rsrc1.priority", KC::Resource, "wave scheduling priority (speed only)"},
    {"compute_pgm_rsrc1.float_round_mode_32", KC::Break, "initial f32 rounding mode changes results"},
    {"compute_pgm_rsrc1.float_round_mode_16_64", KC::Break, "initial f16/f64 rounding mode changes results"},
    {"compute_pgm_rsrc1.float_denorm_mode_32", KC::Break, "initial f32 denormal mode changes results"},
    {"compute_pgm_rsrc1.float_denorm_mode_16_64", KC::Break, "initial f16/f64 denormal mode changes results"},
    {"compute_pgm_rsrc1.priv", KC::Break, "privileged mode of the wave"},
    {"compute_pgm_rsrc1.enable_dx10_clamp", KC::Break, "DX10 clamp mode changes NaN/clamp results"},
    {"compute_pgm_rsrc1.debug_mode", KC::Break, "debug mode changes trap behaviour"},
    {"compute_pgm_rsrc1.enable_ieee_mode", KC::Break, "IEEE mode changes NaN handling of min/max"},
    {"compute_pgm_rsrc1.bulky", KC::Break, "wave concurrency mode of the hardware"},
    {"compute_pgm_rsrc1.cdbg_user", KC::Break, "debugger flag"},
    {"compute_pgm_rsrc1.fp16_ovfl", KC::Break, "f16 overflow behaviour changes results"},
    {"compute_pgm_rsrc2.enable_private_segment", KC::Break, "scratch setup (adds the private segment wave offset SGPR)"},
    {"compute_pgm_rsrc2.user_sgpr_count", KC::Break, "number of user SGPRs the hardware preloads"},
    {"compute_pgm_rsrc2.enable_trap_handler", KC::Break, "trap handler enable"},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_x", KC::Break, "system SGPR workgroup id x"},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_y", KC::Break, "system SGPR workgroup id y"},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_id_z", KC::Break, "system SGPR workgroup id z"},
    {"compute_pgm_rsrc2.enable_sgpr_workgroup_info", KC::Break, "system SGPR workgroup info"},
    {"compute_pgm_rsrc2.enable_vgpr_workitem_id", KC::Break, "workitem-id VGPRs set up at wave start"},
    {"compute_pgm_rsrc2.enable_exception_address_watch", KC::Break, "exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_memory", KC::Break, "exception trap enable"},
    {"compute_pgm_rsrc2.granulated_lds_size", KC::Resource, "LDS granules (set by the CP)"},
    {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_fp_denormal_source", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact", KC::Break, "FP exception trap enable"},
    {"compute_pgm_rsrc2.enable_exception_int_divide_by_zero", KC::Break, "integer exception trap enable"},
    {"compute_pgm_rsrc3.accum_offset", KC::Resource, "split of the unified VGPR file into VGPRs and AGPRs"},
    {"compute_pgm_rsrc3.tg_split", KC::Break, "workgroup may span CUs: memory-model code sequences depend on it"},
    {"kernel_code_properties.enable_sgpr_private_segment_buffer", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_dispatch_ptr", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_queue_ptr", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_kernarg_segment_ptr", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_dispatch_id", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_flat_scratch_init", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_sgpr_private_segment_size", KC::Break, "user SGPR setup"},
    {"kernel_code_properties.enable_wavefront_size32", KC::Break, "wave size"},
    {"kernel_code_properties.uses_dynamic_stack", KC::Break, "the runtime must provide a dynamically sized stack"},
    {"kernarg_preload.length", KC::Break, "kernel arguments preloaded into SGPRs"},
    {"kernarg_preload.offset", KC::Break, "kernel arguments preloaded into SGPRs"},
    {"group_segment_fixed_size", KC::Resource, "static LDS bytes per workgroup"},
    {"private_segment_fixed_size", KC::Resource, "scratch bytes per lane"},
    {"kernarg_size", KC::Break, "kernarg segment size"},
    {"kernel_code_entry_byte_offset", KC::Ignored, "layout: each KD points to its own code"},
};

const KdFieldRule* rule_for(const std::string& field) {
  for (const auto& r : kKdClassification)
    if (field == r.field) return &r;
  return nullptr;
}

std::string str(uint64_t v) { return std::to_string(v); }
std::string opt_str(const std::optional<uint64_t>& v) { return v ? std::to_string(*v) : "-"; }

class Differ {
 public:
  AbiDiff d;
  bool preload_arch_ = false;  // A's target preloads kernargs (gfx942, gfx950)
  void brk(const std::string& kernel, const std::string& field, const std::string& a, const std::string& b,
           const std::string& msg) {
    d.breaks.push_back({kernel, field, a, b, msg});
  }
  void chg(const std::string& kernel, const std::string& field, const std::string& a, const std::string& b,
           const std::string& msg) {
    d.changes.push_back({kernel, field, a, b, msg});
  }

  void files(const CodeObject& a, const CodeObject& b) {
    preload_arch_ = a.target().arch == codeobj::Arch::gfx942 || a.target().arch == codeobj::Arch::gfx950;
    if (a.target() != b.target())
      brk("", "target", a.target().str(), b.target().str(), "code objects for different targets");
    if (a.version() != b.version())
      brk("", "code_object_version", str(a.version()), str(b.version()), "different code object versions");
    if (a.elf().os_abi() != b.elf().os_abi())
      brk("", "os_abi", str(a.elf().os_abi()), str(b.elf().os_abi()), "different ELF OS ABI");
    if (a.metadata().has_value() != b.metadata().has_value())
      brk("", "metadata", a.metadata() ? "present" : "-", b.metadata() ? "present" : "-",
          "the runtime launches kernels from the metadata note");
    if (a.metadata() && b.metadata() && a.metadata()->version() != b.metadata()->version()) {
      auto v = [](const codeobj::Metadata& m) { return fmt::format("{}.{}", m.version()[0], m.version()[1]); };
      chg("", "amdhsa.version", v(*a.metadata()), v(*b.metadata()), "metadata note version");
    }
    symbols(a, b);
    std::set<std::string> an, bn;
    for (const auto& k : a.kernels()) an.insert(k.name);
    for (const auto& k : b.kernels()) bn.insert(k.name);
    for (const auto& n : an)
      if (!bn.count(n)) brk(n, "kernels", "present", "-", "kernel missing from B");
    for (const auto& n : bn)
      if (!an.count(n)) brk(n, "kernels", "-", "present", "kernel only in B: the kernel sets differ");
    for (const auto& ka : a.kernels()) {
      const auto* kb = b.kernel(ka.name);
      if (!kb) continue;
      kd(ka.name, ka.kd, kb->kd);
      const auto* ma = a.kernel_metadata(ka);
      const auto* mb = b.kernel_metadata(*kb);
      if (ma && mb) metadata(ka.name, *ma, *mb);
      else if (ma || mb) brk(ka.name, "metadata", ma ? "present" : "-", mb ? "present" : "-", "kernel metadata");
      if (ka.code_size != kb->code_size)
        chg(ka.name, "code_size", str(ka.code_size), str(kb->code_size), "bytes of machine code");
    }
  }

  // Exported (dynamic) symbols: names, kinds, binding/visibility and data object sizes.
  void symbols(const CodeObject& a, const CodeObject& b) {
    auto dyn = [](const CodeObject& c) {
      std::map<std::string, const codeobj::ElfSymbol*> m;
      const codeobj::ElfSection* dynsym = nullptr;
      for (const auto& s : c.elf().sections())
        if (s.type == llvm::ELF::SHT_DYNSYM) dynsym = &s;
      for (const auto& s : c.elf().symbols()) {
        if (s.name.empty() || s.section_index == 0) continue;
        if (dynsym ? s.table_section != dynsym->index : s.binding == llvm::ELF::STB_LOCAL) continue;
        m.emplace(s.name, &s);
      }
      return m;
    };
    auto sa = dyn(a), sb = dyn(b);
    auto kind = [](const codeobj::ElfSymbol& s) {
      return fmt::format("type {} binding {} visibility {}", s.type, s.binding, s.visibility);
    };
    // __hip_cuid_<hash> marks a HIP compilation unit (a random ID per compile, used when linking
    // relocatable device code); no launch refers to it, so a different one is only a change.
    auto cuid = [](const std::string& n) { return n.rfind("__hip_cuid_", 0) == 0; };
    for (const auto& [n, s] : sa) {
      auto it = sb.find(n);
      if (it == sb.end()) {
        if (cuid(n)) chg("", "symbol " + sanitize_utf8(n), "present", "-", "HIP compilation-unit ID");
        else brk("", "symbol " + sanitize_utf8(n), "present", "-", "exported symbol missing from B");
        continue;
      }
      const auto& t = *it->second;
      if (s->type != t.type || s->binding != t.binding || s->visibility != t.visibility)
        brk("", "symbol " + sanitize_utf8(n), kind(*s), kind(t), "exported symbol kind differs");
      else if (s->type == llvm::ELF::STT_OBJECT && s->size != t.size)
        brk("", "symbol " + sanitize_utf8(n), "size " + str(s->size), "size " + str(t.size),
            "size of an exported data object differs");
    }
    for (const auto& [n, s] : sb) {
      if (sa.count(n)) continue;
      if (cuid(n)) chg("", "symbol " + sanitize_utf8(n), "-", "present", "HIP compilation-unit ID");
      else brk("", "symbol " + sanitize_utf8(n), "-", "present", "exported symbol only in B");
    }
  }

  void kd(const std::string& k, const KernelDescriptor& a, const KernelDescriptor& b) {
    auto field = [&](const std::string& name, uint64_t va, uint64_t vb, const std::string& extra = {}) {
      if (va == vb) return;
      const KdFieldRule* r = rule_for(name);
      std::string why = r ? r->why : "field not classified: treated as an ABI break";
      if (!extra.empty()) why = extra + " (" + why + ")";
      if (!r || r->cls == KC::Break) brk(k, name, str(va), str(vb), why);
      else if (r->cls == KC::Resource) chg(k, name, str(va), str(vb), why);
    };
    field("group_segment_fixed_size", a.group_segment_fixed_size, b.group_segment_fixed_size);
    field("private_segment_fixed_size", a.private_segment_fixed_size, b.private_segment_fixed_size);
    field("kernarg_size", a.kernarg_size, b.kernarg_size);
    // B preloads kernargs where A loads them: the launch (kernarg segment, user SGPRs before the
    // preloaded ones) is the same, firmware fills the new SGPRs or B's compatibility prologue does
    // (AMDGPUUsage, "Preloaded Kernel Arguments"; gfx942/gfx950 only). Whether B's code is right
    // under both firmware kinds is for verification, which runs both entries.
    const bool preload_added = preload_arch_ && a.kernarg_preload_length() == 0 && b.kernarg_preload_length() > 0 &&
                               b.kernarg_preload_offset() == 0 &&
                               b.user_sgpr_count() == a.user_sgpr_count() + b.kernarg_preload_length();
    if (preload_added)
      chg(k, "kernarg_preload.length", "0", str(b.kernarg_preload_length()),
          fmt::format("kernel arguments preloaded into SGPRs; user_sgpr_count {} -> {}", a.user_sgpr_count(), b.user_sgpr_count()));
    // B asks for the dispatch pointer where A does not: every dispatch has its AQL packet, and the
    // hardware puts its address in the two user SGPRs after the private segment buffer, moving the
    // later ones up by 2 (AMDGPUUsage, "Initial Kernel Execution State"). Whether B's code moves them
    // back is for verification, as for preloading. With preloading added too, both are a break.
    const bool dispatch_added = !a.get("kernel_code_properties.enable_sgpr_dispatch_ptr") && b.get("kernel_code_properties.enable_sgpr_dispatch_ptr") &&
                                !preload_added && b.user_sgpr_count() == a.user_sgpr_count() + 2;
    if (dispatch_added)
      chg(k, "kernel_code_properties.enable_sgpr_dispatch_ptr", "0", "1",
          fmt::format("the dispatch pointer in user SGPRs; user_sgpr_count {} -> {}", a.user_sgpr_count(), b.user_sgpr_count()));
    for (const auto& f : codeobj::kd_bit_fields()) {
      std::string name = f.name;
      uint64_t va = a.get(f), vb = b.get(f);
      if (preload_added && (name == "kernarg_preload.length" || name == "compute_pgm_rsrc2.user_sgpr_count")) continue;
      if (dispatch_added && (name == "kernel_code_properties.enable_sgpr_dispatch_ptr" || name == "compute_pgm_rsrc2.user_sgpr_count")) continue;
      std::string extra;
      if (name == "compute_pgm_rsrc1.granulated_workitem_vgpr_count")
        extra = fmt::format("VGPRs allocated {} -> {}", (va + 1) * 8, (vb + 1) * 8);
      else if (name == "compute_pgm_rsrc1.granulated_wavefront_sgpr_count")
        extra = fmt::format("SGPRs allocated {} -> {}", (va + 1) * 8, (vb + 1) * 8);
      else if (name == "compute_pgm_rsrc3.accum_offset")
        extra = fmt::format("accum_offset {} -> {}", (va + 1) * 4, (vb + 1) * 4);
      field(name, va, vb, extra);
    }
    // Reserved bytes: nonzero ones are malformed, and may mean something to a newer runtime.
    if (a.reserved0 != b.reserved0 || a.reserved1 != b.reserved1 || a.reserved3 != b.reserved3)
      brk(k, "reserved bytes", "", "", "kernel descriptor reserved bytes differ");
  }

  void metadata(const std::string& k, const KernelMetadata& a, const KernelMetadata& b) {
    auto must = [&](const std::string& field, const std::string& va, const std::string& vb, const std::string& why) {
      if (va != vb) brk(k, field, va, vb, why);
    };
    auto may = [&](const std::string& field, const std::string& va, const std::string& vb, const std::string& why) {
      if (va != vb) chg(k, field, va, vb, why);
    };
    must(".kernarg_segment_size", str(a.kernarg_segment_size), str(b.kernarg_segment_size), "kernarg segment size");
    must(".kernarg_segment_align", str(a.kernarg_segment_align), str(b.kernarg_segment_align),
         "kernarg segment alignment");
    must(".wavefront_size", str(a.wavefront_size), str(b.wavefront_size), "wave size");
    must(".uses_dynamic_stack", str(a.uses_dynamic_stack), str(b.uses_dynamic_stack), "dynamic stack");
    if (a.args.size() != b.args.size())
      brk(k, ".args", str(a.args.size()) + " arguments", str(b.args.size()) + " arguments", "argument count differs");
    for (size_t i = 0; i < std::min(a.args.size(), b.args.size()); ++i) {
      const auto &x = a.args[i], &y = b.args[i];
      std::string p = ".args[" + std::to_string(i) + "]";
      must(p + ".offset", str(x.offset), str(y.offset), "argument offset in the kernarg segment");
      must(p + ".size", str(x.size), str(y.size), "argument size");
      must(p + ".value_kind", x.value_kind, y.value_kind, "what the runtime/host puts in the argument");
      must(p + ".address_space", x.address_space.empty() ? "-" : x.address_space,
           y.address_space.empty() ? "-" : y.address_space, "pointer address space");
    }
    // Launch limits: B may accept more launches than A, never fewer.
    if (b.max_flat_workgroup_size < a.max_flat_workgroup_size)
      brk(k, ".max_flat_workgroup_size", str(a.max_flat_workgroup_size), str(b.max_flat_workgroup_size),
          "B rejects workgroup sizes that A accepts");
    else
      may(".max_flat_workgroup_size", str(a.max_flat_workgroup_size), str(b.max_flat_workgroup_size),
          "largest workgroup size accepted");
    auto wg = [](const std::optional<std::array<uint64_t, 3>>& w) {
      return w ? fmt::format("{}x{}x{}", (*w)[0], (*w)[1], (*w)[2]) : std::string("-");
    };
    if (b.reqd_workgroup_size && b.reqd_workgroup_size != a.reqd_workgroup_size)
      brk(k, ".reqd_workgroup_size", wg(a.reqd_workgroup_size), wg(b.reqd_workgroup_size),
          "B requires a workgroup size A does not");
    else
      may(".reqd_workgroup_size", wg(a.reqd_workgroup_size), wg(b.reqd_workgroup_size), "required workgroup size");
    if (b.uniform_work_group_size && !a.uniform_work_group_size)
      brk(k, ".uniform_work_group_size", "0", "1", "B requires uniform workgroups, A does not");
    else
      may(".uniform_work_group_size", str(a.uniform_work_group_size), str(b.uniform_work_group_size),
          "uniform workgroups");
    may(".workgroup_size_hint", wg(a.workgroup_size_hint), wg(b.workgroup_size_hint), "hint only");
    may(".group_segment_fixed_size", str(a.group_segment_fixed_size), str(b.group_segment_fixed_size), "static LDS");
    may(".private_segment_fixed_size", str(a.private_segment_fixed_size), str(b.private_segment_fixed_size),
        "scratch per lane");
    may(".vgpr_count", str(a.vgpr_count), str(b.vgpr_count), "VGPRs used");
    may(".sgpr_count", str(a.sgpr_count), str(b.sgpr_count), "SGPRs used");
    may(".agpr_count", opt_str(a.agpr_count), opt_str(b.agpr_count), "AGPRs used");
    may(".vgpr_spill_count", opt_str(a.vgpr_spill_count), opt_str(b.vgpr_spill_count), "VGPR spills");
    may(".sgpr_spill_count", opt_str(a.sgpr_spill_count), opt_str(b.sgpr_spill_count), "SGPR spills");
  }
};

nlohmann::json finding_json(const AbiFinding& f) {
  nlohmann::json j = {{"field", f.field}, {"a", f.a}, {"b", f.b}, {"message", f.message}};
  if (!f.kernel.empty()) j["kernel"] = sanitize_utf8(f.kernel);
  return j;
}

std::string finding_text(const char* tag, const AbiFinding& f) {
  std::string s = std::string(tag) + ": ";
  if (!f.kernel.empty()) s += "kernel " + sanitize_utf8(f.kernel) + ": ";
  s += f.field;
  if (!f.a.empty() || !f.b.empty()) s += ": " + f.a + " -> " + f.b;
  if (!f.message.empty()) s += " (" + f.message + ")";
  return s;
}

}  // namespace

const std::vector<KdFieldRule>& kd_field_rules() { return kKdClassification; }

AbiDiff abi_diff(const CodeObject& a, const CodeObject& b) {
  Differ d;
  d.files(a, b);
  return std::move(d.d);
}

nlohmann::json AbiDiff::to_json(const std::string& a_name, const std::string& b_name) const {
  nlohmann::json j = {{"schema", "asmevo.abi-diff/1"}, {"a", sanitize_utf8(a_name)}, {"b", sanitize_utf8(b_name)},
                      {"compatible", compatible()}, {"breaks", nlohmann::json::array()},
                      {"changes", nlohmann::json::array()}};
  for (const auto& f : breaks) j["breaks"].push_back(finding_json(f));
  for (const auto& f : changes) j["changes"].push_back(finding_json(f));
  return j;
}

std::string AbiDiff::to_text(const std::string& a_name, const std::string& b_name) const {
  std::string s = fmt::format("abi-diff {} -> {}: {} ({} break{}, {} change{})\n", sanitize_utf8(a_name),
                              sanitize_utf8(b_name), compatible() ? "compatible" : "ABI BREAK", breaks.size(),
                              breaks.size() == 1 ? "" : "s", changes.size(), changes.size() == 1 ? "" : "s");
  for (const auto& f : breaks) s += "  " + finding_text("break", f) + "\n";
  for (const auto& f : changes) s += "  " + finding_text("change", f) + "\n";
  return s;
}

}  // namespace asmevo::rebuild
