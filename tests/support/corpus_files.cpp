#include "tests/support/corpus_files.h"

#include <algorithm>
#include <array>
#include <mutex>
#include <set>
#include <sys/wait.h>
#include <unistd.h>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace asmevo::testing {

std::vector<CorpusFile> corpus_files(const std::string& source_dir, const std::string& binary_dir) {
  std::vector<CorpusFile> out;
  const std::string manifest = binary_dir + "/corpus/hip/manifest.txt";
  std::ifstream in(manifest);
  if (!in) throw std::runtime_error("missing " + manifest + ": build the corpus first");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    CorpusFile f;
    std::string rel, sources;
    ls >> rel >> f.target >> f.code_object_version >> sources >> f.kind;
    f.path = binary_dir + "/corpus/hip/" + rel;
    f.label = "hip/" + rel;
    out.push_back(f);
  }
  namespace fs = std::filesystem;
  std::vector<CorpusFile> triton;
  for (const auto& arch_dir : fs::directory_iterator(source_dir + "/corpus/triton")) {
    if (!arch_dir.is_directory()) continue;
    for (const auto& e : fs::directory_iterator(arch_dir.path())) {
      if (e.path().extension() != ".hsaco") continue;
      CorpusFile f;
      f.path = e.path().string();
      f.target = arch_dir.path().filename().string();
      f.code_object_version = 5;
      f.kind = "triton";
      f.label = "triton/" + f.target + "/" + e.path().filename().string();
      triton.push_back(f);
    }
  }
  std::sort(triton.begin(), triton.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  out.insert(out.end(), triton.begin(), triton.end());
  return out;
}

std::vector<CorpusFile> code_object_corpus_files(const std::string& source_dir, const std::string& binary_dir) {
  std::vector<CorpusFile> out;
  for (auto& f : corpus_files(source_dir, binary_dir))
    if (f.kind == "co" || f.kind == "triton") out.push_back(f);
  return out;
}

std::string test_name(const CorpusFile& f) {
  std::string s = f.label;
  for (auto& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

int run_shell(const std::string& command, std::string* output) {
  std::string cmd = command + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + command);
  std::array<char, 4096> buf;
  std::string out;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = ::pclose(p);
  if (output) *output = std::move(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

namespace {
std::mutex g_scratch_mutex;
std::set<std::string> g_scratch_areas;  // per-process folders to remove at exit
void remove_scratch_dirs() {
  std::error_code ec;
  for (const auto& a : g_scratch_areas) std::filesystem::remove_all(a, ec);
}
}  // namespace

std::filesystem::path scratch_dir(const std::string& area, const std::string& name) {
  auto base = std::filesystem::temp_directory_path() / ("asmevo_" + area + "_test_" + std::to_string(::getpid()));
  {
    std::lock_guard<std::mutex> lock(g_scratch_mutex);
    static const bool registered = std::atexit(remove_scratch_dirs) == 0;
    (void)registered;
    g_scratch_areas.insert(base.string());
  }
  auto dir = name.empty() ? base : base / name;
  std::filesystem::create_directories(dir);
  return dir;
}

std::string spec_without_perf(const std::string& spec_path) {
  std::ifstream in(spec_path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  const size_t at = s.find("\nperf:");
  if (at == std::string::npos) return spec_path;  // a v2 spec is its own small-launch version
  const auto out = scratch_dir("specs") / std::filesystem::path(spec_path).filename();
  std::ofstream(out) << s.substr(0, at + 1);
  return out.string();
}

std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run: " + cmd);
  std::array<char, 65536> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int rc = ::pclose(p);
  if (rc != 0) throw std::runtime_error("command failed (" + std::to_string(rc) + "): " + cmd);
  return out;
}

}  // namespace asmevo::testing
