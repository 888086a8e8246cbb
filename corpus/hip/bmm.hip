// Batched matmul C[b] = A[b] * B[b] (row-major f32), 3-D grid: z selects the batch.
#include "common.h"

extern "C" __global__ void bmm_f32(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int b = blockIdx.z;
  if (b >= batch || row >= M || col >= N) return;
  const float* a = A + (size_t)b * M * K;
  const float* bb = B + (size_t)b * K * N;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += a[row * K + k] * bb[k * N + col];
  C[(size_t)b * M * N + row * N + col] = acc;
}
