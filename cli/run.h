// asmevo run / asmevo coverage: the emulator's commands (docs/emulator.md).
#pragma once
#include <string>
#include <vector>

namespace asmevo::cli {

struct RunOptions {
  std::string file, kernel, launch, out;
  std::string inputs_out;  // if set: also write every buffer argument as it is before the run
  unsigned threads = 0;
  std::string schedule = "in-order";  // in-order | reverse | interleaved (emu::WaveSchedule)
  bool lds_races = false;             // emu::RunOptions::lds_races
  bool json = false;
};
int run_run(const RunOptions& o);

struct CoverageOptions {
  std::vector<std::string> files;
  std::string isa;  // a processor: report the emulator's coverage of every mnemonic LLVM decodes for it
  bool json = false;
};
int run_coverage(const CoverageOptions& o);

}  // namespace asmevo::cli
