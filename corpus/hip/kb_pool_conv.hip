// KernelBench-style pooling and direct convolutions, one work-item per output element
// (KernelBench level1/42_Max_Pooling_2D, 44_Average_Pooling_1D,
// 63_conv_standard_2D__square_input__square_kernel, 82_conv_depthwise_2D_square_input_square_kernel,
// level2/1_Conv2D_ReLU_BiasAdd). Layouts are PyTorch's NCHW / NCL; weights [out, in, k, k].
#include "common.h"

// nn.MaxPool2d(k, stride, padding, dilation) on x[planes, h, w] (planes = N * C); padding is -inf.
extern "C" __global__ void kb_maxpool2d_f32(const float* x, float* y, int planes, int h, int w, int oh, int ow, int k,
                                          int stride, int pad, int dil) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)planes * oh * ow) return;
  int ox = (int)(i % ow), oy = (int)((i / ow) % oh);
  long long p = i / ((long long)ow * oh);
  const float* xp = x + p * h * w;
  float m = -INFINITY;
  for (int ky = 0; ky < k; ++ky) {
    int iy = oy * stride - pad + ky * dil;
    if (iy < 0 || iy >= h) continue;
    for (int kx = 0; kx < k; ++kx) {
      int ix = ox * stride - pad + kx * dil;
      if (ix >= 0 && ix < w) m = fmaxf(m, xp[(long long)iy * w + ix]);
    }
  }
  y[i] = m;
}

// nn.AvgPool1d(k, stride, padding), count_include_pad=True: the sum over the window / k.
extern "C" __global__ void kb_avgpool1d_f32(const float* x, float* y, int planes, int len, int olen, int k, int stride,
                                          int pad) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (long long)planes * olen) return;
  int o = (int)(i % olen);
  const float* xp = x + (i / olen) * len;
  float s = 0.0f;
  for (int j = 0; j < k; ++j) {
    int t = o * stride - pad + j;
    if (t >= 0 && t < len) s += xp[t];
  }
  y[i] = s / (float)k;
}

// Direct convolution, stride 1, no padding: grid.x covers oh*ow, grid.y = output channel, grid.z = image.
__device__ inline float kb_conv_at(const float* x, const float* wt, int cin, int h, int w, int k, int n, int co, int oy, int ox) {
  float acc = 0.0f;
  for (int ci = 0; ci < cin; ++ci) {
    const float* xp = x + (((long long)n * cin + ci) * h + oy) * w + ox;
    const float* wp = wt + ((long long)co * cin + ci) * k * k;
    for (int ky = 0; ky < k; ++ky)
      for (int kx = 0; kx < k; ++kx) acc += xp[(long long)ky * w + kx] * wp[ky * k + kx];
  }
  return acc;
}

extern "C" __global__ void kb_conv2d_f32(const float* x, const float* wt, float* y, int cin, int cout, int h, int w, int k) {
  int oh = h - k + 1, ow = w - k + 1;
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int co = blockIdx.y, n = blockIdx.z;
  if (pos >= oh * ow || co >= cout) return;
  int oy = pos / ow, ox = pos % ow;
  y[((long long)n * cout + co) * oh * ow + pos] = kb_conv_at(x, wt, cin, h, w, k, n, co, oy, ox);
}

// conv (with its bias) -> ReLU -> + bias[co].
extern "C" __global__ void kb_conv2d_relu_bias_f32(const float* x, const float* wt, const float* conv_bias, const float* bias,
                                                 float* y, int cin, int cout, int h, int w, int k) {
  int oh = h - k + 1, ow = w - k + 1;
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int co = blockIdx.y, n = blockIdx.z;
  if (pos >= oh * ow || co >= cout) return;
  int oy = pos / ow, ox = pos % ow;
  float v = kb_conv_at(x, wt, cin, h, w, k, n, co, oy, ox) + conv_bias[co];
  y[((long long)n * cout + co) * oh * ow + pos] = fmaxf(v, 0.0f) + bias[co];
}

// Depthwise convolution (groups = channels), weights [c, 1, k, k], stride 1, no padding, no bias:
// grid.x covers oh*ow, grid.y = channel, grid.z = image.
extern "C" __global__ void kb_depthwise_conv2d_f32(const float* x, const float* wt, float* y, int c, int h, int w, int k) {
  int oh = h - k + 1, ow = w - k + 1;
  int pos = blockIdx.x * blockDim.x + threadIdx.x;
  int ch = blockIdx.y, n = blockIdx.z;
  if (pos >= oh * ow || ch >= c) return;
  int oy = pos / ow, ox = pos % ow;
  const float* xp = x + (((long long)n * c + ch) * h + oy) * w + ox;
  const float* wp = wt + (long long)ch * k * k;
  float acc = 0.0f;
  for (int ky = 0; ky < k; ++ky)
    for (int kx = 0; kx < k; ++kx) acc += xp[(long long)ky * w + kx] * wp[ky * k + kx];
  y[((long long)n * c + ch) * oh * ow + pos] = acc;
}
