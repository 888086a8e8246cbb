// The corpus specs' boundary-launch rule (docs/verify.md "The corpus specs' ranges"): every integer
// value argument either has a `vary:` range that ends at its declared value, or says why not, and a
// comment above it gives the reason from the kernel's source either way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "corpus/index/corpus.h"
#include "emu/launch_spec.h"
#include "support/file_io.h"

using namespace asmevo;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  for (size_t p = 0; p <= text.size();) {
    size_t q = text.find('\n', p);
    if (q == std::string::npos) q = text.size();
    out.push_back(text.substr(p, q - p));
    p = q + 1;
  }
  return out;
}

}  // namespace

TEST(CorpusVary, EveryIntegerArgumentIsVariedOrSaysWhyNot) {
  size_t specs = 0, varied = 0, fixed = 0;
  for (const fs::path& dir : {fs::path(corpus::hip_spec("x")).parent_path(), fs::path(corpus::triton_spec("x")).parent_path()})
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      ++specs;
      const emu::LaunchSpec spec = emu::load_launch_spec(e.path().string());
      const std::vector<std::string> lines = lines_of(read_file_text(e.path().string()));
      for (const auto& a : spec.args) {
        if (a.kind != emu::ArgSpec::Value || emu::dtype_is_float(a.dtype)) continue;
        ASSERT_GE(a.line, 2) << e.path() << " " << a.name;
        const std::string& above = lines.at(a.line - 2);
        const std::string where = e.path().filename().string() + ":" + std::to_string(a.line) + " " + a.name;
        if (a.vary) {
          ++varied;
          EXPECT_NE(above.find("# " + a.name + " vary: "), std::string::npos) << where << ": no `# " << a.name << " vary: why` above it";
          EXPECT_EQ(std::to_string(a.vary->second), a.value) << where << ": the range must end at the declared value (the buffers are sized for it)";
          EXPECT_GE(a.vary->first, 0) << where << ": sizes below 0";
        } else {
          ++fixed;
          EXPECT_NE(above.find("# " + a.name + " not varied: "), std::string::npos) << where << ": no `# " << a.name << " not varied: why` above it";
        }
      }
    }
  EXPECT_GT(specs, 80u);
  EXPECT_GT(varied, 100u);
  EXPECT_GT(fixed, 10u);
}
