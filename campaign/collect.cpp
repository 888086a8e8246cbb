#include "campaign/collect.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "codeobj/code_object.h"
#include "emu/launch_spec.h"
#include "search/optimizer.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

namespace {

struct Object {
  std::string path, hash, arch;
  std::set<std::string> kernels;
  size_t root = 0;  // which input found it
};

struct Spec {
  std::string path, kernel;
  size_t root = 0;
  bool shared = false;  // from --specs
};

std::string absolute_path(const fs::path& p) { return fs::absolute(p).lexically_normal().string(); }

bool is_object_name(const fs::path& p) { return p.extension() == ".co" || p.extension() == ".hsaco"; }
bool is_yaml_name(const fs::path& p) { return p.extension() == ".yaml" || p.extension() == ".yml"; }

// The spec's kernel, or "" when the YAML file is not a launch spec (no top-level kernel:).
std::string spec_kernel(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception&) {
    return "";  // not YAML we can read: not a launch spec (load_launch_spec would say why)
  }
  if (!root.IsMap() || !root["kernel"] || !root["kernel"].IsScalar()) return "";
  emu::load_launch_spec(path);  // a launch spec must be a valid one: its error names file and line
  return root["kernel"].as<std::string>();
}

class Collector {
 public:
  Object& object(const std::string& path, size_t root) {
    auto it = by_path_.find(path);
    if (it != by_path_.end()) return objects_[it->second];
    std::vector<uint8_t> bytes = read_file_bytes(path);
    codeobj::CodeObject co = [&] {
      try {
        return codeobj::CodeObject::parse(bytes, path);
      } catch (const Error& e) {
        throw Error("not a code object: " + e.what_text(), path,
                    "remove it from the input folder, or name the objects you mean in a list file (docs/campaign.md)");
      }
    }();
    Object o;
    o.path = path;
    o.hash = search::content_hash(bytes);
    o.arch = co.target().processor;
    o.root = root;
    for (const auto& k : co.kernels()) o.kernels.insert(k.name);
    by_path_[path] = objects_.size();
    objects_.push_back(std::move(o));
    return objects_.back();
  }
  void pair(const Object& o, const Spec& s) {
    if (!o.kernels.count(s.kernel)) {
      std::string names;
      for (const auto& k : o.kernels) names += (names.empty() ? "" : ", ") + k;
      throw Error("the launch spec is for kernel " + s.kernel + ", which " + o.path + " does not define", s.path,
                  "kernels in that object: " + names + "; fix the spec's kernel: or pair it with the right object");
    }
    auto& specs = pairs_[{o.path, s.kernel}];
    if (std::find(specs.begin(), specs.end(), s.path) == specs.end()) specs.push_back(s.path);
  }
  std::vector<Object>& objects() { return objects_; }
  std::map<std::pair<std::string, std::string>, std::vector<std::string>>& pairs() { return pairs_; }

 private:
  std::vector<Object> objects_;
  std::map<std::string, size_t> by_path_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> pairs_;  // (object, kernel) -> specs
};

void walk(const fs::path& dir, std::vector<std::string>& objects, std::vector<std::string>& yamls) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) throw Error("cannot read the folder: " + ec.message(), it->path().string());
    const fs::path& p = it->path();
    if (it->is_directory() && p.filename().string().starts_with(".")) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file()) continue;
    if (is_object_name(p)) objects.push_back(absolute_path(p));
    else if (is_yaml_name(p)) yamls.push_back(absolute_path(p));
  }
  std::sort(objects.begin(), objects.end());
  std::sort(yamls.begin(), yamls.end());
}

