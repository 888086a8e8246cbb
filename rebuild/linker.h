// In-process linker: ELF relocatable objects -> an AMDGPU code object (a shared ELF), with lld's
// ELF driver (liblldELF from liblld-22-dev) called as a library. No external processes.
//
// The link is the one clang++-22 runs for `-x hip --offload-arch=... --offload-device-only
// --no-gpu-bundle-output` (see `clang++-22 -###`):
//   ld.lld -flavor gnu -m elf64_amdgpu --no-undefined -shared [-plugin-opt=... LTO options] -o OUT IN.o
// The -plugin-opt/--lto-* options only matter for bitcode inputs and are not passed here;
// --whole-archive only matters for archives.
//
// lld reads and writes files, so each link runs in a private temporary directory (mkdtemp under
// $TMPDIR if set, else /dev/shm when writable, else /tmp) that is removed afterwards, whatever
// happens. On tmpfs a small link takes about 1 ms; on a disk file system about 4 ms.
//
// Thread safety: lld keeps process-wide state (lld::CommonLinkerContext, its error handler), so
// links are serialised by a mutex inside link_code_object: any thread may call it, one link runs
// at a time. lld::lldMain resets that state after every link; tests run many links in a row. If lld
// ever reports that it cannot run again (a crash inside lld), later calls throw an internal error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::rebuild {

struct LinkOptions {
  bool no_undefined = true;    // --no-undefined, as clang passes it
  bool fatal_warnings = true;  // --fatal-warnings: an lld warning fails the link
  // Appended verbatim before the inputs, e.g. {"--gc-sections"} or {"--build-id=none"}.
  std::vector<std::string> extra_args;
};

// Links `relocatable_objects` (e.g. from assemble_object) into a code object. `name` names the
// result in messages. Throws asmevo::Error (exit code 2) with lld's messages if the link fails.
std::vector<uint8_t> link_code_object(const std::vector<std::vector<uint8_t>>& relocatable_objects,
                                      const std::string& name, const LinkOptions& options = {});

// The ld.lld command line (without the program name) link_code_object runs, with `inputs` and
// `output` as file names; for messages and tests.
std::vector<std::string> link_arguments(const std::vector<std::string>& inputs, const std::string& output,
                                        const LinkOptions& options);

}  // namespace asmevo::rebuild
