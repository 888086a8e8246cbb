#include "support/error.h"

namespace asmevo {

static std::string compose(const std::string& what, const std::string& where) {
  return where.empty() ? what : where + ": " + what;
}

Error::Error(std::string what, std::string where, std::string fix, int exit_code)
    : std::runtime_error(compose(what, where)),
      what_(std::move(what)),
      where_(std::move(where)),
      fix_(std::move(fix)),
      exit_code_(exit_code) {}

std::string Error::format() const {
  std::string s = "error: " + compose(what_, where_);
  if (!fix_.empty()) s += "\n  fix: " + fix_;
  return s;
}

Error Error::with_context(const std::string& outer) const {
  return Error(what_, where_.empty() ? outer : outer + ": " + where_, fix_, exit_code_);
}

}  // namespace asmevo
