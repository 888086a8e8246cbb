// C[M][N] = A[M][K] * B[K][N] (row-major f32), one output per work-item, 2-D grid and workgroups.
#include "common.h"

extern "C" __global__ void matmul_naive_f32(const float* A, const float* B, float* C, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
  C[row * N + col] = acc;
}
