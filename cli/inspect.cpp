#include "cli/inspect.h"

#include <fmt/format.h>

#include <iostream>
#include <map>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {
namespace {

using nlohmann::json;
using namespace asmevo::codeobj;

constexpr const char* kSchema = "asmevo.inspect/1";

std::string hex(uint64_t v) { return fmt::format("0x{:x}", v); }

const char* container_name(ContainerKind k) {
  switch (k) {
    case ContainerKind::CodeObject: return "code_object";
    case ContainerKind::OffloadBundle: return "offload_bundle";
    case ContainerKind::HostElf: return "host_elf";
  }
  return "?";
}

json arg_json(const KernelArg& a) {
  json j = {{"offset", a.offset}, {"size", a.size}, {"value_kind", a.value_kind}, {"hidden", a.is_hidden()}};
  if (!a.name.empty()) j["name"] = a.name;
  if (!a.type_name.empty()) j["type_name"] = a.type_name;
  if (!a.address_space.empty()) j["address_space"] = a.address_space;
  if (!a.access.empty()) j["access"] = a.access;
  if (!a.actual_access.empty()) j["actual_access"] = a.actual_access;
  if (a.pointee_align) j["pointee_align"] = *a.pointee_align;
  if (a.is_const) j["is_const"] = true;
  if (a.is_restrict) j["is_restrict"] = true;
  if (a.is_volatile) j["is_volatile"] = true;
  return j;
}

json kd_json(const KernelDescriptor& kd) {
  auto raw = kd.encode();
  std::string rawhex;
  for (auto b : raw) rawhex += fmt::format("{:02x}", b);
  json fields = json::object();
  for (const auto& f : kd_bit_fields()) fields[f.name] = kd.get(f);
  return {{"raw", rawhex},
          {"group_segment_fixed_size", kd.group_segment_fixed_size},
          {"private_segment_fixed_size", kd.private_segment_fixed_size},
          {"kernarg_size", kd.kernarg_size},
          {"kernel_code_entry_byte_offset", kd.kernel_code_entry_byte_offset},
          {"compute_pgm_rsrc1", kd.compute_pgm_rsrc1},
          {"compute_pgm_rsrc2", kd.compute_pgm_rsrc2},
          {"compute_pgm_rsrc3", kd.compute_pgm_rsrc3},
          {"kernel_code_properties", kd.kernel_code_properties},
          {"kernarg_preload", kd.kernarg_preload},
          {"fields", fields}};
}

json resources_json(const Resources& r) {
  return {{"vgprs_allocated", r.vgprs_allocated}, {"arch_vgprs", r.arch_vgprs}, {"agprs", r.agprs},
          {"sgprs_allocated", r.sgprs_allocated}, {"lds_bytes", r.lds_bytes}, {"scratch_bytes", r.scratch_bytes},
          {"kernarg_bytes", r.kernarg_bytes}, {"max_workgroup_size", r.max_workgroup_size},
          {"metadata_vgpr_count", r.md_vgpr_count}, {"metadata_agpr_count", r.md_agpr_count},
          {"metadata_sgpr_count", r.md_sgpr_count}, {"inconsistencies", r.inconsistencies},
          {"occupancy",
           {{"waves_per_simd", r.occupancy.waves_per_simd}, {"limiter", r.occupancy.limiter},
            {"by_vgprs", r.occupancy.by_vgprs}, {"by_sgprs", r.occupancy.by_sgprs}, {"by_lds", r.occupancy.by_lds},
            {"by_workgroup", r.occupancy.by_workgroup}, {"workgroups_per_cu", r.occupancy.workgroups_per_cu}}}};
}

// Instruction count and class histogram of a code range, decoded in-process.
json code_summary(const program::Decoder& dec, std::span<const uint8_t> bytes, uint64_t address) {
  auto insts = dec.decode_range(bytes, address);
  std::map<std::string, uint64_t> classes;
  std::map<std::string, uint64_t> mnemonics;
  for (const auto& i : insts) {
    classes[program::class_name(i.cls)]++;
    mnemonics[i.mnemonic]++;
  }
  return {{"count", insts.size()}, {"bytes", bytes.size()}, {"classes", classes}, {"mnemonics", mnemonics}};
}

json code_object_json(const EmbeddedCodeObject& emb, const InspectOptions& opts) {
  CodeObject co = CodeObject::parse(emb.bytes, emb.origin);
  json j;
  j["origin"] = emb.origin;
  if (!emb.bundle_id.empty()) j["bundle_id"] = emb.bundle_id;
  j["file_offset"] = emb.offset;
  j["size"] = emb.bytes.size();
  j["target"] = co.target().full();
  j["processor"] = co.target().processor;
  j["modeled"] = co.target().arch != Arch::Other;
  j["xnack"] = to_string(co.target().xnack);
  j["sramecc"] = to_string(co.target().sramecc);
  j["e_flags"] = co.elf().flags();
  j["code_object_version"] = co.version();
  if (co.metadata()) {
    auto v = co.metadata()->version();
    j["metadata_version"] = {v[0], v[1]};
    j["metadata_target"] = co.metadata()->target();
  }
  program::Decoder dec(co.target());
  json kernels = json::array();
  for (const auto& k : co.kernels()) {
    if (opts.kernel && *opts.kernel != k.name) continue;
    json kj;
    kj["name"] = k.name;
    kj["kd_symbol"] = k.name + ".kd";
    kj["kd_address"] = k.kd_address;
    kj["code_address"] = k.code_address;
    kj["code_size"] = k.code_size;
    kj["kd"] = kd_json(k.kd);
    kj["kd_reserved_violations"] = k.kd.reserved_violations(co.target().arch);
    if (const KernelMetadata* md = co.kernel_metadata(k)) {
      json args = json::array();
      for (const auto& a : md->args) args.push_back(arg_json(a));
      kj["args"] = args;
      kj["explicit_args"] = md->explicit_arg_count();
      kj["metadata"] = {{"kernarg_segment_size", md->kernarg_segment_size},
                        {"kernarg_segment_align", md->kernarg_segment_align},
                        {"group_segment_fixed_size", md->group_segment_fixed_size},
                        {"private_segment_fixed_size", md->private_segment_fixed_size},
                        {"wavefront_size", md->wavefront_size},
                        {"sgpr_count", md->sgpr_count},
                        {"vgpr_count", md->vgpr_count},
                        {"max_flat_workgroup_size", md->max_flat_workgroup_size},
                        {"uniform_work_group_size", md->uniform_work_group_size},
                        {"uses_dynamic_stack", md->uses_dynamic_stack}};
      if (md->agpr_count) kj["metadata"]["agpr_count"] = *md->agpr_count;
      if (md->sgpr_spill_count) kj["metadata"]["sgpr_spill_count"] = *md->sgpr_spill_count;
      if (md->vgpr_spill_count) kj["metadata"]["vgpr_spill_count"] = *md->vgpr_spill_count;
      if (md->reqd_workgroup_size) kj["metadata"]["reqd_workgroup_size"] = *md->reqd_workgroup_size;
    }
    if (k.resources) kj["resources"] = resources_json(*k.resources);
    kj["instructions"] = code_summary(dec, co.code_bytes(k), k.code_address);
    kernels.push_back(kj);
  }
  if (opts.kernel && kernels.empty()) {
    std::string names;
    for (const auto& k : co.kernels()) names += (names.empty() ? "" : ", ") + k.name;
    throw Error("no kernel named '" + *opts.kernel + "'", emb.origin, "kernels here: " + names);
  }
  j["kernels"] = kernels;
  json funcs = json::array();
  for (const auto& f : co.device_functions()) {
    json fj = {{"name", f.name}, {"address", f.address}, {"size", f.size}};
    if (auto b = co.elf().bytes_at_address(f.address, f.size); b && f.size)
      fj["instructions"] = code_summary(dec, *b, f.address);
    funcs.push_back(fj);
  }
  j["device_functions"] = funcs;
  json sections = json::array();
  for (const auto& s : co.elf().sections())
    if (s.index) sections.push_back({{"name", s.name}, {"type", s.type}, {"flags", s.flags}, {"address", s.address}, {"size", s.size}});
  j["sections"] = sections;
  if (co.metadata()) j["metadata"] = co.metadata()->to_json();
  return j;
}

}  // namespace

