// asmevo time / asmevo profile: the timing model's commands (docs/timing.md).
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace asmevo::cli {

struct TimingOptions {
  std::string file, kernel, launch;
  std::string perf;           // the perf launch to model (empty: every perf launch; profile: the first)
  unsigned threads = 1;
  bool json = false;
  bool exact = false;         // simulate every workgroup (no sampling)
  std::string slice;          // which workgroups a sample's slice runs: own-cus or xcd-window (default: SampleOptions')
  unsigned windows = 5;       // profile: hot windows shown
  unsigned window_length = 64;
  std::string backend = "model", hip_library;  // time --backend hip: HIP events (docs/hip.md)
  unsigned warmup = 3, repetitions = 20;
};
CLI::App* add_time_command(CLI::App& app, TimingOptions& opts);
CLI::App* add_profile_command(CLI::App& app, TimingOptions& opts);
int run_time(const TimingOptions& o);
int run_profile(const TimingOptions& o);

}  // namespace asmevo::cli
