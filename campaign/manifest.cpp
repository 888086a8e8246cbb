#include "campaign/manifest.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::campaign {
namespace fs = std::filesystem;

namespace {

std::string where(const std::string& file, const YAML::Node& n) {
  return n.Mark().is_null() ? file : fmt::format("{}:{}", file, n.Mark().line + 1);
}

void only_keys(const std::string& file, const YAML::Node& n, const std::set<std::string>& allowed, const std::string& what) {
  if (!n.IsMap()) throw Error(what + " must be a mapping", where(file, n), "see docs/campaign.md for the manifest's layout");
  for (const auto& kv : n) {
    const std::string k = kv.first.as<std::string>();
    if (!allowed.count(k)) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw Error("unknown key '" + k + "' in " + what, where(file, kv.first), "allowed keys: " + list);
    }
  }
}

template <typename T>
T scalar(const std::string& file, const YAML::Node& n, const std::string& key, const std::string& kind) {
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    throw Error("'" + key + "' must be " + kind, where(file, n), "e.g. " + key + ": " + (kind == "a boolean" ? "true" : "1"));
  }
}

Settings read_settings(const std::string& file, const YAML::Node& n) {
  Settings s;
  if (n["budget"]) s.budget = scalar<uint64_t>(file, n["budget"], "budget", "a non-negative integer");
  if (n["time"]) s.time_s = scalar<double>(file, n["time"], "time", "a number of seconds");
  if (n["seed"]) s.seed = scalar<uint64_t>(file, n["seed"], "seed", "a non-negative integer");
  if (n["proposers"]) s.proposers = scalar<std::string>(file, n["proposers"], "proposers", "a comma-separated list");
  if (n["min_gain"]) s.min_gain = scalar<double>(file, n["min_gain"], "min_gain", "a percentage");
  if (n["threads"]) {
    s.threads = scalar<unsigned>(file, n["threads"], "threads", "a positive integer");
    if (*s.threads == 0) throw Error("'threads' must be at least 1", where(file, n["threads"]));
  }
  if (n["optimize_args"]) {
    const YAML::Node a = n["optimize_args"];
    if (!a.IsSequence()) throw Error("'optimize_args' must be a list of arguments", where(file, a), "e.g. optimize_args: [--windows, \"8\"]");
    s.optimize_args.emplace();
    for (const auto& x : a) s.optimize_args->push_back(scalar<std::string>(file, x, "optimize_args", "a list of strings"));
  }
  if (s.time_s && *s.time_s < 0) throw Error("'time' must be >= 0", where(file, n["time"]));
  if (s.budget && *s.budget == 0 && !(s.time_s && *s.time_s > 0))
    throw Error("budget 0 (no limit) needs a time limit", where(file, n["budget"]), "set time: SECONDS as well, or a budget");
  return s;
}

const std::set<std::string> kSettingKeys = {"budget", "time", "seed", "proposers", "min_gain", "threads", "optimize_args"};

std::set<std::string> with(std::set<std::string> a, std::initializer_list<std::string> more) {
  a.insert(more);
  return a;
}

bool safe_id(const std::string& id) {
  if (id.empty() || id.size() > 128 || id[0] == '.') return false;
  for (char c : id)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '@')) return false;
  return true;
}

std::string q(const std::string& s) { return nlohmann::json(s).dump(); }  // a JSON string is a YAML double-quoted scalar

std::string num(double v) { return fmt::format("{}", v); }

void write_settings(std::string& out, const Settings& s, const std::string& indent) {
  if (s.budget) out += indent + "budget: " + std::to_string(*s.budget) + "\n";
  if (s.time_s) out += indent + "time: " + num(*s.time_s) + "\n";
  if (s.seed) out += indent + "seed: " + std::to_string(*s.seed) + "\n";
  if (s.proposers) out += indent + "proposers: " + q(*s.proposers) + "\n";
  if (s.min_gain) out += indent + "min_gain: " + num(*s.min_gain) + "\n";
  if (s.threads) out += indent + "threads: " + std::to_string(*s.threads) + "\n";
  if (s.optimize_args) {
    out += indent + "optimize_args: [";
    for (size_t i = 0; i < s.optimize_args->size(); ++i) out += (i ? ", " : "") + q((*s.optimize_args)[i]);
    out += "]\n";
  }
}

}  // namespace

Effective Manifest::effective(const Task& t) const {
  Effective e;
  auto pick = [](auto& field, const auto& task, const auto& def) {
    if (task) field = *task;
    else if (def) field = *def;
  };
  pick(e.budget, t.settings.budget, defaults.budget);
  pick(e.time_s, t.settings.time_s, defaults.time_s);
  pick(e.seed, t.settings.seed, defaults.seed);
  pick(e.proposers, t.settings.proposers, defaults.proposers);
  pick(e.min_gain, t.settings.min_gain, defaults.min_gain);
  pick(e.threads, t.settings.threads, defaults.threads);
  pick(e.optimize_args, t.settings.optimize_args, defaults.optimize_args);
  return e;
}

const Task* Manifest::find(const std::string& id) const {
  for (const auto& t : tasks)
    if (t.id == id) return &t;
  return nullptr;
}

