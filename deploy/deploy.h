// Deployment of optimized code objects where the programs that use them look for kernels
// (docs/deploy.md): Triton's override/cache trees and AITer's hsa/ folder. Every replacement is the
// verified final candidate an optimize run stored for exactly the bytes found (content hash), and it
// must pass abi_diff against them; outputs are written into a new folder, inputs never change.
#pragma once
#include <string>
#include <vector>

namespace asmevo::deploy {

struct Deployed {
  std::string source;       // the code object found in the input tree
  std::string written;      // where its optimized counterpart went ("" when none)
  std::string kernel, hash;
  double speedup = 0;       // MODELED, from the store's final result
  std::string note;         // why not deployed, or what to know
};

struct DeployResult {
  std::vector<Deployed> items;
  std::string layout;       // "override" (Triton dump dir), "cache" (Triton cache), "aiter"
  std::string environment;  // what to set for the program to pick the tree up
  std::string text() const;
};

// Triton: `dir` is a Triton cache (TRITON_CACHE_DIR: <cache key>/<name>.hsaco + <name>.json) or a
// dump (TRITON_KERNEL_DUMP=1, TRITON_DUMP_DIR: <source hash>/<name>.hsaco + IR files). A dump gives
// a TRITON_KERNEL_OVERRIDE tree (<source hash>/<name>.hsaco, optimized objects only); a cache gives
// a copy of the cache with the optimized .hsaco in place (the override key cannot be derived from it).
DeployResult deploy_triton(const std::string& dir, const std::string& store, const std::string& out);
// AITer: a copy of `hsa_dir` (every file, csv tables included) with each .co that has an optimized
// counterpart replaced; the replacement must keep the kernel symbols, the target ID (generic
// xnack "any" included) and the KD's ieee_mode / dx10_clamp.
DeployResult deploy_aiter(const std::string& hsa_dir, const std::string& store, const std::string& out);

}  // namespace asmevo::deploy
