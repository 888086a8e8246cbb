// verify::Backend on a HIP runtime loaded at run time (dlopen of libamdhip64: ROCm's on an AMD GPU,
// or libasmevo_hip, which this backend treats like any other runtime), and the event timer
// (docs/hip.md "The hardware backend"). Figures are labelled "measured": on libasmevo_hip what is
// "measured" is that runtime's MODELED clock, and the report says which runtime answered.
#pragma once
#include <memory>
#include <string>

#include "verify/backend.h"

namespace asmevo::verify {

// `library`: path or soname to dlopen ("" = ASMEVO_HIP_LIBRARY, else libamdhip64.so.5). Throws
// asmevo::Error when it cannot be loaded or lacks a function the backend needs.
std::unique_ptr<Backend> make_hip_backend(const std::string& library = {});

struct HipTiming {
  std::string runtime;       // the library and the device name it reports
  std::string device_arch;   // gcnArchName
  int clock_khz = 0;         // hipDeviceAttributeClockRate (the peak, not the current clock)
  std::string power_mode;    // not readable through HIP: "unknown (HIP has no query; see rocm-smi)"
  unsigned warmup = 0, repetitions = 0;
  double median_us = 0, min_us = 0, max_us = 0;
};
// Times one launch with HIP events: `warmup` launches, then `repetitions` timed ones with the L2 and
// MALL flushed before each (a 512 MiB hipMemset between runs), median reported.
HipTiming time_with_hip(const codeobj::CodeObject& co, const std::string& kernel, const emu::LaunchSpec& run, unsigned warmup,
                        unsigned repetitions, const std::string& library = {});

}  // namespace asmevo::verify
