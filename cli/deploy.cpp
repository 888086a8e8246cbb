#include "cli/deploy.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "deploy/deploy.h"

namespace asmevo::cli {

DeployCommands add_deploy_command(CLI::App& app, DeployOptions& o) {
  DeployCommands c;
  c.deploy = app.add_subcommand("deploy", "Put optimized code objects where Triton or AITer load kernels from (docs/deploy.md)");
  c.deploy->require_subcommand(1);
  c.triton = c.deploy->add_subcommand("triton", "Triton dump -> TRITON_KERNEL_OVERRIDE tree; Triton cache -> patched cache copy");
  c.triton->add_option("dir", o.triton_dir, "TRITON_DUMP_DIR (source-hash folders) or TRITON_CACHE_DIR (cache-key folders)")->required();
  c.aiter = c.deploy->add_subcommand("aiter", "AITer hsa/ folder -> a copy with the optimized .co files (AITER_ASM_DIR)");
  c.aiter->add_option("dir", o.aiter_dir, "AITer's hsa/ folder")->required();
  for (auto* s : {c.triton, c.aiter}) {
    s->add_option("--from", o.store, "experiment store of the optimize runs (RUN.sqlite)")->required();
    s->add_option("-o,--output", o.output, "new folder to write")->required();
  }
  return c;
}

int run_deploy(const DeployCommands& c, const DeployOptions& o) {
  deploy::DeployResult r = *c.triton ? deploy::deploy_triton(o.triton_dir, o.store, o.output)
                                     : deploy::deploy_aiter(o.aiter_dir, o.store, o.output);
  std::cout << r.text();
  return 0;
}

}  // namespace asmevo::cli
