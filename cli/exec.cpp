#include "cli/exec.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "support/error.h"

namespace asmevo::cli {
namespace {

// Where libasmevo_hip and libasmevo_capture are: ASMEVO_HIP_LIB_DIR, else the build's hip/ folder.
std::string hip_lib_dir() {
  if (const char* d = std::getenv("ASMEVO_HIP_LIB_DIR"); d && *d) return d;
  return ASMEVO_HIP_LIB_DIR;
}

void prepend_env(const char* var, const std::string& value) {
  const char* old = std::getenv(var);
  std::string v = value + (old && *old ? ":" + std::string(old) : "");
  setenv(var, v.c_str(), 1);
}

[[noreturn]] void exec_program(const std::vector<std::string>& command) {
  if (command.empty()) throw Error("no program given", {}, "put the program and its arguments after --");
  std::vector<char*> argv;
  for (const auto& a : command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  execvp(argv[0], argv.data());
  throw Error("cannot run " + command[0] + ": " + std::strerror(errno), {}, "give a path to an executable");
}

void use_emulator(const std::string& device, const std::string& log) {
  std::string lib = hip_lib_dir();
  if (!std::filesystem::exists(lib + "/libamdhip64.so.5"))
    throw Error("libasmevo_hip is not built: no " + lib + "/libamdhip64.so.5", {}, "build the target asmevo_hip, or set ASMEVO_HIP_LIB_DIR");
  prepend_env("LD_LIBRARY_PATH", lib);
  if (!device.empty()) setenv("ASMEVO_HIP_DEVICE", device.c_str(), 1);
  if (!log.empty()) setenv("ASMEVO_HIP_LOG", log.c_str(), 1);
}

}  // namespace

CLI::App* add_exec_command(CLI::App& app, ExecOptions& o) {
  auto* c = app.add_subcommand("exec", "Run an unmodified HIP program on libasmevo_hip, AsmEvo's HIP runtime on the emulator (docs/hip.md)");
  c->add_option("--replace", o.replace, "folder of optimized code objects named <content hash>.co: used instead of the originals (after abi-diff)");
  c->add_option("--device", o.device, "mi300x (default), mi250x or mi355x");
  c->add_option("--log", o.log, "write the runtime's log (every launch, MODELED times) here; '-' for stderr");
  c->add_flag("--no-summary", o.no_summary, "do not print the per-kernel MODELED time summary at exit");
  c->add_option("command", o.command, "the program and its arguments (after --)")->required();
  return c;
}

CLI::App* add_capture_command(CLI::App& app, CaptureOptions& o) {
  auto* c = app.add_subcommand("capture", "Run a HIP program and record its kernel launches as launch specs (docs/hip.md)");
  c->add_option("-o,--output", o.output, "capture folder (created; objects/, launches/, capture.json)")->required();
  c->add_option("--kernel", o.kernel, "only kernels whose symbol matches this regular expression (ECMAScript)");
  c->add_option("--max", o.max, "at most N launches of each kernel (0: all)");
  c->add_option("--runtime", o.runtime, "emulator: run on libasmevo_hip (default); system: the libamdhip64 the program finds (a GPU)")
      ->check(CLI::IsMember({"emulator", "system"}));
  c->add_option("--device", o.device, "with --runtime emulator: mi300x (default), mi250x or mi355x");
  c->add_option("--log", o.log, "with --runtime emulator: the runtime's log file");
  c->add_option("command", o.command, "the program and its arguments (after --)")->required();
  return c;
}

int run_exec(const ExecOptions& o) {
  use_emulator(o.device, o.log);
  if (!o.replace.empty()) {
    if (!std::filesystem::is_directory(o.replace)) throw Error("no folder " + o.replace, "--replace", "give the folder of <hash>.co files");
    setenv("ASMEVO_REPLACE", std::filesystem::absolute(o.replace).c_str(), 1);
  }
  if (!o.no_summary) setenv("ASMEVO_HIP_SUMMARY", "1", 1);
  exec_program(o.command);
}

int run_capture(const CaptureOptions& o) {
  std::string lib = hip_lib_dir() + "/libasmevo_capture.so";
  if (!std::filesystem::exists(lib)) throw Error("no " + lib, {}, "build the target asmevo_capture, or set ASMEVO_HIP_LIB_DIR");
  if (o.runtime == "emulator") use_emulator(o.device, o.log);
  std::filesystem::create_directories(o.output);
  setenv("ASMEVO_CAPTURE_DIR", std::filesystem::absolute(o.output).c_str(), 1);
  if (!o.kernel.empty()) setenv("ASMEVO_CAPTURE_KERNEL", o.kernel.c_str(), 1);
  if (o.max) setenv("ASMEVO_CAPTURE_MAX", std::to_string(o.max).c_str(), 1);
  prepend_env("LD_PRELOAD", lib);
  exec_program(o.command);
}

}  // namespace asmevo::cli