json inspect_report(const InspectOptions& opts) {
  auto bytes = read_file_bytes(opts.file);
  json report;
  report["schema"] = kSchema;
  report["file"] = opts.file;
  report["container"] = container_name(detect_container(bytes, opts.file));
  json objs = json::array();
  bool kernel_found = false;
  for (const auto& emb : extract_code_objects(bytes, opts.file)) {
    if (opts.kernel) {
      // With --kernel, code objects lacking that kernel are left out rather than failing.
      CodeObject co = CodeObject::parse(emb.bytes, emb.origin);
      if (!co.kernel(*opts.kernel)) continue;
      kernel_found = true;
    }
    objs.push_back(code_object_json(emb, opts));
  }
  if (opts.kernel && !kernel_found)
    throw Error("no kernel named '" + *opts.kernel + "' in any code object", opts.file,
                "run `asmevo inspect " + opts.file + "` to list kernels");
  report["code_objects"] = objs;
  return report;
}

std::string render_inspect_text(const json& r, bool kd_fields) {
  std::string o;
  o += fmt::format("{}: {} with {} code object(s)\n", r["file"].get<std::string>(), r["container"].get<std::string>(),
                   r["code_objects"].size());
  for (const auto& co : r["code_objects"]) {
    o += fmt::format("\ncode object {}\n", co["origin"].get<std::string>());
    o += fmt::format("  target {}  code object v{}", co["target"].get<std::string>(), co["code_object_version"].get<unsigned>());
    if (co.contains("metadata_version"))
      o += fmt::format("  metadata amdhsa.version {}.{}", co["metadata_version"][0].get<unsigned>(), co["metadata_version"][1].get<unsigned>());
    o += fmt::format("  {} bytes\n", co["size"].get<uint64_t>());
    if (!co["modeled"].get<bool>()) o += "  note: this processor is decoded but not modeled (no resources/occupancy)\n";
    for (const auto& k : co["kernels"]) {
      o += fmt::format("\n  kernel {}\n", k["name"].get<std::string>());
      o += fmt::format("    code {}..{} ({} bytes, {} instructions), descriptor at {}\n", hex(k["code_address"]),
                       hex(k["code_address"].get<uint64_t>() + k["code_size"].get<uint64_t>()), k["code_size"].get<uint64_t>(),
                       k["instructions"]["count"].get<uint64_t>(), hex(k["kd_address"]));
      if (k.contains("args")) {
        o += fmt::format("    args: {} explicit, kernarg segment {} bytes (align {})\n", k["explicit_args"].get<size_t>(),
                         k["metadata"]["kernarg_segment_size"].get<uint64_t>(), k["metadata"]["kernarg_segment_align"].get<uint64_t>());
        for (const auto& a : k["args"]) {
          o += fmt::format("      +{:<4} {:>2}B  {:<28} {:<9} {}{}\n", a["offset"].get<uint64_t>(), a["size"].get<uint64_t>(),
                           a["value_kind"].get<std::string>(), a.value("address_space", ""), a.value("name", ""),
                           a.contains("type_name") ? " : " + a["type_name"].get<std::string>() : "");
        }
      }
      if (k.contains("resources")) {
        const auto& rs = k["resources"];
        o += fmt::format("    resources: VGPRs {} allocated (arch {}, AGPR {}), SGPRs {}, LDS {} B, scratch {} B/lane, max workgroup {}\n",
                         rs["vgprs_allocated"].get<unsigned>(), rs["arch_vgprs"].get<unsigned>(), rs["agprs"].get<unsigned>(),
                         rs["sgprs_allocated"].get<unsigned>(), rs["lds_bytes"].get<unsigned>(), rs["scratch_bytes"].get<unsigned>(),
                         rs["max_workgroup_size"].get<unsigned>());
        o += fmt::format("    metadata counts: vgpr {}, agpr {}, sgpr {}\n", rs["metadata_vgpr_count"].get<unsigned>(),
                         rs["metadata_agpr_count"].get<unsigned>(), rs["metadata_sgpr_count"].get<unsigned>());
        const auto& oc = rs["occupancy"];
        o += fmt::format("    occupancy: {} waves/SIMD (limited by {}; vgprs {}, sgprs {}, lds {}, workgroup {})\n",
                         oc["waves_per_simd"].get<unsigned>(), oc["limiter"].get<std::string>(), oc["by_vgprs"].get<unsigned>(),
                         oc["by_sgprs"].get<unsigned>(), oc["by_lds"].get<unsigned>(), oc["by_workgroup"].get<unsigned>());
        for (const auto& inc : rs["inconsistencies"]) o += "    warning: " + inc.get<std::string>() + "\n";
      }
      for (const auto& v : k["kd_reserved_violations"]) o += "    warning: kernel descriptor " + v.get<std::string>() + " not zero\n";
      const auto& kd = k["kd"];
      o += fmt::format("    kernel descriptor: rsrc1 {:#010x} rsrc2 {:#010x} rsrc3 {:#010x} properties {:#06x} preload {:#06x}\n",
                       kd["compute_pgm_rsrc1"].get<uint32_t>(), kd["compute_pgm_rsrc2"].get<uint32_t>(),
                       kd["compute_pgm_rsrc3"].get<uint32_t>(), kd["kernel_code_properties"].get<uint32_t>(),
                       kd["kernarg_preload"].get<uint32_t>());
      if (kd_fields)
        for (const auto& [name, val] : kd["fields"].items())
          if (val.get<uint32_t>() != 0) o += fmt::format("      {} = {}\n", name, val.get<uint32_t>());
      o += "    instruction classes:";
      for (const auto& [cls, n] : k["instructions"]["classes"].items()) o += fmt::format(" {} {}", cls, n.get<uint64_t>());
      o += "\n";
    }
    for (const auto& f : co["device_functions"]) {
      o += fmt::format("\n  device function {} at {} ({} bytes", f["name"].get<std::string>(), hex(f["address"]), f["size"].get<uint64_t>());
      if (f.contains("instructions")) o += fmt::format(", {} instructions", f["instructions"]["count"].get<uint64_t>());
      o += ")\n";
    }
  }
  return o;
}

int run_inspect(const InspectOptions& opts) {
  json r = inspect_report(opts);
  if (opts.json)
    std::cout << r.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  else
    std::cout << render_inspect_text(r, opts.kd_fields);
  return kExitOk;
}

}  // namespace asmevo::cli
