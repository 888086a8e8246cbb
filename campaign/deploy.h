// `campaign deploy CAMPAIGN --to triton|aiter SOURCE -o DIR`: hands every winner (a done task whose
// result was re-verified EQUIVALENT and is faster than its original) to `asmevo deploy triton|aiter`
// (issue 18), one call per winner's store. When this asmevo has no `deploy` command it fails with
// exit code 2 and says so, listing the winners' optimized objects.
#pragma once
#include <string>

namespace asmevo::campaign {

struct DeployOptions {
  std::string campaign, to, source, output;
  bool dry_run = false;  // print the deploy commands only
};

int deploy(const DeployOptions& o);

}  // namespace asmevo::campaign
