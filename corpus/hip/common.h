// Shared prologue for the AsmEvo HIP corpus. Every kernel file includes this first.
//
// Toolchain notes (Debian ROCm 5.2.3 headers + clang-22):
//  * With clang's HIP wrapper active, /usr/include/hip/amd_detail/hip_fp16_math_fwd.h skips its
//    declarations of __llvm_amdgcn_rcp_f16 / __llvm_amdgcn_rcp_2f16, yet amd_hip_fp16.h still calls
//    them. Declare both here, before hip_fp16.h, mapping the scalar one to the LLVM intrinsic.
//  * clang-22 no longer defines __AMDGCN_WAVEFRONT_SIZE; the build passes -D__AMDGCN_WAVEFRONT_SIZE=64.
#pragma once

#ifndef ASMEVO_CORPUS_SIMT  // (tests/corpus/simt_cpu.h provides a CPU stand-in instead)
extern "C" __device__ __attribute__((const)) _Float16 __llvm_amdgcn_rcp_f16(_Float16) __asm("llvm.amdgcn.rcp.f16");
typedef _Float16 __2f16 __attribute__((ext_vector_type(2)));
extern "C" __device__ inline __2f16 __llvm_amdgcn_rcp_2f16(__2f16 x) {
  return __2f16{__llvm_amdgcn_rcp_f16(x.x), __llvm_amdgcn_rcp_f16(x.y)};
}

#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>

// ROCm 5.2.3's host_defines.h defines __noinline__ as nothing, so a "__noinline__" device function
// would be silently inlined. clang itself knows __noinline__ as a keyword: drop the macro.
#undef __noinline__
#endif

#define CORPUS_WAVE 64

// Wave-wide reductions: every lane of the wave must be active (no early return before calling).
__device__ inline float wave_sum_down(float v) {
  for (int off = CORPUS_WAVE / 2; off > 0; off >>= 1) v += __shfl_down(v, off);
  return v;  // valid in lane 0
}
__device__ inline float wave_sum_xor(float v) {
  for (int m = CORPUS_WAVE / 2; m > 0; m >>= 1) v += __shfl_xor(v, m);
  return v;  // valid in every lane
}
__device__ inline float wave_max_xor(float v) {
  for (int m = CORPUS_WAVE / 2; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor(v, m));
  return v;
}

// Workgroup-wide reductions through LDS scratch `sh` (at least blockDim.x / 64 floats).
// blockDim.x must be a multiple of 64 and blockDim.y == 1; all work-items must call them.
// Every work-item gets the result; the partials are summed in wave order.
__device__ inline float block_sum(float v, float* sh) {
  int lane = threadIdx.x % CORPUS_WAVE, w = threadIdx.x / CORPUS_WAVE;
  int nw = blockDim.x / CORPUS_WAVE;
  v = wave_sum_xor(v);
  if (lane == 0) sh[w] = v;
  __syncthreads();
  float t = 0.0f;
  for (int i = 0; i < nw; ++i) t += sh[i];
  __syncthreads();
  return t;
}
__device__ inline float block_max(float v, float* sh) {
  int lane = threadIdx.x % CORPUS_WAVE, w = threadIdx.x / CORPUS_WAVE;
  int nw = blockDim.x / CORPUS_WAVE;
  v = wave_max_xor(v);
  if (lane == 0) sh[w] = v;
  __syncthreads();
  float t = -INFINITY;
  for (int i = 0; i < nw; ++i) t = fmaxf(t, sh[i]);
  __syncthreads();
  return t;
}
