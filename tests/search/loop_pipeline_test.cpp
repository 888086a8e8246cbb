// search/moves/loop_pipeline.cpp on corpus kernels: each edit checks clean and verifies EQUIVALENT on
// the spec's small launches (trip counts below, at and above the unroll factor); and the loops it must
// refuse, with the reason.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "search/moves/loop_pipeline.h"
#include "search/moves/moves.h"
#include "tests/search/move_test_util.h"

using namespace asmevo;
using namespace asmevo::movetest;

namespace {

// The index of the first block of `kernel` that branches back to itself.
size_t self_loop(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  for (size_t b = 0; b < f->blocks.size(); ++b)
    for (size_t s : f->blocks[b].succs)
      if (s == b) return b;
  ADD_FAILURE() << kernel << " has no self loop";
  return 0;
}

// kb_sum_dim1_f32 (gfx942) with `lines` inserted before its loop's instruction `before`, rebuilt and
// recovered (so that the new lines are decoded instructions, as in any recovered kernel).
program::Program kernel_with(const std::string& kernel, const std::string& before, const std::vector<std::string>& lines) {
  const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
  auto p = program::Program::recover(load(k.code_object));
  const size_t at = find_line(p, k.name, before);
  EXPECT_NE(at, 0u) << before;
  search::Edit e;
  e.kernel = k.name;
  e.hunks.push_back(search::make_insertion(at, lines));
  return program::Program::recover(rebuilt(search::apply_edit(p, e), "k1.co"));
}
program::Program sum_with(const std::string& before, const std::vector<std::string>& lines) { return kernel_with("kb_sum_dim1_f32", before, lines); }

// conv1d_f32 with ksize (the inner loop's trip count) 0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17: every factor's copy
// runs (k-1: the guard sends all to the original loop; k, k+1: the copy then the original), and 0 skips both.
std::string conv1d_trips_spec() {
  const auto path = asmevo::testing::scratch_dir("loop_pipeline", "") / "conv1d_f32_trips.yaml";
  std::string launches;
  for (int trips : {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17}) launches += fmt::format("  - {{name: ksize{0}, values: {{ksize: {0}}}}}\n", trips);
  write_file_atomic(path.string(),
                    "kernel: conv1d_f32\ngrid: [1, 2, 1]\nblock: [64, 1, 1]\ndynamic_lds: 0\nseed: 7\ninputs: 2\nspecial: true\nargs:\n"
                    "  - {name: x, buffer: f32, count: 80, init: {normal: [0, 1]}}\n  - {name: w, buffer: f32, count: 68, init: {uniform: [-0.5, 0.5]}}\n"
                    "  - {name: bias, buffer: f32, count: 2, init: {normal: [0, 1]}}\n  - {name: y, buffer: f32, count: 82, output: true}\n"
                    "  - {name: cin, value: 2, type: i32}\n  - {name: cout, value: 2, type: i32}\n  - {name: len, value: 40, type: i32}\n"
                    "  - {name: ksize, value: 3, type: i32}\nlaunches:\n" + launches);
  return path.string();
}

// Long rows for the row-per-workgroup and grid-stride kernels: the corpus specs' rows take at most 7 iterations per lane,
// fewer than the unroll factors, so their copies would never run. 1223 columns over 64 lanes: 19 or 20
// iterations per lane, lanes leaving at different iterations (the guard's fallback at the end).
std::string long_rows_spec(const std::string& kernel) {
  const auto path = asmevo::testing::scratch_dir("loop_pipeline", "") / (kernel + "_long.yaml");
  std::string args;
  if (kernel == "kb_softmax_f32" || kernel == "kb_log_softmax_f32")
    args = "  - {name: x, buffer: f32, count: 2446, init: {normal: [0, 3]}}\n  - {name: y, buffer: f32, count: 2446, output: true}\n"
           "  - {name: rows, value: 2, type: i32}\n  - {name: cols, value: 1223, type: i32}\n";
  else if (kernel == "kb_matvec_f32")
    args = "  - {name: A, buffer: f32, count: 2446, init: {normal: [0, 1]}}\n  - {name: x, buffer: f32, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: y, buffer: f32, count: 2, output: true}\n  - {name: M, value: 2, type: i32}\n  - {name: K, value: 1223, type: i64}\n";
  else if (kernel == "kb_mse_loss_f32" || kernel == "kb_huber_loss_f32")  // one workgroup: the grid stride is 64
    args = "  - {name: a, buffer: f32, count: 1223, init: {normal: [0, 1.5]}}\n  - {name: b, buffer: f32, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: loss, buffer: f32, count: 1, init: zeros, inout: true}\n  - {name: n, value: 1223, type: i64}\n";
  else if (kernel == "cross_entropy_rows_f32")  // a wave per row
    args = "  - {name: logits, buffer: f32, count: 2446, init: {normal: [0, 2]}}\n  - {name: labels, buffer: i32, count: 2, init: {ints: [0, 1222]}}\n"
           "  - {name: loss, buffer: f32, count: 2, output: true}\n  - {name: total, buffer: f32, count: 1, init: zeros, inout: true}\n"
           "  - {name: rows, value: 2, type: i32}\n  - {name: classes, value: 1223, type: i32}\n";
  else if (kernel == "axpy_f32")  // grid stride 128
    args = "  - {name: alpha, value: 1.5, type: f32}\n  - {name: x, buffer: f32, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: y, buffer: f32, count: 1223, init: {uniform: [-1, 1]}, inout: true}\n  - {name: n, value: 1223, type: i32}\n";
  else if (kernel == "axpy_f64")
    args = "  - {name: alpha, value: -0.75, type: f64}\n  - {name: x, buffer: f64, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: y, buffer: f64, count: 1223, init: {uniform: [-1, 1]}, inout: true}\n  - {name: n, value: 1223, type: i32}\n";
  else if (kernel == "log_softmax_rows_f32")
    args = "  - {name: x, buffer: f32, count: 2446, init: {normal: [0, 3]}}\n  - {name: y, buffer: f32, count: 2446, output: true}\n"
           "  - {name: rows, value: 2, type: i32}\n  - {name: cols, value: 1223, type: i32}\n";
  else
    args = "  - {name: x, buffer: f32, count: 2446, init: {normal: [1, 2]}}\n  - {name: weight, buffer: f32, count: 1223, init: {normal: [1, 0.1]}}\n"
           "  - {name: bias, buffer: f32, count: 1223, init: {normal: [0, 0.1]}}\n  - {name: y, buffer: f32, count: 2446, output: true}\n"
           "  - {name: batch, value: 2, type: i32}\n  - {name: n, value: 1223, type: i32}\n  - {name: eps, value: 1e-5, type: f32}\n";
  std::string grid = kernel == "kb_mse_loss_f32" || kernel == "kb_huber_loss_f32" ? "[1, 1, 1]" : "[2, 1, 1]";
  const std::string block = kernel == "cross_entropy_rows_f32" ? "[64, 2, 1]" : "[64, 1, 1]";
  if (kernel == "cross_entropy_rows_f32") grid = "[1, 1, 1]";
  write_file_atomic(path.string(), "kernel: " + kernel + "\ngrid: " + grid + "\nblock: " + block + "\ndynamic_lds: 0\nseed: 7\ninputs: 2\nspecial: true\nargs:\n" + args);
  return path.string();
}

}  // namespace

