// Launch spec drafts (verify/spec_draft.h, `asmevo spec`): what the drafts say for corpus HIP and
// Triton kernels (whose metadata records no argument names, types or access), for an OpenCL kernel
// compiled here (whose metadata records all of them), for metadata built in memory, and the CLI.
#include <gtest/gtest.h>

#include <yaml-cpp/yaml.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "emu/launch_spec.h"
#include "emu/npy.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "verify/spec_draft.h"

namespace asmevo::verify {
namespace {

namespace fs = std::filesystem;

std::string hip_corpus(const std::string& rel) { return std::string(ASMEVO_BINARY_DIR) + "/corpus/hip/" + rel; }
std::string triton_corpus(const std::string& rel) { return std::string(ASMEVO_SOURCE_DIR) + "/corpus/triton/" + rel; }

SpecDraft draft_file(const std::string& path, const std::string& kernel = {}) {
  return draft_launch_spec_for_file(read_file_bytes(path), path, kernel);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// An OpenCL kernel: clang records names, type names, const/restrict and (for noalias pointers)
// the access the code actually makes, which HIP and Triton code objects do not.
const char* kOpenClSource = R"(
kernel void scale(global const float* restrict x, global float* restrict y, global uint* cnt, local float* tmp,
                  float s, uint n, ulong big, constant int* lut, global float4* v) {
  uint l = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * 64 + l;
  tmp[l] = x[i];
  __builtin_amdgcn_s_barrier();
  if (i < n) y[i] = tmp[l] * s + (float)big + lut[l] + v[i].x;
  __atomic_fetch_add(cnt, 1u, __ATOMIC_RELAXED);
}
kernel void twice(global float* p) { p[__builtin_amdgcn_workitem_id_x()] *= 2.0f; }
)";

std::string compile_opencl_kernels() {
  static const std::string path = [] {
    fs::path dir = testing::scratch_dir("verify", "opencl");
    std::ofstream(dir / "kernels.cl") << kOpenClSource;
    std::string out;
    std::string cmd = std::string(ASMEVO_CLANG) + " -x cl -cl-std=CL2.0 -cl-kernel-arg-info --target=amdgcn-amd-amdhsa " +
                      "-mcpu=gfx942 -nogpulib -O3 " + (dir / "kernels.cl").string() + " -o " + (dir / "kernels.co").string();
    EXPECT_EQ(testing::run_shell(cmd, &out), 0) << cmd << "\n" << out;
    return (dir / "kernels.co").string();
  }();
  return path;
}

// The draft's arguments by position, as yaml-cpp reads them.
YAML::Node args_of(const YAML::Node& spec) { return spec["args"]; }
std::string str(const YAML::Node& n) { return n.as<std::string>(); }

TEST(SpecDraftTest, HipVectorAddFromCorpus) {
  SpecDraft d = draft_file(hip_corpus("gfx942/vector_add.co"));  // one kernel: no --kernel needed
  EXPECT_EQ(d.kernel, "vector_add");
  YAML::Node y = YAML::Load(d.yaml);
  EXPECT_EQ(str(y["kernel"]), "vector_add");
  EXPECT_EQ(str(y["grid"][0]), kFill);
  // max_flat_workgroup_size is 1024 and there is no reqd_workgroup_size: min(256, 1024).
  EXPECT_EQ(y["block"][0].as<int>(), 256);
  // Code object v5 with implicit arguments but no hidden_dynamic_lds_size: known not to use it.
  EXPECT_EQ(y["dynamic_lds"].as<int>(), 0);
  EXPECT_EQ(y["inputs"].as<int>(), 3);
  EXPECT_TRUE(y["special"].as<bool>());
  // vector_add(const float* a, const float* b, float* out, int n). clang records neither names, type
  // names, const nor access for HIP kernels (without __restrict__ and -fhip-kernel-arg-name), so the
  // element types and directions stay open and the int is guessed from its size.
  YAML::Node args = args_of(y);
  ASSERT_EQ(args.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(str(args[i]["name"]), "arg" + std::to_string(i));
    EXPECT_EQ(str(args[i]["buffer"]), kFill);
    EXPECT_EQ(str(args[i]["count"]), kFill);
    EXPECT_FALSE(args[i]["output"]) << "the metadata says nothing about writes";
    EXPECT_TRUE(args[i]["init"]);
  }
  EXPECT_EQ(str(args[3]["name"]), "arg3");
  EXPECT_EQ(str(args[3]["value"]), kFill);
  EXPECT_EQ(str(args[3]["type"]), "i32");
  EXPECT_TRUE(contains(d.yaml, "type guessed from the size (4 bytes)")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "direction unknown from metadata: add output: true or inout: true")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "# hidden arguments (filled by AsmEvo)")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "#   offset 32, size 4: hidden_block_count_x")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "kernarg segment 288 bytes")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "code object v5")) << d.yaml;
}

