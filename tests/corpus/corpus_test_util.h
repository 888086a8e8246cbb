// Helpers shared by the corpus tests: reading the HIP corpus sources (kernel signatures) and the
// build manifest.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace asmevo::corpus::test {

namespace fs = std::filesystem;

inline const fs::path kHipDir = fs::path(ASMEVO_SOURCE_DIR) / "corpus" / "hip";
inline const fs::path kHipBuild = fs::path(ASMEVO_BINARY_DIR) / "corpus" / "hip";

inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Param {
  std::string type;  // e.g. "const float*", "int"
  std::string name;
  bool pointer = false;
};

struct KernelDecl {
  std::string name;
  std::string file;  // stem of the .hip file
  std::vector<Param> params;
};

inline std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Every `extern "C" __global__ ... void name(params)` in corpus/hip/*.hip, sorted by file.
inline std::vector<KernelDecl> hip_kernels() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kHipDir))
    if (e.path().extension() == ".hip") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  static const std::regex decl(R"re(extern\s+"C"\s+__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(\w+)\s*\(([^)]*)\))re");
  std::vector<KernelDecl> out;
  for (const auto& f : files) {
    std::string text = read_file(f);
    for (std::sregex_iterator it(text.begin(), text.end(), decl), end; it != end; ++it) {
      KernelDecl k;
      k.name = (*it)[1];
      k.file = f.stem().string();
      std::stringstream ps((*it)[2].str());
      std::string p;
      while (std::getline(ps, p, ',')) {
        p = trim(p);
        auto cut = p.find_last_of(" *");
        Param q;
        q.name = p.substr(cut + 1);
        q.type = trim(p.substr(0, cut + 1));
        q.pointer = q.type.find('*') != std::string::npos;
        k.params.push_back(q);
      }
      out.push_back(std::move(k));
    }
  }
  return out;
}

struct ManifestEntry {
  fs::path path;       // absolute
  std::string target;  // target ID, or comma-separated arch list for bundle / host-so
  int cov = 0;
  std::vector<std::string> sources;  // repo-relative
  std::string kind;                  // co | bundle | host-so
};

inline std::vector<ManifestEntry> read_manifest() {
  std::vector<ManifestEntry> out;
  std::istringstream in(read_file(kHipBuild / "manifest.txt"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    ManifestEntry e;
    std::string rel, srcs;
    ls >> rel >> e.target >> e.cov >> srcs >> e.kind;
    e.path = kHipBuild / rel;
    std::stringstream ss(srcs);
    std::string s;
    while (std::getline(ss, s, ',')) e.sources.push_back(s);
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace asmevo::corpus::test
