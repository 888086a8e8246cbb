// C[M][N] (f32) = A[M][K] * B[K][N] (row-major f16) on the matrix cores. One wave (64 work-items,
// blockDim = 64) computes one output tile; grid = (ceil(N/T), ceil(M/T)). Out-of-range operands
// are zero-filled, out-of-range results are not stored.
//
// Operand layouts (lane l, element i of the per-lane vector):
//   16x16x16: A[m=l%16][k=4*(l/16)+i], B[k=4*(l/16)+i][n=l%16], D[m=4*(l/16)+i][n=l%16]
//   32x32x8:  A[m=l%32][k=4*(l/32)+i], B[k=4*(l/32)+i][n=l%32],
//             D[m=8*(i/4)+4*(l/32)+i%4][n=l%32] for i in 0..15
// (checked against AMD's Matrix Instruction Calculator for CDNA2 and CDNA3; the bf16 "_1k"
// variants use the f16 layouts).
#include "common.h"

typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_16x16x16_f16(const _Float16* A, const _Float16* B,
                                                                         float* C, int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
  int mr = m0 + lane % 16, nc = n0 + lane % 16;
  float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    half4_t a, b;
    for (int i = 0; i < 4; ++i) {
      int k = k0 + 4 * (lane / 16) + i;
      a[i] = (mr < M && k < K) ? A[mr * K + k] : (_Float16)0.0f;
      b[i] = (k < K && nc < N) ? B[k * N + nc] : (_Float16)0.0f;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 4; ++i) {
    int m = m0 + 4 * (lane / 16) + i;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_32x32x8_f16(const _Float16* A, const _Float16* B,
                                                                        float* C, int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  int mr = m0 + lane % 32, nc = n0 + lane % 32;
  float16_t acc = {};
  for (int k0 = 0; k0 < K; k0 += 8) {
    half4_t a, b;
    for (int i = 0; i < 4; ++i) {
      int k = k0 + 4 * (lane / 32) + i;
      a[i] = (mr < M && k < K) ? A[mr * K + k] : (_Float16)0.0f;
      b[i] = (k < K && nc < N) ? B[k * N + nc] : (_Float16)0.0f;
    }
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 16; ++i) {
    int m = m0 + 8 * (i / 4) + 4 * (lane / 32) + i % 4;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}
