// Inputs made by chunks and large buffers filled on first touch (emu::fill_chunk, DeviceMemory::fill_lazily):
// the bytes are the same whatever the order the chunks are made in, a buffer of one chunk keeps the
// values the whole-buffer generator gave before chunking, and a lazily filled launch holds exactly
// make_buffer's bytes wherever it is read, while a run of one workgroup makes only the pages it touches.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "codeobj/code_object.h"
#include "corpus/index/corpus.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/fast_random.h"
#include "emu/input_chunks.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

LaunchSpec vector_add(uint32_t n) {
  LaunchSpec s = load_launch_spec(corpus::hip_spec("vector_add"));
  s.grid = {(n + s.block[0] - 1) / s.block[0], 1, 1};
  for (auto& a : s.args) {
    if (a.kind == ArgSpec::Buffer) a.count = n;
    else if (a.name == "n") a.value = std::to_string(n);
  }
  return s;
}

TEST(EmuLazyFill, ChunksInAnyOrderGiveMakeBuffersBytes) {
  LaunchSpec s = vector_add(100000);  // 400 kB per buffer: 7 chunks, the last one partial
  for (size_t arg = 0; arg < s.args.size(); ++arg) {
    if (s.args[arg].kind != ArgSpec::Buffer) continue;
    ASSERT_TRUE(buffer_fills_by_chunk(s, arg)) << arg;
    std::vector<uint8_t> whole = make_buffer(s, arg), chunks(whole.size(), 0x5a);
    const uint64_t n = (whole.size() + kInitChunkBytes - 1) / kInitChunkBytes;
    for (uint64_t c = n; c-- > 0;)
      fill_chunk(s, arg, c, std::span<uint8_t>(chunks).subspan(c * kInitChunkBytes, std::min<uint64_t>(kInitChunkBytes, whole.size() - c * kInitChunkBytes)));
    EXPECT_EQ(chunks, whole) << "argument " << arg;
  }
}

TEST(EmuLazyFill, TheFirstChunkKeepsTheWholeBufferSeed) {
  // The generator before chunking: one mt19937_64 stream over the whole buffer from seed x 1000003 + arg.
  LaunchSpec s = vector_add(100000);
  ASSERT_EQ(s.args[0].init.kind, InitSpec::Normal);
  std::mt19937_64 rng(s.seed * 1000003u + 0);
  std::normal_distribution<double> normal(s.args[0].init.a, s.args[0].init.b);
  std::vector<uint8_t> b = make_buffer(s, 0);
  for (size_t i = 0; i < kInitChunkBytes / 4; ++i) {
    const float want = static_cast<float>(normal(rng));
    float got;
    std::memcpy(&got, b.data() + 4 * i, 4);
    ASSERT_EQ(got, want) << "element " << i;
  }
}

TEST(EmuLazyFill, ALaunchFilledOnFirstTouchHoldsMakeBuffersBytes) {
  LaunchSpec s = vector_add(1 << 20);  // 4 MiB per buffer: filled lazily
  std::string path = corpus_hip_dir() + "/gfx942/vector_add.co";
  auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  const codeobj::Kernel* k = co.kernel("vector_add");
  program::Decoder decoder(co.target());
  auto prog = Program::build(co, *k, decoder);
  auto launch = prepare_launch(co, *k, s, 1);
  auto lazy_pages = [&](const BufferArg& b) -> std::pair<uint64_t, uint64_t> {
    const DeviceMemory::Region* r = launch->mem.find(b.address);
    return r && r->lazy ? std::pair{r->lazy->pages_filled(), r->lazy->pages()} : std::pair<uint64_t, uint64_t>{0, 0};
  };
  for (const auto& b : launch->buffers) EXPECT_EQ(lazy_pages(b), (std::pair<uint64_t, uint64_t>{0, 64})) << b.label();
  RunOptions ro;
  const uint64_t last[] = {s.grid[0] - 1ull};  // the last workgroup: the last 1 kB of each buffer, its last page
  ro.workgroups = last;
  run_launch(*launch, *prog, ro);
  for (const auto& b : launch->buffers) EXPECT_EQ(lazy_pages(b).first, 1u) << b.label() << ": only the page it touched";
  // The inputs as make_buffer makes them; the output poisoned except the last workgroup's sums.
  for (size_t i = 0; i < 2; ++i) {
    auto view = launch->contents(launch->buffers[i]);
    EXPECT_EQ(std::vector<uint8_t>(view.begin(), view.end()), make_buffer(s, launch->buffers[i].arg_index)) << i;
  }
  auto a = launch->contents(launch->buffers[0]), bb = launch->contents(launch->buffers[1]), out = launch->contents(launch->buffers[2]);
  const size_t n = out.size() / 4, first = n - s.block[0];
  for (size_t e = 0; e < n; e += e + 1 < first ? 4093 : 1) {  // sparse before the last workgroup, every element in it
    float x, y, z;
    std::memcpy(&x, a.data() + 4 * e, 4), std::memcpy(&y, bb.data() + 4 * e, 4), std::memcpy(&z, out.data() + 4 * e, 4);
    if (e >= first) EXPECT_EQ(z, x + y) << e;
    else EXPECT_EQ(std::memcmp(out.data() + 4 * e, std::vector<uint8_t>(4, s.poison).data(), 4), 0) << e;
  }
}