TEST(SpecDraftTest, HipSoftmaxNeedsDynamicLds) {
  SpecDraft d = draft_file(hip_corpus("gfx942/softmax.co"), "softmax_rows_f32");
  YAML::Node y = YAML::Load(d.yaml);
  // softmax_rows_f32 declares `extern __shared__ float red[]`: LLVM lists hidden_dynamic_lds_size.
  EXPECT_EQ(str(y["dynamic_lds"]), kFill);
  EXPECT_TRUE(contains(d.yaml, "hidden_dynamic_lds_size")) << d.yaml;
  YAML::Node args = args_of(y);
  ASSERT_EQ(args.size(), 4u);  // (const float* x, float* y, int rows, int cols)
  EXPECT_EQ(str(args[0]["buffer"]), kFill);
  EXPECT_EQ(str(args[1]["buffer"]), kFill);
  EXPECT_EQ(str(args[2]["type"]), "i32");
  EXPECT_EQ(str(args[3]["type"]), "i32");
}

TEST(SpecDraftTest, CodeObjectV4CannotTellDynamicLds) {
  SpecDraft d = draft_file(hip_corpus("gfx942/v4/vector_add.co"));
  YAML::Node y = YAML::Load(d.yaml);
  EXPECT_EQ(str(y["dynamic_lds"]), kFill);
  EXPECT_TRUE(contains(d.yaml, "code object v4 metadata has no hidden_dynamic_lds_size")) << d.yaml;
}

TEST(SpecDraftTest, BundleWithOneKernelPerProcessorDraftsWithoutKernelOption) {
  SpecDraft d = draft_file(hip_corpus("bundle/vector_add.hipfb"));
  EXPECT_EQ(d.kernel, "vector_add");
  EXPECT_EQ(args_of(YAML::Load(d.yaml)).size(), 4u);
}

TEST(SpecDraftTest, TritonVectorAdd) {
  SpecDraft d = draft_file(triton_corpus("gfx942/vector_add_kernel.hsaco"));
  YAML::Node y = YAML::Load(d.yaml);
  EXPECT_EQ(str(y["kernel"]), "vector_add_kernel");
  EXPECT_EQ(y["block"][0].as<int>(), 256);  // Triton sets max_flat_workgroup_size to num_warps * 64
  // No implicit arguments at all, and Triton's LDS is dynamic: the draft cannot know.
  EXPECT_EQ(str(y["dynamic_lds"]), kFill);
  EXPECT_TRUE(contains(d.yaml, "Triton's `shared`")) << d.yaml;
  // vector_add_kernel(x, y, out, n) + Triton's global and profile scratch pointers; the metadata
  // has no names, no type names and no access qualifiers.
  YAML::Node args = args_of(y);
  ASSERT_EQ(args.size(), 6u);
  for (int i : {0, 1, 2, 4, 5}) EXPECT_EQ(str(args[i]["buffer"]), kFill) << i;
  EXPECT_EQ(str(args[3]["type"]), "i32");
  EXPECT_EQ(str(args[0]["name"]), "arg0");
  EXPECT_TRUE(contains(d.yaml, "probably one of the two scratch pointers Triton appends (global, profile): then {name: arg4, pointer: null}"))
      << d.yaml;
  EXPECT_TRUE(contains(d.yaml, "then {name: arg5, pointer: null}")) << d.yaml;
  EXPECT_FALSE(contains(d.yaml, "then {name: arg3")) << d.yaml;
  EXPECT_FALSE(contains(d.yaml, "# hidden arguments (filled by AsmEvo)")) << "Triton's vector add has none";
}

