// `asmevo inspect` must agree with LLVM's own tools on every corpus file (HIP for gfx90a, gfx942
// and gfx950 in code-object v4/v5/v6, target-ID variants, and the Triton set):
//  - the metadata document equals what `llvm-readelf-22 --notes` prints,
//  - every kernel-descriptor directive `llvm-objdump-22 -D --disassemble-symbols=K.kd` prints
//    matches the field AsmEvo decoded,
//  - each kernel's instruction count and mnemonic histogram match `llvm-objdump-22 -d`.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <regex>
#include <sstream>

#include "cli/inspect.h"
#include "tests/support/corpus_files.h"

using nlohmann::json;
using asmevo::testing::CorpusFile;
using asmevo::testing::run_command;

namespace {

std::vector<CorpusFile> code_object_files() {
  return asmevo::testing::code_object_corpus_files(ASMEVO_SOURCE_DIR, ASMEVO_BINARY_DIR);
}

// Compares a YAML node (from llvm-readelf) with AsmEvo's JSON rendering of the msgpack note.
void compare_yaml_json(const YAML::Node& y, const json& j, const std::string& path, std::vector<std::string>& diffs) {
  if (y.IsMap()) {
    if (!j.is_object()) return diffs.push_back(path + ": map vs " + j.type_name());
    if (y.size() != j.size()) diffs.push_back(path + ": " + std::to_string(y.size()) + " keys vs " + std::to_string(j.size()));
    for (const auto& kv : y) {
      std::string key = kv.first.as<std::string>();
      if (!j.contains(key)) {
        diffs.push_back(path + "/" + key + ": missing in asmevo");
        continue;
      }
      compare_yaml_json(kv.second, j[key], path + "/" + key, diffs);
    }
  } else if (y.IsSequence()) {
    if (!j.is_array() || j.size() != y.size()) return diffs.push_back(path + ": sequence length differs");
    for (size_t i = 0; i < y.size(); ++i) compare_yaml_json(y[i], j[i], path + "[" + std::to_string(i) + "]", diffs);
  } else if (y.IsScalar()) {
    std::string ys = y.Scalar();
    std::string js;
    if (j.is_string()) js = j.get<std::string>();
    else if (j.is_boolean()) js = j.get<bool>() ? "true" : "false";
    else if (j.is_number_unsigned()) js = std::to_string(j.get<uint64_t>());
    else if (j.is_number_integer()) js = std::to_string(j.get<int64_t>());
    else if (j.is_number_float()) {
      if (std::fabs(std::stod(ys) - j.get<double>()) > 1e-9) diffs.push_back(path + ": " + ys + " vs " + j.dump());
      return;
    } else js = j.dump();
    // YAML prints unsigned values > INT64_MAX and hex identically; compare numerically when both parse.
    if (ys != js) diffs.push_back(path + ": llvm '" + ys + "' vs asmevo '" + js + "'");
  } else {
    diffs.push_back(path + ": unexpected YAML node");
  }
}

// `.amdhsa_*` directive → the value AsmEvo's decoded descriptor implies for it.
uint64_t kd_directive_value(const std::string& directive, const json& kd, const std::string& processor, bool* known) {
  const json& f = kd["fields"];
  *known = true;
  static const std::map<std::string, std::string> kFieldOf = {
      {"tg_split", "compute_pgm_rsrc3.tg_split"},
      {"float_round_mode_32", "compute_pgm_rsrc1.float_round_mode_32"},
      {"float_round_mode_16_64", "compute_pgm_rsrc1.float_round_mode_16_64"},
      {"float_denorm_mode_32", "compute_pgm_rsrc1.float_denorm_mode_32"},
      {"float_denorm_mode_16_64", "compute_pgm_rsrc1.float_denorm_mode_16_64"},
      {"dx10_clamp", "compute_pgm_rsrc1.enable_dx10_clamp"},
      {"ieee_mode", "compute_pgm_rsrc1.enable_ieee_mode"},
      {"fp16_overflow", "compute_pgm_rsrc1.fp16_ovfl"},
      {"enable_private_segment", "compute_pgm_rsrc2.enable_private_segment"},
      {"system_sgpr_private_segment_wavefront_offset", "compute_pgm_rsrc2.enable_private_segment"},
      {"system_sgpr_workgroup_id_x", "compute_pgm_rsrc2.enable_sgpr_workgroup_id_x"},
      {"system_sgpr_workgroup_id_y", "compute_pgm_rsrc2.enable_sgpr_workgroup_id_y"},
      {"system_sgpr_workgroup_id_z", "compute_pgm_rsrc2.enable_sgpr_workgroup_id_z"},
      {"system_sgpr_workgroup_info", "compute_pgm_rsrc2.enable_sgpr_workgroup_info"},
      {"system_vgpr_workitem_id", "compute_pgm_rsrc2.enable_vgpr_workitem_id"},
      {"exception_fp_ieee_invalid_op", "compute_pgm_rsrc2.enable_exception_ieee_754_fp_invalid_operation"},
      {"exception_fp_denorm_src", "compute_pgm_rsrc2.enable_exception_fp_denormal_source"},
      {"exception_fp_ieee_div_zero", "compute_pgm_rsrc2.enable_exception_ieee_754_fp_division_by_zero"},
      {"exception_fp_ieee_overflow", "compute_pgm_rsrc2.enable_exception_ieee_754_fp_overflow"},
      {"exception_fp_ieee_underflow", "compute_pgm_rsrc2.enable_exception_ieee_754_fp_underflow"},
      {"exception_fp_ieee_inexact", "compute_pgm_rsrc2.enable_exception_ieee_754_fp_inexact"},
      {"exception_int_div_zero", "compute_pgm_rsrc2.enable_exception_int_divide_by_zero"},
      {"user_sgpr_count", "compute_pgm_rsrc2.user_sgpr_count"},
      {"user_sgpr_private_segment_buffer", "kernel_code_properties.enable_sgpr_private_segment_buffer"},
      {"user_sgpr_dispatch_ptr", "kernel_code_properties.enable_sgpr_dispatch_ptr"},
      {"user_sgpr_queue_ptr", "kernel_code_properties.enable_sgpr_queue_ptr"},
      {"user_sgpr_kernarg_segment_ptr", "kernel_code_properties.enable_sgpr_kernarg_segment_ptr"},
      {"user_sgpr_dispatch_id", "kernel_code_properties.enable_sgpr_dispatch_id"},
      {"user_sgpr_flat_scratch_init", "kernel_code_properties.enable_sgpr_flat_scratch_init"},
      {"user_sgpr_private_segment_size", "kernel_code_properties.enable_sgpr_private_segment_size"},
      {"uses_dynamic_stack", "kernel_code_properties.uses_dynamic_stack"},
      {"user_sgpr_kernarg_preload_length", "kernarg_preload.length"},
      {"user_sgpr_kernarg_preload_offset", "kernarg_preload.offset"},
  };
  if (directive == "group_segment_fixed_size") return kd["group_segment_fixed_size"];
  if (directive == "private_segment_fixed_size") return kd["private_segment_fixed_size"];
  if (directive == "kernarg_size") return kd["kernarg_size"];
  // objdump prints the smallest "next free" register that re-encodes to the same field.
  if (directive == "next_free_vgpr") return (f["compute_pgm_rsrc1.granulated_workitem_vgpr_count"].get<uint64_t>() + 1) * 8;
  if (directive == "next_free_sgpr") return (f["compute_pgm_rsrc1.granulated_wavefront_sgpr_count"].get<uint64_t>() + 1) * 8;
  if (directive == "accum_offset") return (f["compute_pgm_rsrc3.accum_offset"].get<uint64_t>() + 1) * 4;
  auto it = kFieldOf.find(directive);
  if (it != kFieldOf.end()) return f[it->second];
  *known = false;
  return 0;
}

class InspectAgreesWithLlvm : public ::testing::TestWithParam<CorpusFile> {};

TEST_P(InspectAgreesWithLlvm, MetadataDescriptorsAndInstructions) {
  const CorpusFile& file = GetParam();
  json report = asmevo::cli::inspect_report({file.path, std::nullopt, true});
  ASSERT_EQ(report["container"], "code_object");
  ASSERT_EQ(report["code_objects"].size(), 1u);
  const json& co = report["code_objects"][0];
  EXPECT_EQ(co["code_object_version"].get<unsigned>(), file.code_object_version);
  std::string processor = file.target.substr(0, file.target.find(':'));
  EXPECT_EQ(co["processor"], processor);
  if (file.target.find(':') != std::string::npos)
    EXPECT_EQ(co["target"].get<std::string>(), "amdgcn-amd-amdhsa--" + file.target);

  // Metadata vs llvm-readelf --notes.
  std::string notes = run_command(std::string(LLVM_READELF) + " --notes '" + file.path + "'");
  auto begin = notes.find("---\n");
  auto end = notes.find("\n...", begin);
  ASSERT_NE(begin, std::string::npos) << notes;
  YAML::Node yaml = YAML::Load(notes.substr(begin, end - begin));
  std::vector<std::string> diffs;
  compare_yaml_json(yaml, co["metadata"], "", diffs);
  EXPECT_TRUE(diffs.empty()) << diffs.size() << " metadata differences, first: " << diffs[0];

  // Kernel descriptors vs llvm-objdump's .amdhsa directives.
  std::string kd_symbols;
  for (const auto& k : co["kernels"]) kd_symbols += (kd_symbols.empty() ? "" : ",") + k["kd_symbol"].get<std::string>();
  std::string kd_text = run_command(std::string(LLVM_OBJDUMP) + " -D --disassemble-symbols=" + kd_symbols + " '" + file.path + "'");
  std::regex kernel_re(R"(\.amdhsa_kernel (\S+))"), dir_re(R"(^\s*\.amdhsa_(\w+) (\d+)\s*$)");
  std::istringstream kd_lines(kd_text);
  std::string line;
  const json* current = nullptr;
  size_t directives_checked = 0, kernels_seen = 0;
  while (std::getline(kd_lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, kernel_re)) {
      current = nullptr;
      for (const auto& k : co["kernels"])
        if (k["name"] == m[1].str()) current = &k;
      ASSERT_TRUE(current) << "objdump shows kernel " << m[1] << " that asmevo did not find";
      ++kernels_seen;
    } else if (current && std::regex_match(line, m, dir_re)) {
      std::string d = m[1];
      if (d == "reserve_vcc" || d == "reserve_xnack_mask" || d == "reserve_flat_scratch") continue;  // assembler hints, not KD bits
      bool known = false;
      uint64_t ours = kd_directive_value(d, (*current)["kd"], processor, &known);
      EXPECT_TRUE(known) << "objdump prints .amdhsa_" << d << " which asmevo does not map";
      EXPECT_EQ(ours, std::stoull(m[2])) << (*current)["name"] << " .amdhsa_" << d;
      ++directives_checked;
    }
  }
  EXPECT_EQ(kernels_seen, co["kernels"].size());
  EXPECT_GT(directives_checked, 20u * kernels_seen);

