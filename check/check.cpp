#include "check/check.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <set>

#include "check/code.h"
#include "check/hazards.h"
#include "check/resources.h"
#include "check/waitcnt.h"
#include "support/error.h"

namespace asmevo::check {

CheckReport check_code_object(const codeobj::CodeObject& co, const CheckOptions& opts) {
  const auto arch = co.target().arch;
  if (arch == codeobj::Arch::Other)
    throw Error("static checks model gfx90a, gfx942 and gfx950 only, not " + co.target().str(), co.elf().name(),
                "check a code object built for one of those processors");
  CheckReport rep;
  rep.object = co.elf().name();
  rep.target = co.target().str();

  std::vector<Function> functions = functions_of(co);
  std::set<std::string> selected;
  if (opts.kernel) {
    if (!co.kernel(*opts.kernel)) {
      std::string names;
      for (const auto& k : co.kernels()) names += (names.empty() ? "" : ", ") + k.name;
      throw Error("no kernel named '" + *opts.kernel + "'", co.elf().name(), "kernels: " + names);
    }
    std::vector<size_t> todo;
    for (size_t i = 0; i < functions.size(); ++i)
      if (functions[i].is_kernel && functions[i].name == *opts.kernel) todo.push_back(i);
    for (size_t q = 0; q < todo.size(); ++q) {
      if (!selected.insert(functions[todo[q]].name).second) continue;
      for (size_t c : callees_of(functions[todo[q]], functions)) todo.push_back(c);
    }
  }
  auto wanted = [&](const Function& f) { return !opts.kernel || selected.count(f.name); };

  HazardContext hctx;
  hctx.arch = arch;
  hctx.xnack = co.target().xnack != codeobj::FeatureSetting::Off;
  WaitcntOptions wopts;
  wopts.arch = arch;
  for (const auto& f : functions) {
    if (!wanted(f)) continue;
    rep.functions.push_back({f.name, f.is_kernel, f.insts.size(), f.blocks.size()});
    if (opts.waitcnt) {
      auto v = check_waitcnt(f, wopts);
      rep.violations.insert(rep.violations.end(), v.begin(), v.end());
    }
    if (opts.hazards) {
      HazardContext c = hctx;
      c.arch_vgprs = 0;
      if (f.is_kernel)
        if (const auto* k = co.kernel(f.name); k && k->resources) c.arch_vgprs = k->resources->arch_vgprs;
      auto v = check_hazards(f, c);
      rep.violations.insert(rep.violations.end(), v.begin(), v.end());
    }
  }
  if (opts.resources) {
    for (auto& v : check_resources(co, functions, opts.dynamic_lds))
      if (!opts.kernel || selected.count(v.function)) rep.violations.push_back(std::move(v));
  }
  return rep;
}

std::string CheckReport::to_text() const {
  std::string s;
  size_t kernels = 0;
  for (const auto& f : functions) kernels += f.is_kernel;
  s += fmt::format("{} ({}): {} kernel(s), {} device function(s): ", object, target, kernels, functions.size() - kernels);
  if (violations.empty()) return s + "clean\n";
  s += fmt::format("{} violation(s)\n", violations.size());
  for (const auto& v : violations) s += "  " + v.to_text() + "\n";
  return s;
}

nlohmann::json CheckReport::to_json() const {
  nlohmann::json j;
  j["object"] = object;
  j["target"] = target;
  j["clean"] = clean();
  nlohmann::json fs = nlohmann::json::array();
  for (const auto& f : functions)
    fs.push_back({{"name", f.name}, {"kernel", f.is_kernel}, {"instructions", f.instructions}, {"blocks", f.blocks}});
  j["functions"] = fs;
  nlohmann::json vs = nlohmann::json::array();
  for (const auto& v : violations) vs.push_back(v.to_json());
  j["violations"] = vs;
  return j;
}

}  // namespace asmevo::check