TEST(SpecDraftTest, OpenClKernelWithFullArgumentMetadata) {
  SpecDraft d = draft_file(compile_opencl_kernels(), "scale");
  YAML::Node y = YAML::Load(d.yaml);
  YAML::Node args = args_of(y);
  ASSERT_EQ(args.size(), 9u) << d.yaml;
  std::vector<std::string> names;
  for (const auto& a : args) names.push_back(str(a["name"]));
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y", "cnt", "tmp", "s", "n", "big", "lut", "v"}));
  // const float* restrict, only read: .actual_access read_only -> input.
  EXPECT_EQ(str(args[0]["buffer"]), "f32");
  EXPECT_FALSE(args[0]["output"]);
  EXPECT_EQ(args[0]["init"]["normal"][1].as<double>(), 1.0);
  // float* restrict, only written: .actual_access write_only -> output, compared, no init.
  EXPECT_EQ(str(args[1]["buffer"]), "f32");
  EXPECT_TRUE(args[1]["output"].as<bool>());
  EXPECT_EQ(str(args[1]["compare"]), "exact");
  EXPECT_FALSE(args[1]["init"]);
  // uint* without restrict: the type is known, the direction is not; integers get {ints: ...}.
  EXPECT_EQ(str(args[2]["buffer"]), "u32");
  EXPECT_FALSE(args[2]["output"]);
  EXPECT_EQ(args[2]["init"]["ints"][1].as<int>(), 100);
  // local float*: an LDS pointer the launch spec cannot express.
  EXPECT_EQ(str(args[3]["pointer"]), kFill);
  EXPECT_TRUE(contains(d.yaml, "an LDS pointer (OpenCL `local`)")) << d.yaml;
  EXPECT_EQ(str(args[4]["type"]), "f32");
  EXPECT_EQ(str(args[5]["type"]), "u32");
  EXPECT_EQ(str(args[6]["type"]), "u64");
  // constant int*: the constant address space is read-only.
  EXPECT_EQ(str(args[7]["buffer"]), "i32");
  EXPECT_FALSE(args[7]["output"]);
  EXPECT_EQ(args[7]["init"]["ints"][0].as<int>(), 0);
  // float4*: f32 elements, four per float4.
  EXPECT_EQ(str(args[8]["buffer"]), "f32");
  EXPECT_TRUE(contains(d.yaml, "count counts f32 elements, 4 per float4")) << d.yaml;
  EXPECT_EQ(str(y["dynamic_lds"]), kFill);
  EXPECT_TRUE(contains(d.yaml, "dynamic_shared_pointer argument")) << d.yaml;
  EXPECT_TRUE(contains(d.yaml, ".type_name 'float*'")) << d.yaml;
}

TEST(SpecDraftTest, SeveralKernelsNeedKernelOption) {
  std::string path = compile_opencl_kernels();
  try {
    draft_file(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_TRUE(contains(e.what_text(), "the file holds 2 kernels")) << e.format();
    EXPECT_TRUE(contains(e.fix(), "scale")) << e.format();
    EXPECT_TRUE(contains(e.fix(), "twice")) << e.format();
    EXPECT_EQ(e.where(), path);
  }
  EXPECT_EQ(draft_file(path, "twice").kernel, "twice");
}

TEST(SpecDraftTest, UnknownKernelListsTheKernels) {
  std::string path = hip_corpus("gfx942/vector_add.co");
  try {
    draft_file(path, "no_such_kernel");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.exit_code(), kExitBadInput);
    EXPECT_TRUE(contains(e.what_text(), "no kernel named 'no_such_kernel'")) << e.format();
    EXPECT_TRUE(contains(e.fix(), "vector_add")) << e.format();
  }
}

