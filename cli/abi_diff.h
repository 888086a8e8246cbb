// `asmevo abi-diff A.co B.co`: can B replace A under every launch of A (rebuild/abi_diff.h)?
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct AbiDiffOptions {
  std::string a, b;
  bool json = false;
};

CLI::App* add_abi_diff_command(CLI::App& app, AbiDiffOptions& opts);
// Exit 0 when B is compatible (resource changes are printed), 1 on any ABI break.
int run_abi_diff(const AbiDiffOptions& opts);

}  // namespace asmevo::cli
