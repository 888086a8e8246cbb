// C = A x B, one output per thread, 2-D grid.
#define APP_NAME "matmul"
#include "app_common.h"
__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K) {
  int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= M || c >= N) return;
  float acc = 0;
  for (int k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + c];
  C[r * N + c] = acc;
}
int main() {
  const int M = 24, N = 20, K = 16;
  float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (i % 5) - 2;
  for (int i = 0; i < K * N; ++i) b[i] = (i % 3) * 0.5f;
  float *A, *B, *C;
  HIP_CHECK(hipMalloc(&A, sizeof a)); HIP_CHECK(hipMalloc(&B, sizeof b)); HIP_CHECK(hipMalloc(&C, sizeof c));
  HIP_CHECK(hipMemcpy(A, a, sizeof a, hipMemcpyHostToDevice)); HIP_CHECK(hipMemcpy(B, b, sizeof b, hipMemcpyHostToDevice));
  matmul<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  HIP_CHECK(hipMemcpy(c, C, sizeof c, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < M; ++r)
    for (int col = 0; col < N; ++col) {
      float want = 0;
      for (int k = 0; k < K; ++k) want += a[r * K + k] * b[k * N + col];
      bad += !near(c[r * N + col], want);
    }
  return verdict(bad);
}