Manifest load_manifest(const std::string& campaign_dir) {
  const fs::path dir = fs::absolute(campaign_dir).lexically_normal();
  const std::string file = (dir / kManifestFile).string();
  if (!fs::exists(file))
    throw Error("no campaign manifest " + file, campaign_dir, "make one with: asmevo campaign init DIR... -o " + campaign_dir);
  YAML::Node root;
  try {
    root = YAML::Load(read_file_text(file));
  } catch (const YAML::Exception& e) {
    throw Error("not valid YAML: " + e.msg, fmt::format("{}:{}", file, e.mark.line + 1), "fix the syntax (docs/campaign.md shows the layout)");
  }
  only_keys(file, root, {"schema", "defaults", "tasks"}, "the manifest");
  if (!root["schema"] || root["schema"].as<std::string>() != kSchema)
    throw Error(std::string("the manifest's schema is not ") + kSchema, where(file, root["schema"] ? root["schema"] : root),
                "this asmevo reads campaigns made by `asmevo campaign init`");
  Manifest m;
  m.dir = dir.string();
  if (root["defaults"]) {
    only_keys(file, root["defaults"], kSettingKeys, "defaults");
    m.defaults = read_settings(file, root["defaults"]);
  }
  const YAML::Node tasks = root["tasks"];
  if (!tasks || !(tasks.IsSequence() || tasks.IsNull()))
    throw Error("'tasks' must be a list", where(file, tasks ? tasks : root), "campaign init writes one entry per kernel");
  std::set<std::string> ids;
  for (const YAML::Node& n : tasks) {
    only_keys(file, n, with(kSettingKeys, {"id", "kernel", "object", "object_hash", "specs", "priority", "skip", "origin"}), "a task");
    Task t;
    for (const char* key : {"id", "kernel", "object", "object_hash", "specs"})
      if (!n[key]) throw Error(std::string("a task has no '") + key + "'", where(file, n), "every task needs id, kernel, object, object_hash and specs");
    t.id = scalar<std::string>(file, n["id"], "id", "a string");
    if (!safe_id(t.id))
      throw Error("task id '" + t.id + "' is not a safe file name", where(file, n["id"]), "use letters, digits, '.', '_', '-', '@' (it names tasks/<id>/)");
    if (!ids.insert(t.id).second) throw Error("task id '" + t.id + "' appears twice", where(file, n["id"]), "ids must be unique");
    t.kernel = scalar<std::string>(file, n["kernel"], "kernel", "a string");
    t.object = scalar<std::string>(file, n["object"], "object", "a path");
    t.object_hash = scalar<std::string>(file, n["object_hash"], "object_hash", "a string");
    if (!n["specs"].IsSequence() || n["specs"].size() == 0)
      throw Error("'specs' must be a non-empty list of launch spec paths", where(file, n["specs"]));
    for (const auto& s : n["specs"]) t.specs.push_back(scalar<std::string>(file, s, "specs", "a path"));
    if (n["priority"]) t.priority = scalar<int>(file, n["priority"], "priority", "an integer");
    if (n["skip"]) t.skip = scalar<bool>(file, n["skip"], "skip", "a boolean");
    if (n["origin"]) t.origin = scalar<std::string>(file, n["origin"], "origin", "a string");
    t.settings = read_settings(file, n);
    m.tasks.push_back(std::move(t));
  }
  return m;
}

std::string manifest_yaml(const Manifest& m) {
  std::string out;
  out += "# AsmEvo campaign manifest (docs/campaign.md), written by `asmevo campaign init`.\n";
  out += "# Edit freely: per task `skip: true`, `priority` (higher runs first) and any setting of `defaults`\n";
  out += "# (budget, time, seed, proposers, min_gain, threads, optimize_args) to override it for that task. A task that is\n";
  out += "# done is never redone; raising its budget makes it resume from its store.\n";
  out += "#   asmevo campaign run " + m.dir + " --engine local --jobs N   (or --engine slurm ...)\n";
  out += std::string("schema: ") + kSchema + "\n";
  out += "defaults:\n";
  write_settings(out, m.defaults, "  ");
  if (!m.defaults.budget && !m.defaults.time_s && !m.defaults.seed && !m.defaults.proposers && !m.defaults.min_gain && !m.defaults.threads && !m.defaults.optimize_args)
    out.replace(out.size() - 1, 1, " {}\n");
  out += m.tasks.empty() ? "tasks: []\n" : "tasks:\n";
  for (const auto& t : m.tasks) {
    out += "  - id: " + q(t.id) + "\n";
    out += "    kernel: " + q(t.kernel) + "\n";
    out += "    object: " + q(t.object) + "\n";
    out += "    object_hash: " + q(t.object_hash) + "\n";
    out += "    specs:\n";
    for (const auto& s : t.specs) out += "      - " + q(s) + "\n";
    out += "    priority: " + std::to_string(t.priority) + "\n";
    out += std::string("    skip: ") + (t.skip ? "true" : "false") + "\n";
    if (!t.origin.empty()) out += "    origin: " + q(t.origin) + "\n";
    write_settings(out, t.settings, "    ");
  }
  return out;
}

void write_manifest(const Manifest& m) {
  fs::create_directories(m.dir);
  write_file_atomic((fs::path(m.dir) / kManifestFile).string(), manifest_yaml(m));
}

std::string task_dir(const Manifest& m, const std::string& id) { return (fs::path(m.dir) / "tasks" / id).string(); }
std::string task_store(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/store.sqlite"; }
std::string task_output(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/out.co"; }
std::string task_report(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/out.html"; }
std::string task_state_file(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/state.json"; }
std::string task_log(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/log.txt"; }
std::string task_lock(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/lock"; }
std::string task_progress(const Manifest& m, const std::string& id) { return task_dir(m, id) + "/progress.json"; }

}  // namespace asmevo::campaign
