// Saving an input set that exposed a difference, so it can be re-run as a regression input for
// later candidates (the optimizer keeps them): a folder with the exact input bytes (.npy), a
// launch spec that reproduces the run, and the reference's and the candidate's outputs.
#pragma once
#include <string>

#include "verify/verify.h"

namespace asmevo::verify {

// Writes <dir>/<kernel>-<16 hex digits>/ (the digits hash the launch and the inputs, so the same
// counterexample found twice is one folder):
//   spec.yaml            launch spec v2: this run's shape and values, inputs from inputs/*.npy
//   inputs/<buf>.npy     input and inout buffers as the kernel saw them
//   expected/<buf>.npy   K0's output and inout buffers after the run
//   candidate/<buf>.npy  the candidate's
// Returns the folder. Files are written atomically; an existing folder is left as it is.
std::string save_counterexample(const std::string& dir, const Reference& reference, size_t run, const RunOutcome& candidate);

// The launch spec text of one concrete run whose buffers come from files (`input_files[i]` for
// argument i; empty: keep the run's init).
std::string concrete_spec_yaml(const emu::LaunchSpec& run, const std::vector<std::string>& input_files, const std::string& comment);

}  // namespace asmevo::verify
