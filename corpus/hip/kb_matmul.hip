// KernelBench-style matrix products, a competent first version: 16 x 16 LDS tiles with zero-padded
// edges for the large products, a work-item per output where K is tiny, a workgroup per row for
// matrix-vector (KernelBench level1/1_Square_matrix_multiplication_, 3_Batched_matrix_multiplication,
// 4_Matrix_vector_multiplication_, 9_Tall_skinny_matrix_multiplication_, 17_Matmul_with_transposed_B,
// level2/12_Gemm_Multiply_LeakyReLU, 76_Gemm_Add_ReLU, 86_Matmul_Divide_GELU). Row-major throughout.
#include "common.h"

#define KB_TILE 16

// C[m, n] = sum_k A[m, k] * B[k, n] for one 16 x 16 tile of C; workgroups of 16 x 16.
__device__ inline void kb_tile_ab(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float As[KB_TILE][KB_TILE];
  __shared__ float Bs[KB_TILE][KB_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * KB_TILE + ty, col = blockIdx.x * KB_TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += KB_TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(long long)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(long long)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < KB_TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[(long long)row * N + col] = acc;
}

extern "C" __global__ void kb_matmul_f32(const float* A, const float* B, float* C, int M, int N, int K) {
  kb_tile_ab(A, B, C, M, N, K);
}

// A[batch, M, K] x B[batch, K, N]: grid.z = batch.
extern "C" __global__ void kb_bmm_f32(const float* A, const float* B, float* C, int M, int N, int K) {
  long long b = blockIdx.z;
  kb_tile_ab(A + b * M * K, B + b * K * N, C + b * M * N, M, N, K);
}

// Linear-layer form: acc[m, n] = sum_k X[m, k] * W[n, k] (W is [out, in]), then an epilogue.
template <class Epilogue>
__device__ inline void kb_tile_abt(const float* X, const float* W, float* Y, int M, int N, int K, Epilogue epi) {
  __shared__ float Xs[KB_TILE][KB_TILE];
  __shared__ float Ws[KB_TILE][KB_TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * KB_TILE + ty, col = blockIdx.x * KB_TILE + tx;
  int wrow = blockIdx.x * KB_TILE + ty;  // the W row this work-item loads
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += KB_TILE) {
    Xs[ty][tx] = (row < M && k0 + tx < K) ? X[(long long)row * K + k0 + tx] : 0.0f;
    Ws[ty][tx] = (wrow < N && k0 + tx < K) ? W[(long long)wrow * K + k0 + tx] : 0.0f;
    __syncthreads();
    for (int k = 0; k < KB_TILE; ++k) acc += Xs[ty][k] * Ws[tx][k];
    __syncthreads();
  }
  if (row < M && col < N) Y[(long long)row * N + col] = epi(acc, col);
}

struct KbIdentity {
  __device__ float operator()(float v, int) const { return v; }
};
extern "C" __global__ void kb_matmul_tb_f32(const float* A, const float* B, float* C, int M, int N, int K) {
  kb_tile_abt(A, B, C, M, N, K, KbIdentity{});
}

// nn.Linear (with bias) -> * multiplier -> LeakyReLU(negative_slope).
struct KbMulLeaky {
  const float* bias;
  float multiplier, slope;
  __device__ float operator()(float v, int col) const {
    float t = (v + bias[col]) * multiplier;
    return t >= 0.0f ? t : t * slope;
  }
};
extern "C" __global__ void kb_gemm_mul_leakyrelu_f32(const float* X, const float* W, const float* bias, float* Y, int M,
                                                   int N, int K, float multiplier, float negative_slope) {
  kb_tile_abt(X, W, Y, M, N, K, KbMulLeaky{bias, multiplier, negative_slope});
}

// nn.Linear (no bias) -> + bias -> ReLU.
struct KbAddRelu {
  const float* bias;
  __device__ float operator()(float v, int col) const { return fmaxf(v + bias[col], 0.0f); }
};
extern "C" __global__ void kb_gemm_add_relu_f32(const float* X, const float* W, const float* bias, float* Y, int M, int N,
                                              int K) {
  kb_tile_abt(X, W, Y, M, N, K, KbAddRelu{bias});
}

// nn.Linear (with bias) -> / divisor -> exact GELU.
struct KbDivGelu {
  const float* bias;
  float divisor;
  __device__ float operator()(float v, int col) const {
    float t = (v + bias[col]) / divisor;
    return 0.5f * t * (1.0f + erff(t * 0.70710678118654752f));
  }
};
extern "C" __global__ void kb_matmul_div_gelu_f32(const float* X, const float* W, const float* bias, float* Y, int M, int N,
                                                int K, float divisor) {
  kb_tile_abt(X, W, Y, M, N, K, KbDivGelu{bias, divisor});
}

// y[m] = sum_k A[m, k] * x[k]: a workgroup (power of two, at most 256) per row.
extern "C" __global__ __launch_bounds__(256) void kb_matvec_f32(const float* A, const float* x, float* y, int M, long long K) {
  __shared__ float red[256];
  int row = blockIdx.x;
  if (row >= M) return;
  const float* ar = A + (long long)row * K;
  float s = 0.0f;
  for (long long k = threadIdx.x; k < K; k += blockDim.x) s += ar[k] * x[k];
  red[threadIdx.x] = s;
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (threadIdx.x < st) red[threadIdx.x] += red[threadIdx.x + st];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[row] = red[0];
}

// Tall-skinny: C[M, M] = A[M, K] x B[K, M] with a small K (32): a work-item per output, 2-D grid.
extern "C" __global__ void kb_matmul_tall_skinny_f32(const float* A, const float* B, float* C, int M, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= M) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc += A[(long long)row * K + k] * B[(long long)k * M + col];
  C[(long long)row * M + col] = acc;
}