TEST(LoopPipelineTest, UniformCounterLoopsPipelineAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  std::string fired;
  // dim1 = 29 in the specs: 29 iterations, so every factor (16, 8, 4) runs the copy and then the original.
  const size_t n = judge_edits(*move, {"kb_sum_dim1_f32", "kb_argmax_dim1_f32"}, 3, &fired);
  std::cout << "loop-pipeline fired on: " << fired << "(" << n << " edits)\n";
  EXPECT_EQ(fired, "kb_sum_dim1_f32 kb_argmax_dim1_f32 ");
  EXPECT_EQ(n, 6u);  // the first 3 of each: 16, 8, 4
  // argmax renames 3 VGPRs per iteration: 16 iterations fit below v64 since a loaded value's registers are
  // one block across the iterations (before, each single register took a register of its own parity).
  const corpus::Kernel argmax = corpus::kernels("gfx942", {"kb_argmax_dim1_f32"}).at(0);
  auto p = program::Program::recover(load(argmax.code_object));
  EXPECT_EQ(search::loop_pipeline_refusal(p, argmax.name, self_loop(p, argmax.name), 16), "");
}

// Triton's `for start in range(0, vocab, BLOCK)` (argmax_kernel: `s_addk_i32 s10, 0x400` then
// `s_cmp_lt_i32 s10, s6`, going on while it holds): the guard computes s10 + (K-1) * 1024 with s_add_i32
// (a signed overflow sends the launch to the original loop) and enters the copy only if that is still
// below vocab. Verified on vocab around every factor's boundary (K-1, K and K+1 iterations of 1024
// columns, and partial blocks), two rows each.
TEST(LoopPipelineTest, LessThanLoopsPipelineBehindAnOverflowGuardAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"argmax_kernel"}).at(0);
  auto k0 = load(k.code_object);
  auto p = program::Program::recover(k0);
  const size_t loop = self_loop(p, k.name);
  EXPECT_NE(search::loop_pipeline_refusal(p, k.name, loop, 8).find("not enough free VGPRs"), std::string::npos);
  const auto path = asmevo::testing::scratch_dir("loop_pipeline", "") / "argmax_kernel_trips.yaml";
  std::string launches;
  for (int vocab : {1, 1024, 1025, 2048, 2049, 3072, 3073, 4096, 4097, 5000, 8193})
    launches += fmt::format("  - {{name: vocab{0}, values: {{vocab: {0}}}}}\n", vocab);
  write_file_atomic(path.string(), "kernel: argmax_kernel\ngrid: [2, 1, 1]\nblock: [256, 1, 1]\ndynamic_lds: 16\nseed: 5\ninputs: 2\nspecial: true\nargs:\n"
                                   "  - {name: logits, buffer: f32, count: 16386, init: {normal: [0, 4]}}\n  - {name: out, buffer: i32, count: 2, output: true}\n"
                                   "  - {name: vocab, value: 5000, type: i32}\n  - {pointer: null}\n  - {pointer: null}\nlaunches:\n" + launches);
  auto edits = propose_whole(*move, p, k.name);
  ASSERT_EQ(edits.size(), 3u);  // factors 4, 3, 2
  for (const auto& [e, factor] : {std::pair{edits[0], 4}, {edits[1], 3}, {edits[2], 2}}) {
    const std::string diff = e.diff();
    EXPECT_NE(diff.find(fmt::format(", s10, {}\n", (factor - 1) * 1024)), std::string::npos) << diff;
    EXPECT_NE(diff.find("s_cmp_lt_i32"), std::string::npos) << diff;
    auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
    EXPECT_TRUE(checked(k1, k.name).clean()) << e.description;
    EXPECT_EQ(verdict(k0, k1, path.string()), verify::Verdict::Equivalent) << e.description << "\n" << diff;
  }
  // gfx90a and gfx950 compile the same loop: the first plan of each, on the same launches.
  for (const char* arch : {"gfx90a", "gfx950"}) {
    const corpus::Kernel ka = corpus::kernels(arch, {"argmax_kernel"}).at(0);
    auto a0 = load(ka.code_object);
    auto pa = program::Program::recover(a0);
    auto arch_edits = propose_whole(*move, pa, ka.name);
    ASSERT_FALSE(arch_edits.empty()) << arch;
    EXPECT_NE(arch_edits[0].diff().find("s_cmp_lt_i32"), std::string::npos) << arch << "\n" << arch_edits[0].diff();
    auto a1 = rebuilt(search::apply_edit(pa, arch_edits[0]), "a1.co");
    EXPECT_TRUE(checked(a1, ka.name).clean()) << arch;
    EXPECT_EQ(verdict(a0, a1, path.string()), verify::Verdict::Equivalent) << arch << "\n" << arch_edits[0].diff();
  }
  // A step that is not a positive constant, or a bound the body writes: the guard's argument does not hold.
  const size_t step = find_line(p, k.name, "s_addk_i32 s10, 0x400");
  ASSERT_NE(step, 0u);
  auto down = program::Program::recover(rebuilt(search::apply_edit(p, search::line_replacements(p, k.name, {{p.text_line(step).address, "s_addk_i32 s10, 0xfc00"}})), "down.co"));
  EXPECT_NE(search::loop_pipeline_refusal(down, k.name, self_loop(down, k.name), 4).find("stepped once by a constant S > 0"), std::string::npos);
  auto moving = kernel_with("argmax_kernel", "s_cmp_lt_i32 s10, s6", {"s_add_i32 s6, s6, 0"});
  EXPECT_NE(search::loop_pipeline_refusal(moving, k.name, self_loop(moving, k.name), 4).find("stepped once by a constant S > 0"), std::string::npos);
}