codeobj::KernelArg arg(std::string name, std::string kind, uint64_t offset, uint64_t size, std::string type_name = {}) {
  codeobj::KernelArg a;
  a.name = std::move(name);
  a.value_kind = std::move(kind);
  a.offset = offset;
  a.size = size;
  a.type_name = std::move(type_name);
  if (a.value_kind == "global_buffer") a.address_space = "global";
  return a;
}

TEST(SpecDraftTest, TypeNamesMapToLaunchSpecTypes) {
  KernelFacts f;
  f.metadata.name = "types";
  f.metadata.max_flat_workgroup_size = 128;
  f.code_object_version = 5;
  f.target = "amdgcn-amd-amdhsa--gfx950";
  f.origin = "memory";
  auto& a = f.metadata.args;
  const std::vector<std::pair<std::string, std::string>> buffers{
      {"const __half*", "f16"},        {"__hip_bfloat16*", "bf16"}, {"double*", "f64"},  {"int8_t*", "i8"},
      {"unsigned char *", "u8"},       {"int64_t*", "i64"},         {"long*", "i64"},    {"size_t*", "u64"},
      {"_Float16*", "f16"},            {"char*", "i8"},             {"unsigned int*", "u32"},
      {"std::uint16_t*", "u16"},       {"char**", kFill},           {"struct pair*", kFill}};
  for (size_t i = 0; i < buffers.size(); ++i) a.push_back(arg("b" + std::to_string(i), "global_buffer", 8 * i, 8, buffers[i].first));
  uint64_t off = 8 * buffers.size();
  a.push_back(arg("count", "by_value", off, 8, "size_t"));
  a.push_back(arg("flag", "by_value", off + 8, 1, "bool"));
  a.push_back(arg("scale", "by_value", off + 12, 4, "double"));  // type name contradicts the size
  a.push_back(arg("params", "by_value", off + 16, 16, "struct Params"));
  a.push_back(arg("", "by_value", off + 32, 2));
  a.push_back(arg("null", "by_value", off + 36, 4, "int"));  // names YAML would read as null or split
  a.push_back(arg("a, b", "by_value", off + 40, 4, "float"));
  codeobj::KernelArg acc = arg("acc", "global_buffer", off + 48, 8, "float*");
  acc.actual_access = "read_write";
  a.push_back(acc);
  a.push_back(arg("", "hidden_block_count_x", off + 56, 4));

  std::string text = draft_launch_spec(f);
  YAML::Node y = YAML::Load(text);
  YAML::Node args = args_of(y);
  ASSERT_EQ(args.size(), buffers.size() + 8) << text;
  for (size_t i = 0; i < buffers.size(); ++i) EXPECT_EQ(str(args[i]["buffer"]), buffers[i].second) << buffers[i].first;
  size_t v = buffers.size();
  EXPECT_EQ(str(args[v]["type"]), "u64");
  EXPECT_EQ(str(args[v + 1]["type"]), "u8");
  EXPECT_EQ(str(args[v + 2]["type"]), "i32");
  EXPECT_TRUE(contains(text, "'double' has 8 bytes but the argument 4: type guessed from the size")) << text;
  EXPECT_EQ(str(args[v + 3]["type"]), kFill);
  EXPECT_TRUE(contains(text, "'struct Params' is a struct or a type the launch spec does not support")) << text;
  EXPECT_EQ(str(args[v + 4]["name"]), "arg" + std::to_string(v + 4));
  EXPECT_EQ(str(args[v + 4]["type"]), "i16");
  EXPECT_EQ(str(args[v + 5]["name"]), "null");
  EXPECT_EQ(str(args[v + 6]["name"]), "a, b");
  EXPECT_EQ(str(args[v + 6]["type"]), "f32");
  EXPECT_TRUE(args[v + 7]["inout"].as<bool>());
  EXPECT_EQ(str(args[v + 7]["compare"]), "exact");
  EXPECT_TRUE(args[v + 7]["init"]);
  EXPECT_EQ(y["block"][0].as<int>(), 128);  // min(256, max_flat_workgroup_size 128)

  f.metadata.reqd_workgroup_size = std::array<uint64_t, 3>{64, 4, 1};
  YAML::Node with_reqd = YAML::Load(draft_launch_spec(f));
  EXPECT_EQ(with_reqd["block"][0].as<int>(), 64);
  EXPECT_EQ(with_reqd["block"][1].as<int>(), 4);
}

