// C[M][N] (f32) = A[M][K] * B[K][N] (row-major bfloat16) on the matrix cores, "_1k" bf16 MFMA
// (4 bf16 per lane) which gfx90a, gfx942 and gfx950 all have. Same tiling and operand layouts as
// matmul_mfma_f16.hip: one wave per output tile, zero-filled tails.
#include "common.h"

typedef short bf16x4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_16x16x16_bf16(const hip_bfloat16* A, const hip_bfloat16* B,
                                                                          float* C, int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
  int mr = m0 + lane % 16, nc = n0 + lane % 16;
  float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    bf16x4_t a, b;
    for (int i = 0; i < 4; ++i) {
      int k = k0 + 4 * (lane / 16) + i;
      a[i] = (mr < M && k < K) ? (short)A[mr * K + k].data : (short)0;
      b[i] = (k < K && nc < N) ? (short)B[k * N + nc].data : (short)0;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 4; ++i) {
    int m = m0 + 4 * (lane / 16) + i;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_32x32x8_bf16(const hip_bfloat16* A, const hip_bfloat16* B,
                                                                         float* C, int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  int mr = m0 + lane % 32, nc = n0 + lane % 32;
  float16_t acc = {};
  for (int k0 = 0; k0 < K; k0 += 8) {
    bf16x4_t a, b;
    for (int i = 0; i < 4; ++i) {
      int k = k0 + 4 * (lane / 32) + i;
      a[i] = (mr < M && k < K) ? (short)A[mr * K + k].data : (short)0;
      b[i] = (k < K && nc < N) ? (short)B[k * N + nc].data : (short)0;
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 16; ++i) {
    int m = m0 + 8 * (i / 4) + 4 * (lane / 32) + i % 4;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}