TEST(LoopPipelineTest, DivergentLoopsPipelineAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  // kb_max_dim1_f32: a per-lane down-counter (29 iterations); the row kernels on 19-20 iterations per lane.
  std::string fired;
  EXPECT_EQ(judge_edits(*move, {"kb_max_dim1_f32"}, 3, &fired), 3u);  // 8, 4 and 3 (16: the VGPRs again)
  EXPECT_EQ(fired, "kb_max_dim1_f32 ");
  // gfx90a: the address carries write VCC too (v_add_co_u32); the exit compare is the last VCC write before
  // the mask's accumulation.
  for (const corpus::Kernel& k : corpus::kernels("gfx90a", {"kb_max_dim1_f32", "kb_sum_dim1_f32"})) {
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_FALSE(edits.empty()) << k.label();
    auto k1 = rebuilt(search::apply_edit(p, edits[0]), "k1.co");
    EXPECT_TRUE(checked(k1, k.name).clean()) << k.label();
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << k.label() << "\n" << edits[0].diff();
  }
  // The row kernels, and the 64-bit inductions (`long long` columns, grid stride) of kb_matvec_f32 and
  // kb_mse_loss_f32, on 19-20 iterations per lane.
  for (const std::string kernel : {"kb_softmax_f32", "kb_layernorm_f32", "kb_matvec_f32", "kb_mse_loss_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    auto edits = propose_whole(*move, p, k.name);
    ASSERT_GE(edits.size(), 2u) << kernel;
    const std::string spec = long_rows_spec(kernel);
    for (size_t i = 0; i < 2; ++i) {
      auto k1 = rebuilt(search::apply_edit(p, edits[i]), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << kernel << "\n" << edits[i].description << "\n" << report.to_text();
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << "\n" << edits[i].description << "\n" << edits[i].diff();
    }
  }
}

TEST(LoopPipelineTest, RefusesWhatCouldChangeTheResult) {
  const corpus::Kernel sum = corpus::kernels("gfx942", {"kb_sum_dim1_f32"}).at(0);
  {
    auto p = program::Program::recover(load(sum.code_object));
    EXPECT_EQ(search::loop_pipeline_refusal(p, sum.name, self_loop(p, sum.name), 8), "");
  }
  const std::string the_load = "global_load_dword v5, v[2:3], off";
  const std::string wait = "v_add_f32_e32 v4, v4, v5";  // the use after the loop's wait
  // An atomic in the body may alias a later iteration's load (plain stores: StoreLoops... below).
  auto stored = sum_with(wait, {"global_atomic_add_f32 v[2:3], v4, off"});
  EXPECT_NE(search::loop_pipeline_refusal(stored, sum.name, self_loop(stored, sum.name), 8).find("a store or atomic"), std::string::npos);
  // The next address computed from the loaded value (pointer chasing): the loads cannot go first.
  auto chased = sum_with(wait, {"v_add_u32_e32 v2, v2, v5"});
  EXPECT_NE(search::loop_pipeline_refusal(chased, sum.name, self_loop(chased, sum.name), 8).find("a load's address depends on a loaded value"), std::string::npos);
  // LDS in the body.
  auto lds = sum_with(wait, {"ds_write_b32 v2, v4"});
  EXPECT_NE(search::loop_pipeline_refusal(lds, sum.name, self_loop(lds, sum.name), 8).find("LDS"), std::string::npos);
  // A wait before the load (it would wait for other loads once the loads are reordered).
  auto early = sum_with(the_load, {"s_waitcnt vmcnt(0)"});
  EXPECT_NE(search::loop_pipeline_refusal(early, sum.name, self_loop(early, sum.name), 8).find("a wait comes before a load"), std::string::npos);
  // In the corpus: softmax's second loop needs more fresh VGPRs for 8 iterations than fit below v64 (the
  // 8-waves limit); argmax_rows_f32's compute reads the column index that the next iterations' address
  // code advances (a loop-carried register both sides use).
  for (const auto& [kernel, reason] : {std::pair<std::string, std::string>{"kb_softmax_f32", "not enough free VGPRs"},
                                       {"argmax_rows_f32", "do not commute"}}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto p = program::Program::recover(load(k.code_object));
    const program::Function* f = p.function(kernel);
    std::string all;
    for (size_t b = 0; b < f->blocks.size(); ++b)
      if (std::find(f->blocks[b].succs.begin(), f->blocks[b].succs.end(), b) != f->blocks[b].succs.end())
        all += search::loop_pipeline_refusal(p, kernel, b, 8) + "; ";
    EXPECT_NE(all.find(reason), std::string::npos) << kernel << ": " << all;
  }
}

// Every self-loop of the gfx942 corpus gets a plan (some factor pipelines it) or a reason per factor; the
// survey prints one line per loop (the breakdown in docs/search.md comes from it).
TEST(LoopPipelineTest, EveryCorpusSelfLoopGetsAPlanOrAReason) {
  std::map<std::string, std::set<std::string>> planned_kernels;  // arch -> kernels
  for (const char* arch : {"gfx942", "gfx90a", "gfx950"}) {
    size_t loops = 0, planned = 0;
    for (const corpus::Kernel& k : corpus::kernels(arch)) {
      auto p = program::Program::recover(load(k.code_object));
      const program::Function* f = p.function(k.name);
      if (!f) continue;
      for (size_t b = 0; b < f->blocks.size(); ++b) {
        if (std::find(f->blocks[b].succs.begin(), f->blocks[b].succs.end(), b) == f->blocks[b].succs.end()) continue;
        ++loops;
        std::string line;
        bool any = false;
        for (unsigned factor : {16u, 8u, 4u, 3u, 2u}) {
          const std::string why = search::loop_pipeline_refusal(p, k.name, b, factor);
          any |= why.empty();
          line += fmt::format(" k{}: {};", factor, why.empty() ? "PLAN" : why);
          if (factor == 16 && !why.empty() && why.find("VGPR") == std::string::npos) break;  // the same reason for every factor
        }
        planned += any;
        if (any) planned_kernels[arch].insert(k.name);
        if (std::string(arch) == "gfx942")
          std::cout << "[loop-pipeline] " << k.name << " block " << b
                    << fmt::format(" (0x{:x}..0x{:x}):", p.text_line(f->blocks[b].first).address, p.text_line(f->blocks[b].last).address) << line << "\n";
      }
    }
    std::cout << "[loop-pipeline] a plan for " << planned << " of " << loops << " " << arch << " self-loops in " << planned_kernels[arch].size() << " kernels\n";
    if (std::string(arch) == "gfx942") EXPECT_GE(planned, 48u);  // 28 before scalar loads and lane-mask renaming, 36 before stores, 47 before `counter < bound` exits
  }
  // The loops these three opened: scalar weight loads (the convolutions, attention's score loop), a lane
  // mask shared by compute and exit test, and Triton's `counter < bound` exit (argmax_kernel).
  for (const char* kernel : {"conv1d_f32", "kb_conv2d_f32", "kb_conv2d_relu_bias_f32", "kb_depthwise_conv2d_f32", "attention_decode_f32",
                             "kb_huber_loss_f32", "cross_entropy_rows_f32", "log_softmax_rows_f32", "argmax_kernel"})
    EXPECT_TRUE(planned_kernels["gfx942"].count(kernel)) << kernel;
}

// Scalar loads in the body (the convolutions' uniform weights, `s_load_dword sW, s[..]`): their SGPRs are
// renamed per iteration like the VGPRs, and the lgkmcnt(0) waits stay (they wait for the later
// iterations' scalar loads too). conv1d_f32: every factor (16, 8, 4, 3, 2) on trip counts 0 .. 17.
TEST(LoopPipelineTest, ScalarLoadLoopsPipelineAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"conv1d_f32"}).at(0);
  auto k0 = load(k.code_object);
  auto p = program::Program::recover(k0);
  auto edits = propose_whole(*move, p, k.name);
  ASSERT_EQ(edits.size(), 5u);
  const std::string spec = conv1d_trips_spec();
  for (const search::Edit& e : edits) {
    EXPECT_NE(e.description.find("(1 scalar)"), std::string::npos) << e.description;
    auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
    auto report = checked(k1, k.name);
    EXPECT_TRUE(report.clean()) << e.description << "\n" << report.to_text();
    EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << e.description << "\n" << e.diff();
  }
  // The launches run the copies: in the 16-iteration copy, one iteration reading the next one's weight
  // register (the renamed s_load result) is told apart.
  search::Edit wrong = edits[0];
  bool changed = false;
  for (search::Hunk& h : wrong.hunks)
    for (std::string& l : h.lines)
      if (!changed && l.rfind("v_fmac_f32_e32 v5, s", 0) == 0 && l.find("s17") == std::string::npos) {
        l = "v_fmac_f32_e32 v5, s17, " + l.substr(l.rfind(' ') + 1);
        changed = true;
      }
  ASSERT_TRUE(changed) << edits[0].diff();
  EXPECT_NE(verdict(k0, rebuilt(search::apply_edit(p, wrong), "k1.co"), spec), verify::Verdict::Equivalent) << wrong.diff();
  // gfx90a (64-bit address steps with VCC carries) and gfx950: factor 3 on the same trip counts.
  for (const char* arch : {"gfx90a", "gfx950"}) {
    const corpus::Kernel ka = corpus::kernels(arch, {"conv1d_f32"}).at(0);
    auto a0 = load(ka.code_object);
    auto pa = program::Program::recover(a0);
    std::optional<search::Edit> three;
    for (search::Edit& e : propose_whole(*move, pa, ka.name))
      if (e.description.find("pipelined by 3") != std::string::npos) three = e;
    ASSERT_TRUE(three) << ka.label();
    auto a1 = rebuilt(search::apply_edit(pa, *three), "k1.co");
    EXPECT_TRUE(checked(a1, ka.name).clean()) << ka.label();
    EXPECT_EQ(verdict(a0, a1, spec), verify::Verdict::Equivalent) << ka.label() << "\n" << three->diff();
  }
  // The 2-D convolution (a 3x3 filter: 3 iterations per row, so factor 3 runs the whole row in the copy) on its spec.
  const corpus::Kernel conv = corpus::kernels("gfx942", {"kb_conv2d_f32"}).at(0);
  auto c0 = load(conv.code_object);
  auto cp = program::Program::recover(c0);
  std::optional<search::Edit> three;
  for (search::Edit& e : propose_whole(*move, cp, conv.name))
    if (e.description.find("pipelined by 3") != std::string::npos) three = e;
  ASSERT_TRUE(three);
  auto c1 = rebuilt(search::apply_edit(cp, *three), "k1.co");
  EXPECT_TRUE(checked(c1, conv.name).clean());
  EXPECT_EQ(verdict(c0, c1, asmevo::testing::spec_without_perf(conv.spec)), verify::Verdict::Equivalent) << three->diff();
}

