// Offload bundles and host shared libraries built from the corpus: AsmEvo must extract exactly
// the code objects clang-offload-bundler unbundles, and the CLI must report them; bad input
// must give a clear error and exit code 2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <fstream>

#include "cli/inspect.h"
#include "codeobj/container.h"
#include "support/file_io.h"
#include "tests/support/corpus_files.h"
#include "corpus/index/corpus.h"

using asmevo::testing::CorpusFile;
using asmevo::testing::run_command;

namespace {

std::vector<CorpusFile> files_of_kind(const std::string& kind) {
  std::vector<CorpusFile> out;
  for (auto& f : asmevo::testing::corpus_files(ASMEVO_SOURCE_DIR, ASMEVO_BINARY_DIR))
    if (f.kind == kind) out.push_back(f);
  return out;
}

std::string temp_dir() {
  auto d = std::filesystem::temp_directory_path() / ("asmevo_containers_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d.string();
}

// Unbundles one entry with clang's own tool.
std::vector<uint8_t> unbundle(const std::string& bundle, const std::string& id, const std::string& dir) {
  std::string out = dir + "/unbundled.co";
  run_command(std::string(CLANG_OFFLOAD_BUNDLER) + " -type=o -targets=" + id + " -input='" + bundle + "' -output='" + out +
              "' -unbundle");
  return asmevo::read_file_bytes(out);
}

// Every extracted object must equal what clang-offload-bundler unbundles from its bundle; each
// bundle holds one object per corpus arch. `file` is the container the objects came from.
void expect_matches_bundler(const std::string& file, const std::vector<asmevo::codeobj::EmbeddedCodeObject>& objs,
                            const std::string& dir) {
  auto bytes = asmevo::read_file_bytes(file);
  std::map<uint64_t, std::vector<const asmevo::codeobj::EmbeddedCodeObject*>> by_bundle;
  for (const auto& o : objs) by_bundle[o.bundle_offset].push_back(&o);
  for (const auto& [start, members] : by_bundle) {
    ASSERT_EQ(members.size(), 3u) << "one code object per arch expected in the bundle at " << start;
    std::string bundle = dir + "/bundle.bin";
    asmevo::write_file_atomic(bundle, std::vector<uint8_t>(bytes.begin() + start, bytes.end()));
    for (const auto* o : members) EXPECT_EQ(o->bytes, unbundle(bundle, o->bundle_id, dir)) << o->origin;
  }
}

}  // namespace

TEST(Containers, BundlesFromTheCorpusMatchClangOffloadBundler) {
  auto bundles = files_of_kind("bundle");
  ASSERT_GE(bundles.size(), 1u);
  std::string dir = temp_dir();
  for (const auto& b : bundles) {
    auto bytes = asmevo::read_file_bytes(b.path);
    EXPECT_EQ(asmevo::codeobj::detect_container(bytes, b.path), asmevo::codeobj::ContainerKind::OffloadBundle);
    expect_matches_bundler(b.path, asmevo::codeobj::extract_code_objects(bytes, b.path), dir);
  }
  std::filesystem::remove_all(dir);
}

TEST(Containers, HostSharedLibrariesYieldTheirFatbinCodeObjects) {
  auto libs = files_of_kind("host-so");
  ASSERT_GE(libs.size(), 1u);
  std::string dir = temp_dir();
  for (const auto& lib : libs) {
    auto bytes = asmevo::read_file_bytes(lib.path);
    EXPECT_EQ(asmevo::codeobj::detect_container(bytes, lib.path), asmevo::codeobj::ContainerKind::HostElf);
    auto objs = asmevo::codeobj::extract_code_objects(bytes, lib.path);
    // Independent path: clang-offload-bundler unbundles each bundle AsmEvo located.
    expect_matches_bundler(lib.path, objs, dir);
    // And the bundles lie inside .hip_fatbin as llvm-objcopy sees it.
    std::string fatbin = dir + "/fatbin.bin";
    run_command(std::string(LLVM_OBJCOPY) + " --dump-section=.hip_fatbin='" + fatbin + "' '" + lib.path + "' " + dir + "/stripped.so");
    auto fb = asmevo::read_file_bytes(fatbin);
    for (const auto& o : objs) {
      auto at = std::search(fb.begin(), fb.end(), o.bytes.begin(), o.bytes.end());
      EXPECT_NE(at, fb.end()) << o.origin << " not found in .hip_fatbin";
    }

    auto report = asmevo::cli::inspect_report({lib.path, std::nullopt, true});
    EXPECT_EQ(report["container"], "host_elf");
    std::set<std::string> processors;
    for (const auto& co : report["code_objects"]) {
      processors.insert(co["processor"].get<std::string>());
      EXPECT_GE(co["kernels"].size(), 1u);
    }
    EXPECT_EQ(processors, (std::set<std::string>{"gfx90a", "gfx942", "gfx950"}));
  }
  std::filesystem::remove_all(dir);
}

TEST(Cli, MalformedInputExitsWithCodeTwoAndAClearMessage) {
  std::string dir = temp_dir();
  auto good = asmevo::read_file_bytes(asmevo::corpus::hip_object("gfx942", "softmax.co"));
  auto truncated = good;
  truncated.resize(good.size() / 3);
  std::string path = dir + "/truncated.co";
  asmevo::write_file_atomic(path, truncated);
  auto before = asmevo::read_file_bytes(path);
  int rc = std::system((std::string(ASMEVO_CLI) + " inspect '" + path + "' > " + dir + "/out.txt 2> " + dir + "/err.txt").c_str());
  ASSERT_TRUE(WIFEXITED(rc));
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  std::string err = asmevo::read_file_text(dir + "/err.txt");
  EXPECT_NE(err.find("error: "), std::string::npos) << err;
  EXPECT_NE(err.find("truncated.co"), std::string::npos) << err;
  EXPECT_NE(err.find("fix: "), std::string::npos) << err;
  EXPECT_EQ(asmevo::read_file_bytes(path), before);  // the input is never modified

  rc = std::system((std::string(ASMEVO_CLI) + " inspect /nonexistent/file.co 2> " + dir + "/err2.txt").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(asmevo::read_file_text(dir + "/err2.txt").find("cannot open file"), std::string::npos);

  rc = std::system((std::string(ASMEVO_CLI) + " inspect --kernel no_such_kernel " +
                    std::string(ASMEVO_BINARY_DIR) + "/corpus/hip/gfx942/softmax.co 2> " + dir + "/err3.txt").c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  EXPECT_NE(asmevo::read_file_text(dir + "/err3.txt").find("no kernel named 'no_such_kernel'"), std::string::npos);
  std::filesystem::remove_all(dir);
}
