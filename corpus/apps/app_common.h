// Shared by the corpus/apps programs (HIP host programs in the style of ROCm's examples): error
// checks and the verdict line every program prints ("PASSED: <app>" / "FAILED: <app>: why").
#pragma once
#include <hip/hip_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(expr)                                                                                  \
  do {                                                                                                   \
    hipError_t e_ = (expr);                                                                              \
    if (e_ != hipSuccess) {                                                                              \
      std::printf("FAILED: %s: %s returned %s (%s)\n", APP_NAME, #expr, hipGetErrorName(e_), hipGetErrorString(e_)); \
      std::exit(1);                                                                                      \
    }                                                                                                    \
  } while (0)

inline int verdict(int errors) {
  if (errors) std::printf("FAILED: %s: %d mismatches\n", APP_NAME, errors);
  else std::printf("PASSED: %s\n", APP_NAME);
  return errors ? 1 : 0;
}
inline bool near(float a, float b, float tol = 1e-4f) { return std::fabs(a - b) <= tol * (1.0f + std::fabs(b)); }
