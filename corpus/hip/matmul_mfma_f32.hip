// C[M][N] = A[M][K] * B[K][N] (row-major f32) on the matrix cores with the f32 MFMAs
// (one value per lane and step). One wave per output tile, zero-filled tails.
//   16x16x4: A[m=l%16][k=l/16], B[k=l/16][n=l%16], D[m=4*(l/16)+i][n=l%16]
//   32x32x2: A[m=l%32][k=l/32], B[k=l/32][n=l%32], D[m=8*(i/4)+4*(l/32)+i%4][n=l%32]
// (checked against AMD's Matrix Instruction Calculator for CDNA2 and CDNA3).
#include "common.h"

typedef float float4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_16x16x4_f32(const float* A, const float* B, float* C,
                                                                        int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
  int mr = m0 + lane % 16, nc = n0 + lane % 16;
  float4_t acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 4) {
    int k = k0 + lane / 16;
    float a = (mr < M && k < K) ? A[mr * K + k] : 0.0f;
    float b = (k < K && nc < N) ? B[k * N + nc] : 0.0f;
    acc = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 4; ++i) {
    int m = m0 + 4 * (lane / 16) + i;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}

extern "C" __global__ __launch_bounds__(64) void matmul_mfma_32x32x2_f32(const float* A, const float* B, float* C,
                                                                        int M, int N, int K) {
  int lane = threadIdx.x;
  int m0 = blockIdx.y * 32, n0 = blockIdx.x * 32;
  int mr = m0 + lane % 32, nc = n0 + lane % 32;
  float16_t acc = {};
  for (int k0 = 0; k0 < K; k0 += 2) {
    int k = k0 + lane / 32;
    float a = (mr < M && k < K) ? A[mr * K + k] : 0.0f;
    float b = (k < K && nc < N) ? B[k * N + nc] : 0.0f;
    acc = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, acc, 0, 0, 0);
  }
  for (int i = 0; i < 16; ++i) {
    int m = m0 + 8 * (i / 4) + 4 * (lane / 32) + i % 4;
    if (m < M && nc < N) C[m * N + nc] = acc[i];
  }
}
