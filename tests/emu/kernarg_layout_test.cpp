// Issue 15 item 2: a code object whose metadata lists explicit arguments beyond .kernarg_segment_size
// (AITer's fmoe_bf16_blockscaleBf16_g1u1_ps_* on gfx950: padding arguments at 436..447 of a 436-byte
// segment) is loaded by the HIP runtime, so AsmEvo must read it: the inconsistency is a warning
// (derive_resources -> inspect, optimize), and the emulator's kernarg segment covers every listed
// argument. The crafted object: the corpus Triton vector_add_kernel (gfx942) with its metadata's
// .kernarg_segment_size patched in place from 48 to 28, which puts the two trailing scratch pointers
// (offsets 32 and 40) outside the segment.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "codeobj/arch_params.h"
#include "codeobj/code_object.h"
#include "codeobj/resources.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/file_io.h"

namespace asmevo::emu {
namespace {

// Replaces the msgpack value of the metadata key `.kernarg_segment_size` (a positive fixint here)
// by `value`, in place: the note keeps its size, so the ELF stays valid.
std::vector<uint8_t> patch_kernarg_segment_size(std::vector<uint8_t> bytes, uint8_t old_value, uint8_t value) {
  const std::string key = ".kernarg_segment_size";
  std::vector<uint8_t> pattern{static_cast<uint8_t>(0xa0 | key.size())};  // fixstr
  pattern.insert(pattern.end(), key.begin(), key.end());
  pattern.push_back(old_value);
  auto it = std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end());
  if (it == bytes.end()) throw std::runtime_error("metadata key .kernarg_segment_size with value " + std::to_string(old_value) + " not found");
  *(it + static_cast<long>(pattern.size()) - 1) = value;
  return bytes;
}

TEST(KernargLayout, ArgumentsBeyondTheSegmentAreAWarningAndTheKernelStillRuns) {
  const std::string path = corpus::triton_object("gfx942", "vector_add_kernel");
  auto original = read_file_bytes(path);
  auto bytes = patch_kernarg_segment_size(original, 48, 28);
  auto co = codeobj::CodeObject::parse(bytes, "crafted vector_add_kernel");  // no longer refused
  const codeobj::Kernel* k = co.kernel("vector_add_kernel");
  ASSERT_TRUE(k);
  const auto* md = co.metadata()->kernel("vector_add_kernel");
  ASSERT_TRUE(md);
  EXPECT_EQ(md->kernarg_segment_size, 28u);
  EXPECT_EQ(md->kernarg_extent(), 48u);

  auto warnings = codeobj::kernarg_layout_warnings(*md);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("2 explicit argument(s)"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("kernarg bytes 32..47"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find(".kernarg_segment_size 28"), std::string::npos) << warnings[0];
  auto res = codeobj::derive_resources(*codeobj::arch_params(co.target().arch), k->kd, md, 0);
  bool listed = false;
  for (const auto& i : res.inconsistencies) listed |= i == warnings[0];
  EXPECT_TRUE(listed) << "inspect shows derive_resources' inconsistencies as warnings";

  // The untouched object has no such warning.
  auto co0 = codeobj::CodeObject::parse(original, path);
  EXPECT_TRUE(codeobj::kernarg_layout_warnings(*co0.metadata()->kernel("vector_add_kernel")).empty());

  // It runs and computes out = x + y, as the original does.
  LaunchSpec spec = load_launch_spec(corpus::triton_spec("vector_add_kernel"));
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  auto launch = prepare_launch(co, *k, spec, 1);
  run_launch(*launch, *prog, RunOptions{});
  ASSERT_EQ(launch->buffers.size(), 3u);
  auto x = launch->contents(launch->buffers[0]), y = launch->contents(launch->buffers[1]),
       out = launch->contents(launch->buffers[2]);
  size_t bad = 0;
  for (size_t i = 0; i < 10000; ++i) {
    float a, b, c;
    std::memcpy(&a, x.data() + 4 * i, 4), std::memcpy(&b, y.data() + 4 * i, 4), std::memcpy(&c, out.data() + 4 * i, 4);
    bad += std::memcmp(&c, &(a += b), 4) != 0;
  }
  EXPECT_EQ(bad, 0u);
}

// `{value: 0, type: pad}` takes the size of the kernel's by-value argument (here the 4-byte
// n_elements) and leaves zeros there: the kernel sees n = 0 and writes nothing.
TEST(KernargLayout, PadArgumentIsZeroBytesOfTheKernelsSize) {
  const std::string path = corpus::triton_object("gfx942", "vector_add_kernel");
  auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  const codeobj::Kernel* k = co.kernel("vector_add_kernel");
  ASSERT_TRUE(k);
  LaunchSpec spec = load_launch_spec(corpus::triton_spec("vector_add_kernel"));
  size_t n_index = spec.args.size();
  for (size_t i = 0; i < spec.args.size(); ++i)
    if (spec.args[i].kind == ArgSpec::Value) n_index = i;
  ASSERT_LT(n_index, spec.args.size());
  spec.args[n_index].dtype = "pad";
  spec.args[n_index].value = "0";
  auto launch = prepare_launch(co, *k, spec, 1);
  const auto* md = co.metadata()->kernel("vector_add_kernel");
  uint64_t off = 0;
  size_t explicit_i = 0;
  for (const auto& a : md->args)
    if (!a.is_hidden() && explicit_i++ == n_index) off = a.offset;
  const uint8_t* kernarg = launch->mem.translate(launch->kernarg_addr + off, 4);
  EXPECT_EQ(kernarg[0] | kernarg[1] | kernarg[2] | kernarg[3], 0);
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  run_launch(*launch, *prog, RunOptions{});
  auto out = launch->contents(launch->buffers[2]);
  size_t written = 0;
  for (uint8_t b : out) written += b != spec.poison;
  EXPECT_EQ(written, 0u) << "n = 0: the output keeps its poison";
}

}  // namespace
}  // namespace asmevo::emu
