// Recovering from LLVM's fatal errors inside the in-process assembler and linker, so that one bad
// input does not end a process that assembles thousands of candidates.
//
// LLVM reports some input problems as fatal errors (report_fatal_error: abort() or exit(1));
// lld's fatal() leaves through sys::Process::Exit. Both only return control to the caller when
// the work runs inside an llvm::CrashRecoveryContext AND crash recovery is enabled process-wide.
// enable_llvm_recovery() (called by the assembler and the linker before their first use) does
// that once per process:
//  - llvm::CrashRecoveryContext::Enable(): installs handlers for SIGABRT/SIGSEGV/SIGBUS/SIGILL/
//    SIGFPE/SIGTRAP that longjmp back into a running RunSafely() on the same thread; a crash on a
//    thread outside any recovery context still ends the process as before (the handler disables
//    itself and re-raises the signal);
//  - a fatal-error handler (llvm::install_fatal_error_handler; there is one per process) that,
//    inside a recovery context, records LLVM's message for that thread and returns control to the
//    context (also for the exit(1) kind of fatal error, which no signal would catch); outside one
//    it prints "LLVM ERROR: <message>" like LLVM's default and lets LLVM end the process.
// After a recovered fatal error the LLVM objects of that call are leaked, not destroyed.
#pragma once
#include <string>

namespace asmevo::rebuild {

void enable_llvm_recovery();
// The message of the last fatal error recovered on this thread (then cleared).
std::string take_llvm_fatal_message();

}  // namespace asmevo::rebuild
