// References for convolution and pooling: conv1d_f32, blur_gauss5_f32, conv2d_3x3_f32,
// maxpool2d_2x2_f32, avgpool1d_k3s2_f32.
#include <cmath>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

void conv1d_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "conv1d_f32";
  expect_args(a, 8, k);
  int cin = scalar<int32_t>(a, 4, k), cout = scalar<int32_t>(a, 5, k), len = scalar<int32_t>(a, 6, k),
      ks = scalar<int32_t>(a, 7, k);
  int lout = len - ks + 1;
  int64_t oo = covered(g.x, b.x, lout), ff = covered(g.y, 1, cout);
  const float* x = buffer<float>(a, 0, oo > 0 && ff > 0 ? int64_t(cin) * len : 0, k);
  const float* w = buffer<float>(a, 1, oo > 0 ? ff * cin * ks : 0, k);
  const float* bias = buffer<float>(a, 2, oo > 0 ? ff : 0, k);
  float* y = buffer<float>(a, 3, oo > 0 ? (ff - 1) * lout + oo : 0, k);
  for (int64_t f = 0; f < ff; ++f)
    for (int64_t o = 0; o < oo; ++o) {
      double acc = bias[f];
      for (int c = 0; c < cin; ++c)
        for (int t = 0; t < ks; ++t) acc += double(w[(f * cin + c) * ks + t]) * x[int64_t(c) * len + o + t];
      y[f * lout + o] = static_cast<float>(acc);
    }
}

// The kernel's __constant__ table.
constexpr float kGauss5[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};

void blur_gauss5_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "blur_gauss5_f32";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  int64_t m = covered(g.x, b.x, n);
  const float* x = buffer<float>(a, 0, m > 0 ? n : 0, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) {
    float acc = 0.0f;
    for (int t = 0; t < 5; ++t) {
      int64_t j = i + t - 2;
      if (j >= 0 && j < n) acc = std::fma(kGauss5[t], x[j], acc);
    }
    y[i] = acc;
  }
}

void conv2d_3x3_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "conv2d_3x3_f32";
  expect_args(a, 7, k);
  expect_block(b, 16, 16, 1, k);
  int C = scalar<int32_t>(a, 3, k), F = scalar<int32_t>(a, 4, k), H = scalar<int32_t>(a, 5, k),
      W = scalar<int32_t>(a, 6, k);
  int64_t ff = covered(g.z, 1, F), hh = covered(g.y, 16, H), ww = covered(g.x, 16, W);
  const float* x = buffer<float>(a, 0, ff > 0 ? int64_t(C) * H * W : 0, k);
  const float* wt = buffer<float>(a, 1, ff * C * 9, k);
  float* y = buffer<float>(a, 2, int64_t(F) * H * W, k);
  for (int64_t f = 0; f < ff; ++f)
    for (int64_t h = 0; h < hh; ++h)
      for (int64_t w = 0; w < ww; ++w) {
        double acc = 0.0;
        for (int c = 0; c < C; ++c)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int64_t ih = h + ky - 1, iw = w + kx - 1;
              if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
              acc += double(wt[((f * C + c) * 3 + ky) * 3 + kx]) * x[(c * H + ih) * W + iw];
            }
        y[(f * H + h) * W + w] = static_cast<float>(acc);
      }
}

void maxpool2d_2x2_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "maxpool2d_2x2_f32";
  expect_args(a, 5, k);
  int C = scalar<int32_t>(a, 2, k), H = scalar<int32_t>(a, 3, k), W = scalar<int32_t>(a, 4, k);
  int Ho = H / 2, Wo = W / 2;
  int64_t cc = covered(g.z, 1, C), hh = covered(g.y, b.y, Ho), ww = covered(g.x, b.x, Wo);
  const float* x = buffer<float>(a, 0, int64_t(C) * H * W, k);
  float* y = buffer<float>(a, 1, int64_t(C) * Ho * Wo, k);
  for (int64_t c = 0; c < cc; ++c)
    for (int64_t h = 0; h < hh; ++h)
      for (int64_t w = 0; w < ww; ++w) {
        const float* p = x + (c * H + 2 * h) * W + 2 * w;
        y[(c * Ho + h) * Wo + w] = std::fmax(std::fmax(p[0], p[1]), std::fmax(p[W], p[W + 1]));
      }
}

void avgpool1d_k3s2_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "avgpool1d_k3s2_f32";
  expect_args(a, 4, k);
  int rows = scalar<int32_t>(a, 2, k), len = scalar<int32_t>(a, 3, k);
  if (len < 3) return;
  int lout = (len - 3) / 2 + 1;
  int64_t rr = covered(g.y, 1, rows), oo = covered(g.x, b.x, lout);
  const float* x = buffer<float>(a, 0, int64_t(rows) * len, k);
  float* y = buffer<float>(a, 1, int64_t(rows) * lout, k);
  for (int64_t r = 0; r < rr; ++r)
    for (int64_t o = 0; o < oo; ++o) {
      const float* p = x + r * len + 2 * o;
      y[r * lout + o] = (p[0] + p[1] + p[2]) / 3.0f;  // same operation order as the kernel
    }
}

}  // namespace

void register_conv(std::vector<ReferenceEntry>& out) {
  out.push_back({"conv1d_f32", conv1d_f32, "rtol=1e-4,atol=1e-4: f32 accumulation order vs double"});
  out.push_back({"blur_gauss5_f32", blur_gauss5_f32, "rtol=1e-6,atol=1e-7: reference uses fma, the kernel may not contract"});
  out.push_back({"conv2d_3x3_f32", conv2d_3x3_f32, "rtol=1e-4,atol=1e-4: f32 accumulation order vs double"});
  out.push_back({"maxpool2d_2x2_f32", maxpool2d_2x2_f32, "exact"});
  out.push_back({"avgpool1d_k3s2_f32", avgpool1d_k3s2_f32, "rtol=1e-6,atol=1e-7: same f32 operations; exact if the division is correctly rounded"});
}

}  // namespace asmevo::corpus::detail
