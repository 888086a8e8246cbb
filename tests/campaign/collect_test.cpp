// campaign init's input forms and pairing rules (campaign/collect.h) on corpus objects, and the
// CLI's refusals.
#include "campaign/collect.h"
#include "campaign/state.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>

#include "corpus/index/corpus.h"
#include "support/error.h"
#include "temp_dir.h"

namespace asmevo::campaign {
namespace {
namespace fs = std::filesystem;
using test::TempDir;

void copy(const std::string& from, const std::string& to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

std::string hip(const std::string& file, const std::string& arch = "gfx942") { return corpus::hip_object(arch, file); }

Error collect_error(const std::vector<std::string>& inputs, const std::vector<std::string>& specs = {}) {
  try {
    collect(inputs, specs);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "collect accepted the inputs";
  return Error("accepted");
}

TEST(Collect, PlainFolderPairsByStemAndByKernel) {
  TempDir tmp;
  copy(hip("vector_add.co"), tmp / "in/vector_add.co");
  copy(corpus::hip_spec("vector_add"), tmp / "in/vector_add.yaml");          // same stem
  copy(hip("axpy.co"), tmp / "in/sub/axpy.co");                              // holds axpy_f32 and axpy_f64
  copy(corpus::hip_spec("axpy_f32"), tmp / "in/specs/axpy_f32.yaml");        // kernel found in the one object defining it
  std::ofstream(tmp / "in/notes.yaml") << "title: not a launch spec\n";      // ignored
  Collected c = collect({tmp / "in"}, {});
  ASSERT_EQ(c.tasks.size(), 2u);
  EXPECT_EQ(c.tasks[0].id, "axpy_f32");
  EXPECT_EQ(c.tasks[0].object, tmp / "in/sub/axpy.co");
  EXPECT_EQ(c.tasks[0].specs, std::vector<std::string>{tmp / "in/specs/axpy_f32.yaml"});
  EXPECT_EQ(c.tasks[1].id, "vector_add");
  EXPECT_EQ(c.tasks[0].object_hash.size(), 16u);
  ASSERT_EQ(c.without_spec.size(), 1u);
  EXPECT_NE(c.without_spec[0].find("axpy_f64"), std::string::npos);
}

TEST(Collect, CaptureLayoutObjectsByHashAndASpecPerKernel) {
  // Issue 18's capture folder: code objects named by content hash, one spec per kernel elsewhere.
  TempDir tmp;
  copy(hip("relu.co"), tmp / "cap/objects/0f1e2d3c4b5a6978.co");
  copy(hip("vector_add.co"), tmp / "cap/objects/8877665544332211.co");
  copy(corpus::hip_spec("relu_f32"), tmp / "cap/kernels/relu_f32/launch.yaml");
  copy(corpus::hip_spec("vector_add"), tmp / "cap/kernels/vector_add/launch.yaml");
  Collected c = collect({tmp / "cap"}, {});
  ASSERT_EQ(c.tasks.size(), 2u);
  EXPECT_EQ(c.tasks[0].kernel, "relu_f32");
  EXPECT_EQ(c.tasks[0].object, tmp / "cap/objects/0f1e2d3c4b5a6978.co");
  EXPECT_EQ(c.tasks[1].kernel, "vector_add");
}

TEST(Collect, TritonCacheWithSharedSpecsOneTaskPerEntry) {
  // <hash>/<kernel>.hsaco + metadata for two archs; --specs applies the kernel's spec to both.
  TempDir tmp;
  for (const char* arch : {"gfx942", "gfx90a"}) {
    const std::string h = std::string("hash-") + arch;
    copy(corpus::triton_object(arch, "vector_add_kernel"), tmp / ("cache/" + h + "/vector_add_kernel.hsaco"));
    copy(fs::path(corpus::triton_object(arch, "vector_add_kernel")).replace_extension(".json").string(),
         tmp / ("cache/" + h + "/vector_add_kernel.json"));
  }
  copy(corpus::triton_object("gfx942", "vector_add_kernel"), tmp / "cache/again/vector_add_kernel.hsaco");  // identical bytes: one task
  copy(corpus::triton_spec("vector_add_kernel"), tmp / "specs/vector_add_kernel.yaml");
  copy(corpus::triton_spec("softmax_kernel"), tmp / "specs/softmax_kernel.yaml");  // no such object: reported
  Collected c = collect({tmp / "cache"}, {tmp / "specs"});
  ASSERT_EQ(c.tasks.size(), 2u);
  EXPECT_EQ(c.tasks[0].id, "vector_add_kernel.gfx942");  // "again" sorts first and holds the gfx942 bytes
  EXPECT_EQ(c.tasks[1].id, "vector_add_kernel.gfx90a");
  ASSERT_EQ(c.unused_specs.size(), 1u);
  EXPECT_NE(c.unused_specs[0].find("softmax_kernel"), std::string::npos);
}

TEST(Collect, SpecsFolderInsideAnInputIsShared) {
  // `campaign init corpus/triton --specs corpus/triton/launch`: the specs apply to every arch.
  TempDir tmp;
  for (const char* arch : {"gfx942", "gfx90a"})
    copy(corpus::triton_object(arch, "rmsnorm_kernel"), tmp / (std::string("triton/") + arch + "/rmsnorm_kernel.hsaco"));
  copy(corpus::triton_spec("rmsnorm_kernel"), tmp / "triton/launch/rmsnorm_kernel.yaml");
  Collected c = collect({tmp / "triton"}, {tmp / "triton/launch"});
  ASSERT_EQ(c.tasks.size(), 2u);
  EXPECT_EQ(c.tasks[0].id, "rmsnorm_kernel.gfx90a");
  EXPECT_EQ(c.tasks[1].id, "rmsnorm_kernel.gfx942");
  EXPECT_TRUE(c.unused_specs.empty());
}

TEST(Collect, ListFileRelativePathsAndComments) {
  TempDir tmp;
  copy(hip("relu.co"), tmp / "l/objs/relu.co");
  copy(corpus::hip_spec("relu_f32"), tmp / "l/relu_f32.yaml");
  std::ofstream(tmp / "l/tasks.list") << "# kernels to optimize\n\nobjs/relu.co relu_f32.yaml  # the relu\n";
  Collected c = collect({tmp / "l/tasks.list"}, {});
  ASSERT_EQ(c.tasks.size(), 1u);
  EXPECT_EQ(c.tasks[0].object, tmp / "l/objs/relu.co");
  std::ofstream(tmp / "l/bad.list") << "objs/relu.co relu_f32.yaml\nobjs/relu.co\n";
  Error e = collect_error({tmp / "l/bad.list"});
  EXPECT_NE(e.where().find("bad.list:2"), std::string::npos) << e.format();
}

TEST(Collect, RefusesAmbiguousAndMismatchedInputs) {
  TempDir tmp;
  // The same kernel in two different objects of one input, its spec beside neither.
  copy(hip("vector_add.co", "gfx942"), tmp / "a/x/vector_add.co");
  copy(hip("vector_add.co", "gfx90a"), tmp / "a/y/vector_add.co");
  copy(corpus::hip_spec("vector_add"), tmp / "a/specs/vector_add.yaml");
  Error several = collect_error({tmp / "a"});
  EXPECT_NE(several.what_text().find("several objects"), std::string::npos) << several.format();
  EXPECT_NE(several.fix().find("--specs"), std::string::npos);
  // A spec beside an object that lacks its kernel.
  copy(hip("relu.co"), tmp / "b/relu.co");
  copy(corpus::hip_spec("vector_add"), tmp / "b/relu.yaml");
  Error wrong = collect_error({tmp / "b"});
  EXPECT_NE(wrong.what_text().find("does not define"), std::string::npos) << wrong.format();
  // A code object given where a folder or list file belongs; a missing input.
  Error elf = collect_error({hip("relu.co")});
  EXPECT_NE(elf.fix().find("list file"), std::string::npos) << elf.format();
  Error none = collect_error({tmp / "nope"});
  EXPECT_NE(none.what_text().find("no such file"), std::string::npos) << none.format();
  // A broken launch spec is an error naming it, not a silently dropped kernel.
  copy(hip("relu.co"), tmp / "c/relu.co");
  std::ofstream(tmp / "c/relu.yaml") << "kernel: relu_f32\ngrid: [1, 1]\n";
  Error broken = collect_error({tmp / "c"});
  EXPECT_NE(broken.format().find("relu.yaml"), std::string::npos) << broken.format();
}

TEST(CampaignCli, InitRefusesAnExistingCampaignAndRunNeedsOne) {
  TempDir tmp;
  copy(hip("relu.co"), tmp / "in/relu.co");
  copy(corpus::hip_spec("relu_f32"), tmp / "in/relu.yaml");
  const std::string cli = ASMEVO_CLI;
  const std::string quiet = " > " + tmp / "out.txt" + " 2>&1";
  auto run = [&](const std::string& args) {
    int rc = std::system((cli + " " + args + quiet).c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  auto output = [&] {
    std::ifstream in(tmp / "out.txt");
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(run("campaign init " + tmp / "in" + " -o " + tmp / "c" + " --budget 5"), 0) << output();
  EXPECT_NE(output().find("1 task(s)"), std::string::npos) << output();
  const std::string before = [&] {
    std::ifstream in(tmp / "c/campaign.yaml");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }();
  EXPECT_EQ(run("campaign init " + tmp / "in" + " -o " + tmp / "c"), 2);
  EXPECT_NE(output().find("already exists"), std::string::npos) << output();
  std::ifstream again(tmp / "c/campaign.yaml");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), before);  // untouched
  EXPECT_EQ(run("campaign run " + tmp / "nothing"), 2);
  EXPECT_NE(output().find("campaign init"), std::string::npos) << output();
  EXPECT_EQ(run("campaign status " + tmp / "c"), 0) << output();
  EXPECT_NE(output().find("1 new"), std::string::npos) << output();
  EXPECT_EQ(run("campaign run " + tmp / "c" + " --engine slurm --dry-run"), 0) << output();
  EXPECT_TRUE(fs::exists(tmp / "c/slurm/array-1.sh"));
}

}  // namespace
}  // namespace asmevo::campaign

namespace asmevo::campaign {
namespace {

// Runs the CLI; returns its exit code and fills `out` with stdout and stderr.
int cli(const std::string& args, const TempDir& tmp, std::string& out) {
  const std::string log = tmp / "cli.txt";
  int rc = std::system((std::string(ASMEVO_CLI) + " " + args + " > " + log + " 2>&1").c_str());
  std::ifstream in(log);
  out.assign(std::istreambuf_iterator<char>(in), {});
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(CampaignCli, SkipBudgetRaiseAndChangedObject) {
  TempDir tmp;
  copy(hip("relu.co"), tmp / "in/relu.co");
  copy(corpus::hip_spec("relu_f32"), tmp / "in/relu.yaml");
  copy(hip("vector_add.co"), tmp / "in/vector_add.co");
  copy(corpus::hip_spec("vector_add"), tmp / "in/vector_add.yaml");
  std::string out;
  ASSERT_EQ(cli("campaign init " + tmp / "in" + " -o " + tmp / "c" + " --budget 2", tmp, out), 0) << out;
  Manifest m = load_manifest(tmp / "c");
  ASSERT_EQ(m.tasks.size(), 2u);
  ASSERT_EQ(m.tasks[1].id, "vector_add");
  m.tasks[1].skip = true;
  write_manifest(m);
  ASSERT_EQ(cli("campaign run " + tmp / "c" + " --engine local", tmp, out), 0) << out;
  auto status = [&] { return derive_status(load_manifest(tmp / "c")); };
  auto s = status();
  EXPECT_EQ(s[0].state, "done") << s[0].reason;
  EXPECT_EQ(s[0].store.candidates, 2u);
  EXPECT_EQ(s[1].state, "skipped");
  EXPECT_FALSE(fs::exists(tmp / "c/tasks/vector_add"));  // never started

  // A larger budget makes the done task incomplete; the next run resumes it from its store.
  m.tasks[0].settings.budget = 4;
  write_manifest(m);
  EXPECT_EQ(status()[0].state, "incomplete");
  ASSERT_EQ(cli("campaign run " + tmp / "c" + " --engine local", tmp, out), 0) << out;
  s = status();
  EXPECT_EQ(s[0].state, "done") << s[0].reason;
  EXPECT_EQ(s[0].store.candidates, 4u);
  ASSERT_TRUE(s[0].record);
  EXPECT_EQ(s[0].record->attempts, 2);
  std::ifstream log(tmp / "c/tasks/relu_f32/log.txt");
  EXPECT_NE(std::string(std::istreambuf_iterator<char>(log), {}).find("resuming from its store"), std::string::npos);

  // An object that changed since init is refused: its store belongs to the old bytes.
  copy(hip("vector_add.co"), tmp / "in/relu.co");
  m.tasks[0].settings.budget = 6;
  write_manifest(m);
  EXPECT_EQ(cli("campaign run " + tmp / "c" + " --engine local", tmp, out), 1) << out;
  s = status();
  EXPECT_EQ(s[0].state, "failed");
  EXPECT_NE(s[0].reason.find("changed since campaign init"), std::string::npos) << s[0].reason;
  EXPECT_EQ(s[0].store.candidates, 4u);  // nothing was added to the store
}

}  // namespace
}  // namespace asmevo::campaign
