// Tiled transpose through LDS (32x32 tiles padded against bank conflicts).
#define APP_NAME "transpose_lds"
#include "app_common.h"
__global__ void transpose(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x, y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
int main() {
  const int R = 40, C = 50;
  float h[R * C], t[R * C];
  for (int i = 0; i < R * C; ++i) h[i] = i;
  float *in, *out;
  HIP_CHECK(hipMalloc(&in, sizeof h)); HIP_CHECK(hipMalloc(&out, sizeof t));
  HIP_CHECK(hipMemcpy(in, h, sizeof h, hipMemcpyHostToDevice));
  transpose<<<dim3((C + 31) / 32, (R + 31) / 32), dim3(32, 8)>>>(in, out, R, C);
  HIP_CHECK(hipMemcpy(t, out, sizeof t, hipMemcpyDeviceToHost));
  int bad = 0;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) bad += t[c * R + r] != h[r * C + c];
  return verdict(bad);
}
