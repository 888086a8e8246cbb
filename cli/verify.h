// `asmevo verify K0 K1 --launch SPEC.yaml`: differential verification (verify/verify.h,
// docs/verify.md). Exit 0 EQUIVALENT, 10 DIFFERENT, 11 UNSAFE, 12 FAULT, 2 ERROR.
#pragma once
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct VerifyCommandOptions {
  std::string k0, k1;
  std::vector<std::string> launches;
  std::string regressions;      // folder of saved counterexamples (each */spec.yaml) to run too
  std::string counterexamples;  // save exposing input sets here
  bool json = false, no_static = false, all_runs = true;
  unsigned threads = 0;
  size_t max_mismatches = 10;
  bool prove = false;           // also prove the changed window equivalent (prove/, docs/prove.md)
  unsigned prove_timeout_ms = 10000;
  std::string backend = "emulator", hip_library;  // --backend hip: a HIP runtime (docs/hip.md)
};

CLI::App* add_verify_command(CLI::App& app, VerifyCommandOptions& opts);
int run_verify(const VerifyCommandOptions& opts);

}  // namespace asmevo::cli