// The vector_add draft with every FILL replaced by a simple text substitution, and without the
// v2-only keys, which the launch spec parser on this branch (v1) does not know yet.
std::string completed_vector_add_spec_v1() {
  std::string text = draft_file(hip_corpus("gfx942/vector_add.co")).yaml;
  text = std::regex_replace(text, std::regex("grid: \\[FILL"), "grid: [17");
  text = std::regex_replace(text, std::regex("buffer: FILL"), "buffer: f32");
  text = std::regex_replace(text, std::regex("count: FILL"), "count: 4321");
  text = std::regex_replace(text, std::regex("value: FILL"), "value: 4321");
  EXPECT_FALSE(contains(text, ": FILL")) << text;
  YAML::Node y = YAML::Load(text);
  y.remove("inputs");
  y.remove("special");
  for (auto a : y["args"])
    for (const char* v2_key : {"output", "inout", "compare"}) a.remove(v2_key);
  YAML::Emitter out;
  out << y;
  return out.c_str();
}

// The draft's structure is the parser's: completed, it parses.
TEST(SpecDraftTest, CompletedDraftParsesAsLaunchSpec) {
  emu::LaunchSpec spec = emu::parse_launch_spec_text(completed_vector_add_spec_v1(), "completed draft");
  EXPECT_EQ(spec.kernel, "vector_add");
  EXPECT_EQ(spec.grid[0], 17u);
  EXPECT_EQ(spec.block[0], 256u);
  EXPECT_EQ(spec.dynamic_lds, 0u);
  ASSERT_EQ(spec.args.size(), 4u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(spec.args[i].kind, emu::ArgSpec::Buffer);
  EXPECT_EQ(spec.args[3].kind, emu::ArgSpec::Value);
  EXPECT_EQ(spec.args[3].dtype, "i32");
}

// Left as drafted, each kind of FILL (grid, buffer type, count, value, dynamic LDS, pointer) is
// rejected by the parser, even by v1 which has no dedicated placeholder check.
TEST(SpecDraftTest, UncompletedDraftIsRejected) {
  auto v1_keys_only = [](std::string text) {
    YAML::Node y = YAML::Load(text);
    y.remove("inputs");
    y.remove("special");
    for (auto a : y["args"])
      for (const char* v2_key : {"output", "inout", "compare"}) a.remove(v2_key);
    YAML::Emitter out;
    out << y;
    return std::string(out.c_str());
  };
  std::string complete = completed_vector_add_spec_v1();
  const std::vector<std::pair<std::string, std::string>> placeholders{
      {"grid: [17", "grid: [FILL"}, {"buffer: f32", "buffer: FILL"}, {"count: 4321", "count: FILL"},
      {"value: 4321", "value: FILL"}, {"dynamic_lds: 0", "dynamic_lds: FILL"}};
  for (const auto& [filled, placeholder] : placeholders) {
    std::string text = complete;
    ASSERT_NE(text.find(filled), std::string::npos) << filled << "\n" << text;
    text.replace(text.find(filled), filled.size(), placeholder);
    EXPECT_THROW(emu::parse_launch_spec_text(text, "draft"), Error) << placeholder;
  }
  std::string triton = v1_keys_only(draft_file(triton_corpus("gfx942/vector_add_kernel.hsaco")).yaml);
  EXPECT_THROW(emu::parse_launch_spec_text(triton, "draft"), Error);
}

// And it launches: `asmevo run` with the completed draft computes out = a + b.
TEST(SpecDraftTest, CompletedDraftRunsOnTheEmulator) {
  fs::path dir = testing::scratch_dir("verify", "run");
  fs::path spec = dir / "vector_add.yaml";
  write_file_atomic(spec.string(), completed_vector_add_spec_v1());
  std::string out;
  ASSERT_EQ(testing::run_shell(std::string(ASMEVO_CLI) + " run " + hip_corpus("gfx942/vector_add.co") + " --launch " +
                                   spec.string() + " --out " + (dir / "out").string() + " --inputs-out " + (dir / "in").string(),
                               &out),
            0)
      << out;
  auto floats = [](const fs::path& p) {
    emu::NpyArray a = emu::read_npy(p.string());
    std::vector<float> v(a.data.size() / 4);
    std::memcpy(v.data(), a.data.data(), a.data.size());
    return v;
  };
  auto a = floats(dir / "in" / "arg0.npy"), b = floats(dir / "in" / "arg1.npy"), sum = floats(dir / "out" / "arg2.npy");
  ASSERT_EQ(sum.size(), 4321u);
  ASSERT_EQ(a.size(), sum.size());
  for (size_t i = 0; i < sum.size(); ++i) ASSERT_EQ(sum[i], a[i] + b[i]) << i;
}

// ---- The CLI ----

std::string cli() { return ASMEVO_CLI; }

TEST(CliSpecTest, DraftToStdoutAndToFile) {
  std::string path = hip_corpus("gfx942/vector_add.co");
  std::string out;
  ASSERT_EQ(testing::run_shell(cli() + " spec " + path + " 2>/dev/null", &out), 0) << out;
  EXPECT_EQ(out, draft_file(path).yaml);
  fs::path spec = testing::scratch_dir("verify", "cli") / "vector_add.yaml";
  std::ofstream(spec) << "an older spec\n";  // overwriting is allowed
  ASSERT_EQ(testing::run_shell(cli() + " spec " + path + " --kernel vector_add -o " + spec.string(), &out), 0) << out;
  EXPECT_TRUE(contains(out, "replace every FILL")) << out;
  EXPECT_EQ(read_file_text(spec.string()), draft_file(path).yaml);
}

TEST(CliSpecTest, BadInputExitsTwoAndLeavesTheOutputAlone) {
  fs::path dir = testing::scratch_dir("verify", "cli_bad");
  fs::path spec = dir / "spec.yaml";
  std::ofstream(spec) << "an older spec\n";
  std::string out;
  EXPECT_EQ(testing::run_shell(cli() + " spec " + hip_corpus("gfx942/vector_add.co") + " --kernel nope -o " + spec.string(), &out), 2);
  EXPECT_TRUE(contains(out, "no kernel named 'nope'")) << out;
  EXPECT_TRUE(contains(out, "vector_add")) << out;
  EXPECT_EQ(read_file_text(spec.string()), "an older spec\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1) << "no temporary file left behind";
  EXPECT_EQ(testing::run_shell(cli() + " spec " + compile_opencl_kernels(), &out), 2);
  EXPECT_TRUE(contains(out, "--kernel")) << out;
  EXPECT_EQ(testing::run_shell(cli() + " spec /no/such/file.co", &out), 2) << out;
  EXPECT_EQ(testing::run_shell(cli() + " spec", &out), 2) << out;  // FILE is required
}

}  // namespace
}  // namespace asmevo::verify
