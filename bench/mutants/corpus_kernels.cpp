#include "bench/mutants/corpus_kernels.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::mutants {

std::vector<CorpusKernel> corpus_kernels(const std::string& arch, const std::vector<std::string>& only) {
  namespace fs = std::filesystem;
  const fs::path src = ASMEVO_SOURCE_DIR, bin = ASMEVO_BINARY_DIR;
  std::map<std::string, CorpusKernel> found;
  // HIP: kernel names differ from file names; find each spec's kernel in the built objects.
  std::map<std::string, std::string> object_of;
  const fs::path hip_dir = bin / "corpus" / "hip" / arch;
  if (!fs::is_directory(hip_dir)) throw Error("no HIP corpus for " + arch + " in the build tree", hip_dir.string(), "build asmevo_corpus_hip");
  for (const auto& e : fs::directory_iterator(hip_dir)) {
    if (e.path().extension() != ".co") continue;
    auto co = codeobj::CodeObject::parse(read_file_bytes(e.path().string()), e.path().string());
    for (const auto& k : co.kernels()) object_of.emplace(k.name, e.path().string());
  }
  for (const auto& e : fs::directory_iterator(src / "corpus" / "hip" / "launch")) {
    emu::LaunchSpec s = emu::load_launch_spec(e.path().string());
    if (object_of.count(s.kernel)) found[s.kernel] = {s.kernel, object_of[s.kernel], e.path().string()};
  }
  for (const auto& e : fs::directory_iterator(src / "corpus" / "triton" / "launch")) {
    std::string k = e.path().stem().string();
    fs::path co = src / "corpus" / "triton" / arch / (k + ".hsaco");
    if (fs::exists(co)) found[k] = {k, co.string(), e.path().string()};
  }
  std::vector<CorpusKernel> out;
  if (only.empty())
    for (auto& [k, v] : found) out.push_back(v);
  for (const auto& k : only) {
    if (!found.count(k)) throw Error("no corpus kernel named " + k + " for " + arch, "mutants");
    out.push_back(found[k]);
  }
  return out;
}

}  // namespace asmevo::mutants
