#include "corpus/index/corpus.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::corpus {
namespace fs = std::filesystem;
namespace {

// Plain strings, not fs::path objects: callers may use this library while other translation units'
// namespace-scope objects are being initialized (a path object here might not exist yet then).
constexpr const char* kSource = ASMEVO_SOURCE_DIR;
constexpr const char* kBinary = ASMEVO_BINARY_DIR;

std::vector<fs::path> sorted_files(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Kernel> hip_kernels(const std::string& arch) {
  const fs::path dir = fs::path(kBinary) / "corpus" / "hip" / arch;
  if (!fs::is_directory(dir))
    throw Error("no HIP corpus for " + arch + " in the build tree", dir.string(), "build the target asmevo_corpus_hip");
  // Kernel names differ from file names: find each spec's kernel in the built objects.
  std::map<std::string, std::string> object_of;  // kernel -> code object
  for (const auto& path : sorted_files(dir, ".co")) {
    auto co = codeobj::CodeObject::parse(read_file_bytes(path.string()), path.string());
    for (const auto& k : co.kernels()) object_of.emplace(k.name, path.string());  // first file wins
  }
  std::map<std::string, Kernel> found;
  for (const auto& spec : sorted_files(fs::path(kSource) / "corpus" / "hip" / "launch", ".yaml")) {
    const std::string name = emu::load_launch_spec(spec.string()).kernel;
    auto it = object_of.find(name);
    if (it == object_of.end()) continue;
    const bool kb = fs::path(it->second).stem().string().rfind("kb_", 0) == 0;
    found[name] = {name, it->second, spec.string(), kb ? Set::kernelbench : Set::hip, arch};
  }
  std::vector<Kernel> out;
  for (auto& [name, k] : found) out.push_back(k);
  return out;
}

std::vector<Kernel> triton_kernels(const std::string& arch) {
  std::vector<Kernel> out;
  for (const auto& spec : sorted_files(fs::path(kSource) / "corpus" / "triton" / "launch", ".yaml")) {
    const std::string name = spec.stem().string();
    const std::string co = triton_object(arch, name);
    if (fs::exists(co)) out.push_back({emu::load_launch_spec(spec.string()).kernel, co, spec.string(), Set::triton, arch});
  }
  std::sort(out.begin(), out.end(), [](const Kernel& a, const Kernel& b) { return a.name < b.name; });
  return out;
}

}  // namespace

const char* set_name(Set s) {
  switch (s) {
    case Set::hip: return "hip";
    case Set::kernelbench: return "kernelbench";
    case Set::triton: return "triton";
  }
  return "?";
}

std::string Kernel::label() const { return std::string(set_name(set)) + "/" + arch + "/" + name; }

std::string hip_object(const std::string& arch, const std::string& file) { return (fs::path(kBinary) / "corpus" / "hip" / arch / file).string(); }
std::string hip_spec(const std::string& kernel) { return (fs::path(kSource) / "corpus" / "hip" / "launch" / (kernel + ".yaml")).string(); }
std::string triton_object(const std::string& arch, const std::string& kernel) {
  return (fs::path(kSource) / "corpus" / "triton" / arch / (kernel + ".hsaco")).string();
}
std::string triton_spec(const std::string& kernel) { return (fs::path(kSource) / "corpus" / "triton" / "launch" / (kernel + ".yaml")).string(); }

std::vector<Kernel> hip_built_kernels(const std::string& arch) { return hip_kernels(arch); }

std::vector<Kernel> kernels(const std::string& arch, Set set) {
  std::vector<Kernel> out;
  for (auto& k : set == Set::triton ? triton_kernels(arch) : hip_kernels(arch))
    if (k.set == set) out.push_back(std::move(k));
  return out;
}

std::vector<Kernel> kernels(const std::string& arch, const std::vector<std::string>& only) {
  std::vector<Kernel> all = hip_kernels(arch);
  for (auto& k : triton_kernels(arch)) all.push_back(std::move(k));
  if (only.empty()) return all;
  std::vector<Kernel> out;
  for (const auto& name : only) {
    auto it = std::find_if(all.begin(), all.end(), [&](const Kernel& k) { return k.name == name; });
    if (it == all.end()) throw Error("no corpus kernel named " + name + " for " + arch, "corpus", "see corpus/hip/launch and corpus/triton/launch");
    out.push_back(*it);
  }
  return out;
}

}  // namespace asmevo::corpus
