// `asmevo deploy triton CACHE_OR_DUMP_DIR --from RUN.sqlite -o OUT` and
// `asmevo deploy aiter HSA_DIR --from RUN.sqlite -o OUT` (docs/deploy.md).
#pragma once
#include <string>

namespace CLI {
class App;
}

namespace asmevo::cli {

struct DeployOptions {
  std::string triton_dir, aiter_dir, store, output;
};

struct DeployCommands {
  CLI::App* deploy = nullptr;
  CLI::App* triton = nullptr;
  CLI::App* aiter = nullptr;
};

DeployCommands add_deploy_command(CLI::App& app, DeployOptions& opts);
int run_deploy(const DeployCommands& cmds, const DeployOptions& opts);

}  // namespace asmevo::cli
