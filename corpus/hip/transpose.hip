// out[cols][rows] = in[rows][cols]^T through a padded 32x33 LDS tile; workgroups are 32 x 8,
// each work-item moves 4 elements. 2-D grid of ceil(cols/32) x ceil(rows/32).
#include "common.h"

#define TDIM 32
#define TROWS 8

extern "C" __global__ void transpose_lds_f32(const float* in, float* out, int rows, int cols) {
  __shared__ float tile[TDIM][TDIM + 1];
  int x = blockIdx.x * TDIM + threadIdx.x;
  int y = blockIdx.y * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TDIM + threadIdx.x;  // column in out = row in in
  y = blockIdx.x * TDIM + threadIdx.y;
  for (int j = 0; j < TDIM; j += TROWS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
