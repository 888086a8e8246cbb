// 3x3 convolution with zero padding ("same"), C input channels, F filters:
// y[f][h][w] = sum_c sum_ky sum_kx wt[f][c][ky][kx] * x[c][h + ky - 1][w + kx - 1].
// Workgroups are 16 x 16; each stages an 18 x 18 input halo tile per channel in LDS.
// Grid: (ceil(W/16), ceil(H/16), F).
#include "common.h"

#define CT 16
#define HALO (CT + 2)

extern "C" __global__ __launch_bounds__(256) void conv2d_3x3_f32(const float* x, const float* wt, float* y,
                                                                int C, int F, int H, int W) {
  __shared__ float tile[HALO][HALO];
  int tx = threadIdx.x, ty = threadIdx.y;
  int ow = blockIdx.x * CT + tx, oh = blockIdx.y * CT + ty;
  int f = blockIdx.z;
  if (f >= F) return;  // uniform per workgroup
  int h0 = blockIdx.y * CT - 1, w0 = blockIdx.x * CT - 1;
  float acc = 0.0f;
  for (int c = 0; c < C; ++c) {
    for (int idx = ty * CT + tx; idx < HALO * HALO; idx += CT * CT) {
      int ih = h0 + idx / HALO, iw = w0 + idx % HALO;
      tile[idx / HALO][idx % HALO] = (ih >= 0 && ih < H && iw >= 0 && iw < W) ? x[(c * H + ih) * W + iw] : 0.0f;
    }
    __syncthreads();
    const float* wc = wt + (f * C + c) * 9;
    for (int ky = 0; ky < 3; ++ky)
      for (int kx = 0; kx < 3; ++kx) acc += wc[ky * 3 + kx] * tile[ty + ky][tx + kx];
    __syncthreads();
  }
  if (oh < H && ow < W) y[(f * H + oh) * W + ow] = acc;
}
