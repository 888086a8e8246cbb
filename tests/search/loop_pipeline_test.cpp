// search/moves/loop_pipeline.cpp on corpus kernels: each edit checks clean and verifies EQUIVALENT on
// the spec's small launches (trip counts below, at and above the unroll factor); and the loops it must
// refuse, with the reason.
#include <gtest/gtest.h>

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
program::Program sum_with(const std::string& before, const std::vector<std::string>& lines) {
  const corpus::Kernel k = corpus::kernels("gfx942", {"kb_sum_dim1_f32"}).at(0);
  auto p = program::Program::recover(load(k.code_object));
  const size_t at = find_line(p, k.name, before);
  EXPECT_NE(at, 0u) << before;
  search::Edit e;
  e.kernel = k.name;
  e.hunks.push_back(search::make_insertion(at, lines));
  return program::Program::recover(rebuilt(search::apply_edit(p, e), "k1.co"));
}

// Long rows for the row-per-workgroup and grid-stride kernels: the corpus specs' rows take at most 7 iterations per lane,
// fewer than the unroll factors, so their copies would never run. 1223 columns over 64 lanes: 19 or 20
// iterations per lane, lanes leaving at different iterations (the guard's fallback at the end).
std::string long_rows_spec(const std::string& kernel) {
  const auto path = asmevo::testing::scratch_dir("loop_pipeline", "") / (kernel + "_long.yaml");
  std::string args;
  if (kernel == "kb_softmax_f32")
    args = "  - {name: x, buffer: f32, count: 2446, init: {normal: [0, 3]}}\n  - {name: y, buffer: f32, count: 2446, output: true}\n"
           "  - {name: rows, value: 2, type: i32}\n  - {name: cols, value: 1223, type: i32}\n";
  else if (kernel == "kb_matvec_f32")
    args = "  - {name: A, buffer: f32, count: 2446, init: {normal: [0, 1]}}\n  - {name: x, buffer: f32, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: y, buffer: f32, count: 2, output: true}\n  - {name: M, value: 2, type: i32}\n  - {name: K, value: 1223, type: i64}\n";
  else if (kernel == "kb_mse_loss_f32")  // one workgroup: the grid stride is 64
    args = "  - {name: a, buffer: f32, count: 1223, init: {normal: [0, 1.5]}}\n  - {name: b, buffer: f32, count: 1223, init: {normal: [0, 1]}}\n"
           "  - {name: loss, buffer: f32, count: 1, init: zeros, inout: true}\n  - {name: n, value: 1223, type: i64}\n";
  else
    args = "  - {name: x, buffer: f32, count: 2446, init: {normal: [1, 2]}}\n  - {name: weight, buffer: f32, count: 1223, init: {normal: [1, 0.1]}}\n"
           "  - {name: bias, buffer: f32, count: 1223, init: {normal: [0, 0.1]}}\n  - {name: y, buffer: f32, count: 2446, output: true}\n"
           "  - {name: batch, value: 2, type: i32}\n  - {name: n, value: 1223, type: i32}\n  - {name: eps, value: 1e-5, type: f32}\n";
  const std::string grid = kernel == "kb_mse_loss_f32" ? "[1, 1, 1]" : "[2, 1, 1]";
  write_file_atomic(path.string(), "kernel: " + kernel + "\ngrid: " + grid + "\nblock: [64, 1, 1]\ndynamic_lds: 0\nseed: 7\ninputs: 2\nspecial: true\nargs:\n" + args);
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
  EXPECT_EQ(n, 5u);  // argmax renames 3 VGPRs per iteration: 16 iterations do not fit below v64
  const corpus::Kernel argmax = corpus::kernels("gfx942", {"kb_argmax_dim1_f32"}).at(0);
  auto p = program::Program::recover(load(argmax.code_object));
  EXPECT_NE(search::loop_pipeline_refusal(p, argmax.name, self_loop(p, argmax.name), 16).find("not enough free VGPRs"), std::string::npos);
}

TEST(LoopPipelineTest, DivergentLoopsPipelineAndVerifyEquivalent) {
  auto move = search::make_loop_pipeline_move();
  // kb_max_dim1_f32: a per-lane down-counter (29 iterations); the row kernels on 19-20 iterations per lane.
  std::string fired;
  EXPECT_EQ(judge_edits(*move, {"kb_max_dim1_f32"}, 3, &fired), 2u);  // 8 and 4 (16: the VGPRs again)
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
  // A store in the body may alias a later iteration's load.
  auto stored = sum_with(wait, {"global_store_dword v[2:3], v4, off"});
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
