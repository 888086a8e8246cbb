// `campaign run --engine local --jobs N`: runs the campaign's runnable tasks (new, incomplete,
// failed; higher priority first, then manifest order) N at a time on this machine, each as
// `asmevo campaign task` (campaign/runner.h). One engine per campaign at a time (a lock on
// CAMPAIGN/.engine.lock). Killing the engine kills its tasks (PR_SET_PDEATHSIG); running it again
// resumes them from their stores.
#pragma once
#include <string>

namespace asmevo::campaign {

// 0 when every task that is not skipped is done, 1 when some failed.
int run_local(const std::string& campaign, unsigned jobs);

}  // namespace asmevo::campaign