  // Instruction counts and mnemonics vs llvm-objdump -d.
  std::string dis = run_command(std::string(LLVM_OBJDUMP) + " -d --no-show-raw-insn '" + file.path + "'");
  std::regex inst_re(R"(^\s+([a-z_0-9]+)\b.*//\s*([0-9A-Fa-f]+):)");
  std::vector<std::pair<uint64_t, std::string>> insts;
  std::istringstream dl(dis);
  while (std::getline(dl, line)) {
    std::smatch m;
    if (std::regex_search(line, m, inst_re)) insts.emplace_back(std::stoull(m[2], nullptr, 16), m[1]);
  }
  for (const auto& k : co["kernels"]) {
    uint64_t lo = k["code_address"], hi = lo + k["code_size"].get<uint64_t>();
    std::map<std::string, uint64_t> llvm_mnemonics;
    uint64_t count = 0;
    for (const auto& [addr, mn] : insts)
      if (addr >= lo && addr < hi) ++count, ++llvm_mnemonics[mn];
    EXPECT_EQ(k["instructions"]["count"].get<uint64_t>(), count) << k["name"];
    auto ours = k["instructions"]["mnemonics"].get<std::map<std::string, uint64_t>>();
    EXPECT_EQ(ours, llvm_mnemonics) << k["name"];
  }
}

std::string label(const ::testing::TestParamInfo<CorpusFile>& info) { return asmevo::testing::test_name(info.param); }

INSTANTIATE_TEST_SUITE_P(Corpus, InspectAgreesWithLlvm, ::testing::ValuesIn(code_object_files()), label);

}  // namespace
