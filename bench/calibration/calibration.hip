// Calibration kernels: each does what one published MI300X/MI250X measurement did
// (/work/shared/notes/mi300x-measured.md), so the model can be held against it (calibration_bench.cpp).
#include <hip/hip_runtime.h>
#include <stdint.h>

// Work-item and workgroup ids straight from the hardware registers: no device library is linked.
#define TID __builtin_amdgcn_workitem_id_x()
#define BID __builtin_amdgcn_workgroup_id_x()
#define BARRIER()                                        \
  do {                                                   \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
    __builtin_amdgcn_s_barrier();                        \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); \
  } while (0)
constexpr uint32_t kBlock = 256;  // every launch of these kernels uses 256 work-items per workgroup

// Pointer chase (latency ladder): one lane, each address depends on the value loaded before it. The
// buffer is zero, so the next index is (j + stride) & mask: one new 128-byte line per step over a
// footprint of mask + 1 words; a second pass over the same footprint hits wherever the lines stayed.
// The index starts as TID >> 6 (0 in the one 64-lane wave launched, but not provably uniform), so the
// loads are vector loads through the L1 as in a HIP/OpenCL chase, not scalar loads.
extern "C" __global__ void chase(const uint32_t* buf, uint32_t steps, uint32_t stride, uint32_t mask, uint32_t* out) {
  uint32_t j = TID >> 6;
  for (uint32_t s = 0; s < steps; ++s) j = (buf[j] + j + stride) & mask;
  if (TID == 0) out[BID] = j;
}

// BabelStream's five kernels (double precision, one element per work-item).
extern "C" __global__ void stream_copy(const double* a, double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) c[i] = a[i];
}
extern "C" __global__ void stream_mul(double* b, const double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) b[i] = 0.4 * c[i];
}
extern "C" __global__ void stream_add(const double* a, const double* b, double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void stream_triad(double* a, const double* b, const double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) a[i] = b[i] + 0.4 * c[i];
}
// Dot: each workgroup reduces its grid-stride share in LDS and writes one partial sum.
extern "C" __global__ void stream_dot(const double* a, const double* b, double* sums, uint32_t n, uint32_t groups) {
  __shared__ double part[256];
  double s = 0;
  for (uint32_t i = BID * kBlock + TID; i < n; i += groups * kBlock) s += a[i] * b[i];
  part[TID] = s;
  BARRIER();
  for (uint32_t w = kBlock / 2; w > 0; w /= 2) {
    if (TID < w) part[TID] += part[TID + w];
    BARRIER();
  }
  if (TID == 0) sums[BID] = part[0];
}

// Plain read (fleet-amd-task "plain read, 1 GiB"): float4 loads, one sum per work-item.
extern "C" __global__ void read_f32x4(const float4* a, float* out, uint32_t n4, uint32_t groups) {
  float s = 0;
  for (uint32_t i = BID * kBlock + TID; i < n4; i += groups * kBlock) {
    float4 v = a[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[BID * kBlock + TID] = s;
}

// MFMA issue-to-issue: one wave, a chain of `iters` x 8 MFMAs on four independent accumulators.
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
typedef float float4v __attribute__((ext_vector_type(4)));
extern "C" __global__ void mfma_32x32x8f16(const half4* ab, float* out, uint32_t iters) {
  half4 a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
extern "C" __global__ void mfma_16x16x16f16(const half4* ab, float* out, uint32_t iters) {
  half4 a = ab[TID], b = ab[TID + 64];
  float4v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
extern "C" __global__ void mfma_32x32x2f32(const float* ab, float* out, uint32_t iters) {
  float a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
extern "C" __global__ void mfma_16x16x4f32(const float* ab, float* out, uint32_t iters) {
  float a = ab[TID], b = ab[TID + 64];
  float4v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
