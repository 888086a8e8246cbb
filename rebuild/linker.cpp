#include "rebuild/linker.h"

#include <lld/Common/Driver.h>
#include <llvm/Support/raw_ostream.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <unistd.h>

#include "rebuild/llvm_recovery.h"
#include "support/error.h"
#include "support/file_io.h"

LLD_HAS_DRIVER(elf)

namespace asmevo::rebuild {
namespace {

std::mutex g_lld_mutex;       // lld's global state admits one link at a time
bool g_lld_unusable = false;  // lldMain said it cannot run again (guarded by g_lld_mutex)

// $TMPDIR if set; else /dev/shm when it is a writable directory (tmpfs: a link there takes
// ~1 ms instead of ~4 ms on a disk file system); else /tmp.
std::string base_directory() {
  const char* env = std::getenv("TMPDIR");
  if (env && *env) return env;
  static const bool shm = ::access("/dev/shm", W_OK | X_OK) == 0 && std::filesystem::is_directory("/dev/shm");
  return shm ? "/dev/shm" : "/tmp";
}

// A private directory removed (with its contents) when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string templ = base_directory() + "/asmevo-link-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw Error(std::string("cannot create a temporary directory: ") + std::strerror(errno), templ,
                  "set TMPDIR to a writable directory");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write_plain(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(std::string("cannot write: ") + std::strerror(errno), path, "check TMPDIR");
  size_t n = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), f);
  bool ok = n == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw Error("cannot write temporary link input", path, "check free space in TMPDIR");
}

}  // namespace

std::vector<std::string> link_arguments(const std::vector<std::string>& inputs, const std::string& output,
                                        const LinkOptions& options) {
  std::vector<std::string> args = {"-m", "elf64_amdgpu"};
  if (options.no_undefined) args.push_back("--no-undefined");
  args.push_back("-shared");
  if (options.fatal_warnings) args.push_back("--fatal-warnings");
  // One thread: links of code objects are small, and lld's thread count sets a process-wide
  // llvm::parallel strategy that would otherwise leave a thread pool behind.
  args.push_back("--threads=1");
  for (const auto& a : options.extra_args) args.push_back(a);
  args.push_back("-o");
  args.push_back(output);
  for (const auto& in : inputs) args.push_back(in);
  return args;
}

std::vector<uint8_t> link_code_object(const std::vector<std::vector<uint8_t>>& relocatable_objects,
                                      const std::string& name, const LinkOptions& options) {
  if (relocatable_objects.empty())
    throw Error("nothing to link (no input objects)", name, "pass at least one relocatable object");
  TempDir dir;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < relocatable_objects.size(); ++i) {
    inputs.push_back(dir.path() + "/in" + std::to_string(i) + ".o");
    write_plain(inputs.back(), relocatable_objects[i]);
  }
  const std::string output = dir.path() + "/out.co";
  std::vector<std::string> args = link_arguments(inputs, output, options);
  std::vector<const char*> argv = {"ld.lld"};
  for (const auto& a : args) argv.push_back(a.c_str());

  std::string out_text, err_text;
  lld::Result result{};
  {
    std::lock_guard lock(g_lld_mutex);
    if (g_lld_unusable)
      throw Error("lld crashed earlier in this process and cannot link again", name,
                  "restart the process; please report the input of the first failed link", kExitInternal);
    llvm::raw_string_ostream out_os(out_text), err_os(err_text);
    // lld's fatal() returns into lldMain's CrashRecoveryContext only with recovery enabled;
    // otherwise it would _exit() the process (rebuild/llvm_recovery.h).
    enable_llvm_recovery();
    result = lld::lldMain(argv, out_os, err_os, {{lld::Gnu, &lld::elf::link}});
    out_os.flush();
    err_os.flush();
    if (!result.canRunAgain) g_lld_unusable = true;
  }
  // lld names the temporary files in its messages: name the inputs by position instead.
  auto clean = [&](std::string s) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string label = "<object " + std::to_string(i) + ">";
      for (size_t p = s.find(inputs[i]); p != std::string::npos; p = s.find(inputs[i], p + label.size()))
        s.replace(p, inputs[i].size(), label);
    }
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  };
  if (result.retCode != 0) {
    std::string msg = clean(err_text.empty() ? out_text : err_text);
    if (msg.empty()) msg = "lld failed with exit code " + std::to_string(result.retCode);
    throw Error("link failed:\n" + msg, name,
                "check that every referenced symbol is defined and the objects are for one AMDGPU target",
                result.canRunAgain ? kExitBadInput : kExitInternal);
  }
  std::error_code ec;
  if (!std::filesystem::exists(output, ec))
    throw Error("lld reported success but wrote no output", name, "please report this input", kExitInternal);
  return read_file_bytes(output);
}

}  // namespace asmevo::rebuild