// A lane mask the compute writes (VCC or an SGPR pair, `v_cmp` then `v_cndmask`) that the next
// iteration's exit compare also writes: renamed to a fresh SGPR pair per iteration (VCC's 32-bit
// encodings become VOP3). kb_huber_loss_f32 (VCC), cross_entropy_rows_f32 (s[0:1]), log_softmax_rows_f32
// (VCC) on rows of 19-20 iterations per lane.
TEST(LoopPipelineTest, LaneMaskRenamingVerifiesEquivalent) {
  auto move = search::make_loop_pipeline_move();
  for (const std::string kernel : {"kb_huber_loss_f32", "cross_entropy_rows_f32", "log_softmax_rows_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    std::vector<search::Edit> renaming;
    for (search::Edit& e : propose_whole(*move, p, k.name))
      if (e.description.find(" 0 SGPR(s)") == std::string::npos && renaming.size() < 2) renaming.push_back(e);
    ASSERT_EQ(renaming.size(), 2u) << kernel;
    const std::string spec = long_rows_spec(kernel);
    for (const search::Edit& e : renaming) {
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << kernel << "\n" << e.description << "\n" << report.to_text();
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << "\n" << e.description << "\n" << e.diff();
    }
  }
}

TEST(LoopPipelineTest, RefusesPartialScalarWaitsAndUnencodableMasks) {
  // A partial lgkmcnt with a scalar load in the body would count the later iterations' scalar loads,
  // which return out of order.
  auto partial = kernel_with("conv1d_f32", "v_fmac_f32_e32 v5, s17, v1", {"s_waitcnt lgkmcnt(1)"});
  EXPECT_NE(search::loop_pipeline_refusal(partial, "conv1d_f32", self_loop(partial, "conv1d_f32"), 4).find("a partial lgkmcnt"), std::string::npos)
      << search::loop_pipeline_refusal(partial, "conv1d_f32", self_loop(partial, "conv1d_f32"), 4);
  // A 32-bit carry op reading the renamed VCC: only VOPC and v_cndmask are rewritten to their VOP3 forms.
  auto literal = kernel_with("kb_huber_loss_f32", "v_add_f32_e32 v1, v1, v6", {"v_addc_co_u32_e32 v6, vcc, 0, v6, vcc"});
  const std::string why = search::loop_pipeline_refusal(literal, "kb_huber_loss_f32", self_loop(literal, "kb_huber_loss_f32"), 4);
  EXPECT_NE(why.find("cannot name an SGPR pair for VCC"), std::string::npos) << why;
}

// relu_f32 with `n` elements over 2 workgroups of 64 (grid stride 128: 9-10 iterations per lane at 1189);
// x in-out (with `x_extra` more elements) so that a kernel that writes x is compared on it too.
std::string relu_rows_spec(int n, int x_extra = 0) {
  const auto path = asmevo::testing::scratch_dir("loop_pipeline", "") / fmt::format("relu_f32_{}_{}.yaml", n, x_extra);
  write_file_atomic(path.string(), fmt::format("kernel: relu_f32\ngrid: [2, 1, 1]\nblock: [64, 1, 1]\ndynamic_lds: 0\nseed: 7\ninputs: 2\nspecial: true\nargs:\n"
                                               "  - {{name: x, buffer: f32, count: {1}, init: {{normal: [0, 1]}}, inout: true}}\n"
                                               "  - {{name: y, buffer: f32, count: {0}, output: true}}\n  - {{name: n, value: {0}, type: i32}}\n",
                                               n, n + x_extra));
  return path.string();
}

// A loop that stores (relu_f32's grid-stride loop: load x[i], store y[i]): the later iterations' loads pass
// the earlier stores behind the alias guard. Every factor (8, 4, 3, 2; 9-10 iterations per lane, so each
// copy runs, then the original for the rest) checks clean and verifies EQUIVALENT.
TEST(LoopPipelineTest, StoreLoopsPipelineBehindAnAliasGuardAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  const corpus::Kernel k = corpus::kernels("gfx942", {"relu_f32"}).at(0);
  auto k0 = load(k.code_object);
  auto p = program::Program::recover(k0);
  auto edits = propose_whole(*move, p, k.name);
  // 16 as well: the loaded v1's 16 registers are one block (loop_pipeline.cpp), which leaves room for v[4:5]'s copies below v64.
  EXPECT_EQ(search::loop_pipeline_refusal(p, k.name, self_loop(p, k.name), 16), "");
  ASSERT_EQ(edits.size(), 5u);
  const std::string spec = relu_rows_spec(1189);
  for (const search::Edit& e : edits) {
    EXPECT_NE(e.description.find("alias guard (1 store(s)"), std::string::npos) << e.description;
    auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
    auto report = checked(k1, k.name);
    EXPECT_TRUE(report.clean()) << e.description << "\n" << report.to_text();
    EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << e.description << "\n" << e.diff();
    EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << e.description;
  }
}

// The alias guard decides: relu_f32 changed to also store relu(x[i]) into x[i + stride] (offset:512 = the
// 128-lane grid stride in bytes), which the next iteration loads. The guard sees E = 512 - 512 = 0 and
// sends every wave to the original loop: EQUIVALENT. The same edit without the guard's pair checks
// (the lines after its lane-spread branch) loads x[i + stride] before the store: told apart.
TEST(LoopPipelineTest, AliasGuardFallsBackWhereAStoreFeedsALaterLoad) {
  const std::string update = "v_lshl_add_u64 v[2:3], v[2:3], 0, s[2:3]";
  auto chained = kernel_with("relu_f32", update, {"v_lshl_add_u64 v[6:7], s[4:5], 0, v[2:3]"});
  {
    const size_t at = find_line(chained, "relu_f32", "s_andn2_b64 exec, exec, s[8:9]");
    ASSERT_NE(at, 0u);
    search::Edit e;
    e.kernel = "relu_f32";
    e.hunks.push_back(search::make_insertion(at, {"global_store_dword v[6:7], v1, off offset:512"}));
    chained = program::Program::recover(rebuilt(search::apply_edit(chained, e), "k1.co"));
  }
  const auto k0 = rebuilt(chained, "k0.co");
  auto move = search::make_loop_pipeline_move();
  std::optional<search::Edit> four;
  for (search::Edit& e : propose_whole(*move, chained, "relu_f32"))
    if (e.description.find("pipelined by 4") != std::string::npos) four = e;
  ASSERT_TRUE(four) << search::loop_pipeline_refusal(chained, "relu_f32", self_loop(chained, "relu_f32"), 4);
  EXPECT_NE(four->description.find("2 store(s)"), std::string::npos) << four->description;
  const std::string spec = relu_rows_spec(1189, 128);  // the last iteration's x[i + stride]
  auto k1 = rebuilt(search::apply_edit(chained, *four), "k1.co");
  EXPECT_TRUE(checked(k1, "relu_f32").clean());
  EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << four->diff();
  // Without the pair checks: every `s_cbranch_scc0` of the guard (only the pair checks use it) dropped.
  search::Edit unguarded = *four;
  size_t dropped = 0;
  for (search::Hunk& h : unguarded.hunks)
    dropped += std::erase_if(h.lines, [](const std::string& l) { return l.rfind("s_cbranch_scc0 ", 0) == 0; });
  ASSERT_GT(dropped, 0u);
  EXPECT_NE(verdict(k0, rebuilt(search::apply_edit(chained, unguarded), "k2.co"), spec), verify::Verdict::Equivalent) << unguarded.diff();
}

// Stores the guard cannot read: an address from another offset register.
TEST(LoopPipelineTest, RefusesStoresTheAliasGuardCannotRead) {
  auto other = kernel_with("relu_f32", "v_lshl_add_u64 v[2:3], v[2:3], 0, s[2:3]", {"v_lshl_add_u64 v[6:7], s[4:5], 0, v[0:1]"});
  const size_t at = find_line(other, "relu_f32", "s_andn2_b64 exec, exec, s[8:9]");
  ASSERT_NE(at, 0u);
  search::Edit e;
  e.kernel = "relu_f32";
  e.hunks.push_back(search::make_insertion(at, {"global_store_dword v[6:7], v1, off"}));
  auto p = program::Program::recover(rebuilt(search::apply_edit(other, e), "k1.co"));
  const std::string why = search::loop_pipeline_refusal(p, "relu_f32", self_loop(p, "relu_f32"), 4);
  EXPECT_NE(why.find("different offset registers"), std::string::npos) << why;
}

// Store loops whose offset is the 32-bit index sign-extended and shifted each iteration (`v_ashrrev_i32`,
// `v_lshlrev_b64 vO, 2, ...`, the index stepped by a loop-invariant add, SDWA included): the guard also
// checks the step is the same on every lane and the index stays in int32 over the K iterations. axpy_f32
// (shift 2), axpy_f64 (3), rmsnorm_f16's output loop (1), the output loops of kb_softmax_f32,
// kb_log_softmax_f32 and kb_layernorm_f32, on 7-20 iterations per lane: each (the first two per kernel)
// checks clean and verifies EQUIVALENT.
TEST(LoopPipelineTest, SignExtendedIndexStoreLoopsVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  for (const std::string kernel : {"axpy_f32", "axpy_f64", "rmsnorm_f16", "kb_softmax_f32", "kb_log_softmax_f32", "kb_layernorm_f32"}) {
    const corpus::Kernel k = corpus::kernels("gfx942", {kernel}).at(0);
    auto k0 = load(k.code_object);
    auto p = program::Program::recover(k0);
    std::vector<search::Edit> stores;
    for (search::Edit& e : propose_whole(*move, p, k.name))
      if (e.description.find("alias guard") != std::string::npos && stores.size() < 2) stores.push_back(e);
    ASSERT_GE(stores.size(), 1u) << kernel;  // kb_layernorm_f32: its first two loops' edits fill the move's edit cap but one
    // rmsnorm_f16's own spec has rows of 1000 columns over 128 lanes (7-8 iterations a lane).
    const std::string spec = kernel == "rmsnorm_f16" ? asmevo::testing::spec_without_perf(k.spec) : long_rows_spec(kernel);
    for (const search::Edit& e : stores) {
      auto k1 = rebuilt(search::apply_edit(p, e), "k1.co");
      auto report = checked(k1, k.name);
      EXPECT_TRUE(report.clean()) << kernel << "\n" << e.description << "\n" << report.to_text();
      EXPECT_EQ(verdict(k0, k1, spec), verify::Verdict::Equivalent) << kernel << "\n" << e.description << "\n" << e.diff();
      EXPECT_EQ(verdict(k0, k1, asmevo::testing::spec_without_perf(k.spec)), verify::Verdict::Equivalent) << kernel << "\n" << e.description;
    }
  }
}
