// The campaign manifest: what init writes reads back, the user's edits are honoured, and every
// malformed manifest is refused with the file and line and a fix.
#include "campaign/manifest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/error.h"
#include "temp_dir.h"

namespace asmevo::campaign {
namespace {

using test::TempDir;

Manifest sample(const std::string& dir) {
  Manifest m;
  m.dir = dir;
  m.defaults.budget = 50;
  m.defaults.seed = 7;
  Task a;
  a.id = "vector_add";
  a.kernel = "vector_add";
  a.object = "/data/in/vector_add.co";
  a.object_hash = "0123456789abcdef";
  a.specs = {"/data/in/vector_add.yaml", "/data/in/vector_add \"odd\" name.yaml"};
  a.origin = "/data/in";
  Task b = a;
  b.id = "relu_f32.gfx90a";
  b.kernel = "relu_f32";
  b.priority = -3;
  b.skip = true;
  b.settings.budget = 999;
  b.settings.threads = 4;
  b.settings.proposers = "rules";
  b.settings.optimize_args = std::vector<std::string>{"--windows", "8"};
  m.tasks = {a, b};
  return m;
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

Error load_error(const std::string& dir) {
  try {
    load_manifest(dir);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "the manifest was accepted";
  return Error("accepted");
}

TEST(Manifest, RoundTripsAndMergesSettings) {
  TempDir tmp;
  write_manifest(sample(tmp.path.string()));
  Manifest m = load_manifest(tmp.path.string());
  ASSERT_EQ(m.tasks.size(), 2u);
  EXPECT_EQ(m.tasks[0].specs, sample("").tasks[0].specs);
  EXPECT_EQ(m.tasks[0].object_hash, "0123456789abcdef");
  EXPECT_EQ(m.tasks[1].priority, -3);
  EXPECT_TRUE(m.tasks[1].skip);
  const Effective a = m.effective(m.tasks[0]), b = m.effective(m.tasks[1]);
  EXPECT_EQ(a.budget, 50u);         // the campaign's default
  EXPECT_EQ(a.seed, 7u);
  EXPECT_EQ(a.proposers, "rules,stochastic");  // built in
  EXPECT_EQ(b.budget, 999u);        // the task's own
  EXPECT_EQ(b.threads, 4u);
  EXPECT_EQ(b.proposers, "rules");
  EXPECT_EQ(b.optimize_args, (std::vector<std::string>{"--windows", "8"}));
  EXPECT_TRUE(a.optimize_args.empty());
  EXPECT_EQ(task_store(m, "relu_f32.gfx90a"), tmp / "tasks/relu_f32.gfx90a/store.sqlite");
  EXPECT_EQ(manifest_yaml(m), manifest_yaml(load_manifest(tmp.path.string())));  // stable
}

TEST(Manifest, RefusesMalformedManifestsWithLineAndFix) {
  TempDir tmp;
  const std::string file = tmp / "campaign.yaml";
  const std::string good = manifest_yaml(sample(tmp.path.string()));
  struct Case {
    std::string from, to, message;
  };
  for (const Case& c : std::vector<Case>{
           {"    priority: 0\n", "    priority: 0\n    budjet: 5\n", "unknown key 'budjet'"},
           {"id: \"relu_f32.gfx90a\"", "id: \"vector_add\"", "appears twice"},
           {"id: \"relu_f32.gfx90a\"", "id: \"../escape\"", "not a safe file name"},
           {"schema: asmevo.campaign/1", "schema: asmevo.campaign/9", "schema"},
           {"    skip: true\n", "    skip: maybe\n", "'skip' must be a boolean"},
           {"  budget: 50\n", "  budget: 0\n", "needs a time limit"},
           {"  budget: 50\n", "  threads: 0\n", "at least 1"},
       }) {
    std::string text = good;
    const size_t at = text.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    text.replace(at, c.from.size(), c.to);
    write_text(file, text);
    Error e = load_error(tmp.path.string());
    EXPECT_NE(e.what_text().find(c.message), std::string::npos) << e.format();
    EXPECT_NE(e.where().find("campaign.yaml"), std::string::npos) << e.format();
  }
  // Missing fields and a missing manifest.
  write_text(file, "schema: asmevo.campaign/1\ntasks:\n  - id: a\n    kernel: k\n");
  Error missing = load_error(tmp.path.string());
  EXPECT_NE(missing.what_text().find("has no 'object'"), std::string::npos) << missing.format();
  EXPECT_NE(missing.where().find("campaign.yaml:3"), std::string::npos) << missing.format();
  std::filesystem::remove(file);
  Error none = load_error(tmp.path.string());
  EXPECT_NE(none.fix().find("campaign init"), std::string::npos) << none.format();
}

}  // namespace
}  // namespace asmevo::campaign
