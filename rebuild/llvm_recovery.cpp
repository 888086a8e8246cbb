#include "rebuild/llvm_recovery.h"

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>
#include <unistd.h>

#include <mutex>

namespace asmevo::rebuild {
namespace {

thread_local std::string t_fatal_message;

void fatal_error_handler(void*, const char* reason, bool) {
  if (llvm::CrashRecoveryContext* crc = llvm::CrashRecoveryContext::GetCurrent()) {
    t_fatal_message = reason ? reason : "";
    crc->HandleExit(1);  // does not return: back into RunSafely(), which returns false
  }
  // Not inside a recovery context: print as LLVM does by default; LLVM then aborts or exits.
  std::string msg = std::string("LLVM ERROR: ") + (reason ? reason : "") + "\n";
  ssize_t ignored = ::write(2, msg.data(), msg.size());
  (void)ignored;
}

}  // namespace

void enable_llvm_recovery() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::CrashRecoveryContext::Enable();
    llvm::install_fatal_error_handler(fatal_error_handler, nullptr);
  });
}

std::string take_llvm_fatal_message() {
  std::string m = std::move(t_fatal_message);
  t_fatal_message.clear();
  return m;
}

}  // namespace asmevo::rebuild
