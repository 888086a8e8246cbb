#include "search/moves/probe.h"

#include <fmt/format.h>

#include "build/rebuild.h"
#include "check/check.h"
#include "support/error.h"

namespace asmevo::search {

bool rebuilds_clean(const program::Program& p, const std::string& kernel) {
  program::Program copy = p;
  copy.touch(kernel);
  copy.update_resources();
  auto co = codeobj::CodeObject::parse(build::rebuild(copy.listing(), "rule-probe"), "rule-probe");
  check::CheckOptions opts;
  opts.kernel = kernel;
  return check::check_code_object(co, opts).clean();
}

const program::Function& kernel_function(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f || !f->is_kernel) throw Error("no kernel named " + kernel, p.original().elf().name());
  return *f;
}

std::pair<size_t, size_t> window_lines(const program::Program& p, const std::string& kernel,
                                       std::optional<std::pair<size_t, size_t>> window) {
  const program::Function& f = kernel_function(p, kernel);
  if (!window) return {f.begin, f.end - 1};
  if (window->first > window->second || window->first < f.begin || window->second >= f.end)
    throw Error(fmt::format("window [{}, {}] is not inside kernel {} (lines [{}, {}))", window->first, window->second, kernel,
                            f.begin, f.end),
                p.original().elf().name(), "windows come from the timing profile of the same kernel");
  return *window;
}

}  // namespace asmevo::search