TEST(EmuLazyFill, LaterChunksDrawFromTheirDistributions) {
  // FastRandom (later chunks): a standard normal's moments and tails, integers uniform on [lo, hi].
  FastRandom rng(12345);
  const int n = 2000000;
  double sum = 0, sq = 0;
  int beyond2 = 0, beyond3 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z, sq += z * z, beyond2 += std::fabs(z) > 2, beyond3 += std::fabs(z) > 3;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.005);
  EXPECT_NEAR(sq / n, 1.0, 0.005);
  EXPECT_NEAR(static_cast<double>(beyond2) / n, 0.0455, 0.001);  // 2 * (1 - Phi(2))
  EXPECT_NEAR(static_cast<double>(beyond3) / n, 0.0027, 0.0002);
  std::vector<int> counts(7, 0);
  for (int i = 0; i < 70000; ++i) {
    const int64_t v = rng.integer(-3, 3);
    ASSERT_TRUE(v >= -3 && v <= 3) << v;
    ++counts[v + 3];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  FastRandom a(7), b(7);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.normal(), b.normal());
}

TEST(EmuLazyFill, NormalsInBlocksOfEightAreTheDrawsOneByOne) {
  // normal8 (fill_chunk's normal inputs): bit for bit the values of eight normal() calls, in order, including the
  // blocks where a candidate falls in a wedge or the tail and the block is drawn one by one (both kinds must occur).
  FastRandom one(99), eight(99);
  int redrawn = 0;
  for (int block = 0; block < 20000; ++block) {
    double want[8], got[8];
    for (double& v : want) v = one.normal();
    eight.normal8(got);
    for (int j = 0; j < 8; ++j) ASSERT_EQ(std::bit_cast<uint64_t>(got[j]), std::bit_cast<uint64_t>(want[j])) << block << " " << j;
    bool beyond = false;
    for (double v : want) beyond |= std::fabs(v) > 3.6541528853610088;  // the tail: never a rectangle's
    redrawn += beyond;
  }
  EXPECT_GT(redrawn, 0);
  EXPECT_EQ(one.next(), eight.next());  // the same state after
  FastRandom a(5), b(5);
  NormalDraws draws(b);
  for (int i = 0; i < 1001; ++i) ASSERT_EQ(std::bit_cast<uint64_t>(draws.next()), std::bit_cast<uint64_t>(a.normal())) << i;
}

TEST(EmuLazyFill, KeptChunksGiveFillChunksBytes) {
  // InputChunks: the first fill generates, the second copies the same bytes; another seed misses.
  LaunchSpec s = vector_add(100000);
  InputChunks kept;
  std::vector<uint8_t> want(kInitChunkBytes), first(kInitChunkBytes), second(kInitChunkBytes);
  fill_chunk(s, 0, 3, want);
  kept.fill(s, 0, 3, first);
  kept.fill(s, 0, 3, second);
  EXPECT_EQ(first, want);
  EXPECT_EQ(second, want);
  EXPECT_EQ(kept.hits(), 1u);
  LaunchSpec other = s;
  other.seed += 1;
  std::vector<uint8_t> other_want(kInitChunkBytes), other_got(kInitChunkBytes);
  fill_chunk(other, 0, 3, other_want);
  kept.fill(other, 0, 3, other_got);
  EXPECT_EQ(other_got, other_want);
  EXPECT_NE(other_got, want);
  EXPECT_EQ(kept.hits(), 1u);
}

// An f16 buffer holds each value its f32 twin (same spec, seed and chunk: the same draws) holds, rounded by the
// compiler's conversion: the eight-at-a-time store gives the per-value bits, on the first chunk and later ones,
// past the f16 range (infinities), in its subnormals, and in a partial block of eight at the end.
TEST(EmuLazyFill, F16ChunksHoldTheCompilersConversionOfTheF32Draws) {
  LaunchSpec s = vector_add(100000);
  const size_t n = 8 * 300 + 5;
  for (InitSpec init : {InitSpec{InitSpec::Uniform, -1e5, 1e5}, InitSpec{InitSpec::Normal, 0, 1e-6}, InitSpec{InitSpec::Normal, 0, 1}})
    for (uint64_t chunk : {uint64_t{0}, uint64_t{3}}) {
      LaunchSpec f32 = s, f16 = s;
      f32.args[0].init = f16.args[0].init = init;
      f32.args[0].dtype = "f32", f16.args[0].dtype = "f16";
      std::vector<uint8_t> wide(4 * n), narrow(2 * n);
      fill_chunk(f32, 0, chunk, wide);
      fill_chunk(f16, 0, chunk, narrow);
      unsigned infinities = 0, subnormals = 0;
      for (size_t i = 0; i < n; ++i) {
        float f;
        uint16_t h;
        std::memcpy(&f, wide.data() + 4 * i, 4);
        std::memcpy(&h, narrow.data() + 2 * i, 2);
        ASSERT_EQ(h, std::bit_cast<uint16_t>(static_cast<_Float16>(f))) << "element " << i << " of chunk " << chunk << ": " << f;
        infinities += (h & 0x7fff) == 0x7c00;
        subnormals += (h & 0x7c00) == 0 && (h & 0x3ff) != 0;
      }
      if (init.b == 1e5) EXPECT_GT(infinities, 0u);
      if (init.b == 1e-6) EXPECT_GT(subnormals, 0u);
    }
}

}  // namespace
}  // namespace asmevo::emu::test