bool under_any(const std::string& path, const std::vector<std::string>& dirs) {
  for (const auto& d : dirs) {
    const std::string prefix = absolute_path(d) + "/";
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string safe(const std::string& s) {
  std::string out;
  for (char c : s) out += (isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  if (out.empty() || out[0] == '.') out = "k" + out;
  return out.substr(0, 100);
}

}  // namespace

Collected collect(const std::vector<std::string>& inputs, const std::vector<std::string>& spec_dirs) {
  if (inputs.empty()) throw Error("no inputs", "campaign init", "name folders with code objects and launch specs, or list files");
  Collector c;
  std::vector<Spec> specs;
  std::vector<std::string> origins;
  for (size_t root = 0; root < inputs.size(); ++root) {
    const std::string& input = inputs[root];
    origins.push_back(absolute_path(input));
    if (!fs::exists(input)) throw Error("no such file or folder", input, "give a folder with code objects and specs, or a list file");
    if (fs::is_directory(input)) {
      std::vector<std::string> objects, yamls;
      walk(input, objects, yamls);
      for (const auto& o : objects) c.object(o, root);
      for (const auto& y : yamls) {
        if (under_any(y, spec_dirs)) continue;  // a --specs folder inside an input: its specs are shared ones
        std::string kernel = spec_kernel(y);
        if (!kernel.empty()) specs.push_back({y, kernel, root, false});
      }
      continue;
    }
    // A list file.
    const std::vector<uint8_t> head = read_file_bytes(input);
    if (head.size() >= 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F')
      throw Error("a code object is not an input of campaign init", input,
                  "give its folder (with X.yaml beside X.co), or a list file with a line `OBJECT SPEC`");
    std::istringstream lines(std::string(head.begin(), head.end()));
    std::string line;
    const fs::path base = fs::absolute(input).parent_path();
    for (int number = 1; std::getline(lines, line); ++number) {
      if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
      std::istringstream words(line);
      std::vector<std::string> w;
      for (std::string x; words >> x;) w.push_back(absolute_path(fs::path(x).is_absolute() ? fs::path(x) : base / x));
      if (w.empty()) continue;
      const std::string where = fmt::format("{}:{}", input, number);
      if (w.size() < 2) throw Error("a line needs an object and at least one launch spec", where, "write `OBJECT SPEC [SPEC...]`");
      for (const auto& p : w)
        if (!fs::is_regular_file(p)) throw Error("no such file: " + p, where, "paths are relative to the list file's folder");
      Object& o = c.object(w[0], root);
      const Object copy = o;  // c.object may grow the vector
      for (size_t i = 1; i < w.size(); ++i) {
        std::string kernel = spec_kernel(w[i]);
        if (kernel.empty()) throw Error("not a launch spec (no top-level kernel:)", w[i], "see docs/emulator.md for the launch spec");
        c.pair(copy, {w[i], kernel, root, false});
      }
    }
  }
  for (const auto& d : spec_dirs) {
    if (!fs::is_directory(d)) throw Error("not a folder", "--specs " + d, "give a folder of launch specs");
    std::vector<std::string> objects, yamls;
    walk(d, objects, yamls);
    for (const auto& y : yamls) {
      std::string kernel = spec_kernel(y);
      if (!kernel.empty()) specs.push_back({y, kernel, 0, true});
    }
  }

  Collected out;
  std::set<std::string> used;
  // Specs in input folders first: beside their object, else the one object of that input with the kernel.
  for (const Spec& s : specs) {
    if (s.shared) continue;
    const fs::path sp(s.path);
    const Object* beside = nullptr;
    for (const char* ext : {".co", ".hsaco"}) {
      const std::string cand = (sp.parent_path() / (sp.stem().string() + ext)).string();
      for (const auto& o : c.objects())
        if (o.path == cand) beside = &o;
    }
    if (beside) {
      c.pair(*beside, s);
      used.insert(s.path);
      continue;
    }
    std::vector<const Object*> with_kernel;
    std::set<std::string> hashes;
    for (const auto& o : c.objects())
      if (o.root == s.root && o.kernels.count(s.kernel) && hashes.insert(o.hash).second) with_kernel.push_back(&o);
    if (with_kernel.size() > 1) {
      std::string list;
      for (const auto* o : with_kernel) list += (list.empty() ? "" : ", ") + o->path;
      throw Error("the launch spec's kernel " + s.kernel + " is defined by several objects below " + inputs[s.root] + ": " + list, s.path,
                  "put the spec beside its object with the same name (X.yaml for X.co), or pass its folder with --specs to apply it to all");
    }
    if (with_kernel.size() == 1) {
      c.pair(*with_kernel[0], s);
      used.insert(s.path);
    }
  }
  // Shared specs: every object defining the kernel that has no spec of its own for it.
  std::set<std::pair<std::string, std::string>> own;
  for (const auto& [key, v] : c.pairs()) own.insert(key);
  for (const Spec& s : specs) {
    if (!s.shared) continue;
    for (const auto& o : c.objects())
      if (o.kernels.count(s.kernel) && !own.count({o.path, s.kernel})) {
        c.pair(o, s);
        used.insert(s.path);
      }
  }
  for (const Spec& s : specs)
    if (!used.count(s.path)) out.unused_specs.push_back(s.path + " (kernel " + s.kernel + ")");

  // Tasks: one per (object bytes, kernel), in object order.
  std::set<std::pair<std::string, std::string>> seen;  // (hash, kernel)
  std::map<std::pair<std::string, std::string>, Task*> by_hash;
  out.tasks.reserve(c.pairs().size());
  for (const Object& o : c.objects()) {
    for (const std::string& k : o.kernels) {
      auto it = c.pairs().find({o.path, k});
      if (it == c.pairs().end()) {
        out.without_spec.push_back(o.path + ": kernel " + k);
        continue;
      }
      if (auto dup = by_hash.find({o.hash, k}); dup != by_hash.end()) {  // identical bytes found twice: one task, all specs
        for (const auto& sp : it->second)
          if (std::find(dup->second->specs.begin(), dup->second->specs.end(), sp) == dup->second->specs.end()) dup->second->specs.push_back(sp);
        continue;
      }
      Task t;
      t.kernel = k;
      t.object = o.path;
      t.object_hash = o.hash;
      t.specs = it->second;
      t.origin = origins[o.root];
      out.tasks.push_back(std::move(t));
      by_hash[{o.hash, k}] = &out.tasks.back();
    }
  }
  // Ids: the kernel name; with the arch where names repeat; with the hash where that repeats too.
  std::map<std::string, int> count;
  std::map<std::string, std::string> arch_of;
  for (const Object& o : c.objects()) arch_of[o.path] = o.arch;
  for (const auto& t : out.tasks) count[safe(t.kernel)]++;
  std::map<std::string, int> count2;
  for (auto& t : out.tasks) {
    t.id = safe(t.kernel);
    if (count[t.id] > 1) t.id += "." + safe(arch_of[t.object]);
    count2[t.id]++;
  }
  for (auto& t : out.tasks)
    if (count2[t.id] > 1) t.id += "." + t.object_hash.substr(0, 8);
  return out;
}

}  // namespace asmevo::campaign
