// Errors that reach the user: what went wrong, where, and how to fix it.
#pragma once
#include <stdexcept>
#include <string>

namespace asmevo {

// Exit codes shared by every command.
enum ExitCode : int {
  kExitOk = 0,
  kExitFailure = 1,   // the command ran but its answer is "no" (e.g. a round trip differs)
  kExitBadInput = 2,  // malformed or unsupported input
  kExitInternal = 3,  // a bug in AsmEvo
};

// An error in the user's input or an unsupported feature. `where` names the file and
// location (offset, section, kernel...); `fix` tells the user what to do about it.
class Error : public std::runtime_error {
 public:
  Error(std::string what, std::string where = {}, std::string fix = {}, int exit_code = kExitBadInput);
  const std::string& what_text() const { return what_; }
  const std::string& where() const { return where_; }
  const std::string& fix() const { return fix_; }
  int exit_code() const { return exit_code_; }
  // "error: <where>: <what>\n  fix: <fix>"
  std::string format() const;

  // Prefix `where` with an outer context (e.g. the container file name).
  Error with_context(const std::string& outer) const;

 private:
  std::string what_, where_, fix_;
  int exit_code_;
};

// Throws Error(what, where, fix) unless cond holds.
inline void require(bool cond, const std::string& what, const std::string& where = {},
                    const std::string& fix = {}) {
  if (!cond) throw Error(what, where, fix);
}

}  // namespace asmevo
