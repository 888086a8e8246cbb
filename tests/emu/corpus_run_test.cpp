// Corpus kernels run end to end on the emulator and match the host references
// (corpus/reference), on gfx90a, gfx942 and gfx950, with fresh random inputs and problem sizes
// that leave the last workgroup partly idle (masked tail). Results must not depend on threads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fmt/format.h>
#include <random>

#include "codeobj/code_object.h"
#include "corpus/reference/reference.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

struct Case {
  const char* file;    // corpus code object stem
  const char* spec;    // corpus/hip/launch/<spec>.yaml
};

// Runs `spec` (with args rewritten by `edit`) and compares every buffer with the reference.
void run_and_compare(const std::string& arch, const Case& c, unsigned threads, uint64_t seed,
                     std::vector<std::vector<uint8_t>>* outputs = nullptr) {
  std::string co_path = corpus_hip_dir() + "/" + arch + "/" + c.file + ".co";
  ASSERT_TRUE(std::filesystem::exists(co_path)) << "corpus not built: " << co_path << " (build target asmevo_corpus_hip)";
  LaunchSpec spec = load_launch_spec(source_dir() + "/corpus/hip/launch/" + c.spec + ".yaml");
  spec.seed = seed;
  auto co = codeobj::CodeObject::parse(read_file_bytes(co_path), co_path);
  const codeobj::Kernel* k = co.kernel(spec.kernel);
  ASSERT_NE(k, nullptr) << spec.kernel;
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  auto launch = prepare_launch(co, *k, spec, threads);
  // Host copy of the inputs, before the run.
  std::vector<corpus::HostArg> host;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    corpus::HostArg a;
    a.dtype = spec.args[i].dtype;
    if (spec.args[i].kind == ArgSpec::Buffer) {
      a.is_buffer = true;
      a.bytes = make_buffer(spec, i);
    } else {
      a.bits = scalar_bits(spec, i);
    }
    host.push_back(std::move(a));
  }
  RunOptions ro;
  ro.threads = threads;
  run_launch(*launch, *prog, ro);
  const corpus::ReferenceEntry* ref = corpus::find_reference(spec.kernel);
  ASSERT_NE(ref, nullptr) << spec.kernel;
  ref->fn(host, {spec.grid[0] * 1u, spec.grid[1], spec.grid[2]}, {spec.block[0], spec.block[1], spec.block[2]}, spec.dynamic_lds);
  corpus::Tolerance tol = corpus::parse_tolerance(ref->tolerance);
  for (const auto& b : launch->buffers) {
    auto dev = launch->mem.bytes(b.address);
    const auto& want = host[b.arg_index];
    if (outputs) outputs->emplace_back(dev.begin(), dev.begin() + b.bytes);
    ASSERT_EQ(want.bytes.size(), b.bytes);
    size_t esz = dtype_size(b.dtype), n = b.bytes / esz, bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      double got, exp;
      if (b.dtype == "f32") {
        float g, e;
        std::memcpy(&g, dev.data() + 4 * i, 4), std::memcpy(&e, want.bytes.data() + 4 * i, 4);
        got = g, exp = e;
      } else if (b.dtype == "f64") {
        std::memcpy(&got, dev.data() + 8 * i, 8), std::memcpy(&exp, want.bytes.data() + 8 * i, 8);
      } else {
        uint64_t g = 0, e = 0;
        std::memcpy(&g, dev.data() + esz * i, esz), std::memcpy(&e, want.bytes.data() + esz * i, esz);
        got = static_cast<double>(g), exp = static_cast<double>(e);
      }
      if (!corpus::within_tolerance(got, exp, tol)) {
        ++bad;
        ADD_FAILURE() << fmt::format("{} {} arg {} [{}]: emulator {} reference {}", arch, spec.kernel, b.arg_index, i, got, exp);
      }
    }
  }
}

class CorpusRun : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

const Case kCases[] = {{"vector_add", "vector_add"}, {"axpy", "axpy_f32"}, {"axpy", "axpy_f64"}, {"relu", "relu_f32"}};

TEST_P(CorpusRun, MatchesReference) {
  auto [arch, idx] = GetParam();
  std::random_device rd;
  uint64_t seed = (static_cast<uint64_t>(rd()) << 32) | rd();  // fresh inputs every run
  SCOPED_TRACE(fmt::format("seed {}", seed));
  run_and_compare(arch, kCases[idx], 2, seed);
}

INSTANTIATE_TEST_SUITE_P(Emu, CorpusRun,
                         ::testing::Combine(::testing::Values("gfx90a", "gfx942", "gfx950"), ::testing::Range(0, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + kCases[std::get<1>(info.param)].spec;
                         });

TEST(CorpusRunDeterminism, SameOutputForAnyThreadCount) {
  std::vector<std::vector<uint8_t>> one, four;
  run_and_compare("gfx942", kCases[0], 1, 42, &one);
  run_and_compare("gfx942", kCases[0], 4, 42, &four);
  EXPECT_EQ(one, four);
}

}  // namespace
}  // namespace asmevo::emu::test
