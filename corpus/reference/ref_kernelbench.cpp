// References for the KernelBench-style kernels (corpus/hip/kb_*.hip). Floating-point results are
// computed in double; each tolerance says why it is needed.
#include <cmath>
#include <limits>
#include <utility>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// ---- activations: y[i] = f(x[i]) for the covered i < n
template <class F> void unary(Args& a, Dim3 g, Dim3 b, const char* k, size_t nargs, F f) {
  expect_args(a, nargs, k);
  int64_t n = scalar<int64_t>(a, 2, k);
  int64_t m = covered(g.x, b.x * b.y * b.z, n);
  if (b.y != 1 || b.z != 1) fail(k, "needs 1-D workgroups");
  const float* x = buffer<float>(a, 0, m, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) y[i] = f(x[i]);
}
void kb_relu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  unary(a, g, b, "kb_relu_f32", 3, [](float v) { return v > 0.0f ? v : 0.0f; });
}
void kb_leaky_relu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  float s = scalar<float>(a, 3, "kb_leaky_relu_f32");
  unary(a, g, b, "kb_leaky_relu_f32", 4, [s](float v) { return v >= 0.0f ? v : v * s; });
}
void kb_sigmoid_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  unary(a, g, b, "kb_sigmoid_f32", 3, [](float v) { return float(1.0 / (1.0 + std::exp(-double(v)))); });
}
void kb_swish_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  unary(a, g, b, "kb_swish_f32", 3, [](float v) { return float(double(v) / (1.0 + std::exp(-double(v)))); });
}
double gelu(double v) { return 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752)); }
void kb_gelu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  unary(a, g, b, "kb_gelu_f32", 3, [](float v) { return float(gelu(v)); });
}

// ---- row-wise: a workgroup per row (power of two, at most 256), rows beyond the grid untouched
struct Rows {
  int rows, cols;
  int64_t covered;
};
// A row's maximum and sum of exp(x - max), in double: what softmax, log-softmax and cross entropy share.
std::pair<double, double> max_and_exp_sum(const float* xr, int cols) {
  double m = kNegInf, s = 0;
  for (int c = 0; c < cols; ++c) m = std::max(m, double(xr[c]));
  for (int c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
  return {m, s};
}
Rows rows_of(Args& a, Dim3 g, Dim3 b, const char* k, size_t nargs, size_t rows_arg) {
  expect_args(a, nargs, k);
  expect_pow2(b, 256, k);
  Rows r{scalar<int32_t>(a, rows_arg, k), scalar<int32_t>(a, rows_arg + 1, k), 0};
  r.covered = std::min<int64_t>(r.rows, g.x);
  return r;
}
// x[rows, cols] -> y[rows, cols], one row at a time (softmax, log-softmax, L1 norm).
template <class F> void row_to_row(Args& a, Dim3 g, Dim3 b, const char* k, F per_row) {
  Rows r = rows_of(a, g, b, k, 4, 2);
  const float* x = buffer<float>(a, 0, r.covered * r.cols, k);
  float* y = buffer<float>(a, 1, r.covered * r.cols, k);
  for (int64_t i = 0; i < r.covered; ++i) per_row(x + i * r.cols, y + i * r.cols, r.cols);
}
void kb_softmax_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  row_to_row(a, g, b, "kb_softmax_f32", [](const float* xr, float* yr, int cols) {
    const auto [m, s] = max_and_exp_sum(xr, cols);
    for (int c = 0; c < cols; ++c) yr[c] = float(std::exp(xr[c] - m) / s);
  });
}
void kb_log_softmax_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  row_to_row(a, g, b, "kb_log_softmax_f32", [](const float* xr, float* yr, int cols) {
    const auto [m, s] = max_and_exp_sum(xr, cols);
    for (int c = 0; c < cols; ++c) yr[c] = float(xr[c] - (m + std::log(s)));
  });
}
void kb_l1norm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  row_to_row(a, g, b, "kb_l1norm_f32", [](const float* xr, float* yr, int cols) {
    double s = 0;
    for (int c = 0; c < cols; ++c) s += std::fabs(xr[c]);
    for (int c = 0; c < cols; ++c) yr[c] = float(xr[c] / (s / cols));
  });
}
void kb_cross_entropy_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_cross_entropy_f32";
  Rows r = rows_of(a, g, b, k, 5, 3);
  const float* x = buffer<float>(a, 0, r.covered * r.cols, k);
  const int64_t* t = buffer<int64_t>(a, 1, r.covered, k);
  float* loss = buffer<float>(a, 2, 1, k);
  double total = loss[0];
  for (int64_t i = 0; i < r.covered; ++i) {
    const float* xr = x + i * r.cols;
    const auto [m, s] = max_and_exp_sum(xr, r.cols);
    double picked = (t[i] >= 0 && t[i] < r.cols) ? xr[t[i]] : 0.0;
    total += (m + std::log(s) - picked) / r.rows;
  }
  loss[0] = float(total);
}

// ---- normalizations
void kb_rmsnorm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_rmsnorm_f32";
  expect_args(a, 6, k);
  int batch = scalar<int32_t>(a, 2, k), features = scalar<int32_t>(a, 3, k), spatial = scalar<int32_t>(a, 4, k);
  float eps = scalar<float>(a, 5, k);
  int64_t m = covered(g.x, b.x * b.y * b.z, int64_t(batch) * spatial);
  const float* x = buffer<float>(a, 0, int64_t(batch) * features * spatial, k);
  float* y = buffer<float>(a, 1, int64_t(batch) * features * spatial, k);
  for (int64_t i = 0; i < m; ++i) {
    int64_t bb = i / spatial, s = i % spatial, base = bb * features * spatial + s;
    double ss = 0;
    for (int f = 0; f < features; ++f) ss += double(x[base + int64_t(f) * spatial]) * x[base + int64_t(f) * spatial];
    double inv = 1.0 / std::sqrt(ss / features + eps);
    for (int f = 0; f < features; ++f) y[base + int64_t(f) * spatial] = float(x[base + int64_t(f) * spatial] * inv);
  }
}
void kb_layernorm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_layernorm_f32";
  expect_args(a, 7, k);
  expect_pow2(b, 256, k);
  int batch = scalar<int32_t>(a, 4, k), n = scalar<int32_t>(a, 5, k);
  float eps = scalar<float>(a, 6, k);
  int64_t cb = std::min<int64_t>(batch, g.x);
  const float* x = buffer<float>(a, 0, cb * n, k);
  const float* w = buffer<float>(a, 1, n, k);
  const float* bias = buffer<float>(a, 2, n, k);
  float* y = buffer<float>(a, 3, cb * n, k);
  for (int64_t s = 0; s < cb; ++s) {
    const float* xs = x + s * n;
    double mean = 0, var = 0;
    for (int i = 0; i < n; ++i) mean += xs[i];
    mean /= n;
    for (int i = 0; i < n; ++i) var += (xs[i] - mean) * (xs[i] - mean);
    var /= n;
    double inv = 1.0 / std::sqrt(var + eps);
    for (int i = 0; i < n; ++i) y[s * n + i] = float((xs[i] - mean) * inv * w[i] + bias[i]);
  }
}

// ---- reductions over dim 1 of x[batch, dim1, dim2]
template <class T, class F> void over_dim1(Args& a, Dim3 g, Dim3 b, const char* k, F f) {
  expect_args(a, 5, k);
  int batch = scalar<int32_t>(a, 2, k), d1 = scalar<int32_t>(a, 3, k), d2 = scalar<int32_t>(a, 4, k);
  int64_t m = covered(g.x, b.x * b.y * b.z, int64_t(batch) * d2);
  const float* x = buffer<float>(a, 0, int64_t(batch) * d1 * d2, k);
  T* out = buffer<T>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) out[i] = f(x + (i / d2) * d1 * d2 + i % d2, d1, d2);
}
void kb_sum_dim1_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  over_dim1<float>(a, g, b, "kb_sum_dim1_f32", [](const float* p, int d1, int d2) {
    double s = 0;
    for (int r = 0; r < d1; ++r) s += p[int64_t(r) * d2];
    return float(s);
  });
}
void kb_max_dim1_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  over_dim1<float>(a, g, b, "kb_max_dim1_f32", [](const float* p, int d1, int d2) {
    float m = -std::numeric_limits<float>::infinity();
    for (int r = 0; r < d1; ++r) m = std::fmax(m, p[int64_t(r) * d2]);
    return m;
  });
}
void kb_argmax_dim1_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  over_dim1<int64_t>(a, g, b, "kb_argmax_dim1_f32", [](const float* p, int d1, int d2) {
    float best = p[0];
    int64_t idx = 0;
    for (int r = 1; r < d1; ++r)
      if (p[int64_t(r) * d2] > best) best = p[int64_t(r) * d2], idx = r;
    return idx;
  });
}
void kb_cumsum_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_cumsum_f32";
  expect_args(a, 4, k);
  expect_block(b, 256, 1, 1, k);
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  int64_t cr = std::min<int64_t>(rows, g.x);
  const float* x = buffer<float>(a, 0, cr * cols, k);
  float* y = buffer<float>(a, 1, cr * cols, k);
  for (int64_t r = 0; r < cr; ++r) {
    double s = 0;
    for (int c = 0; c < cols; ++c) y[r * cols + c] = float(s += x[r * cols + c]);
  }
}
template <class F> void mean_loss(Args& a, Dim3 g, Dim3 b, const char* k, F f) {
  expect_args(a, 4, k);
  expect_pow2(b, 256, k);
  int64_t n = scalar<int64_t>(a, 3, k);
  const float* x = buffer<float>(a, 0, n, k);
  const float* t = buffer<float>(a, 1, n, k);
  float* loss = buffer<float>(a, 2, 1, k);
  double s = 0;
  for (int64_t i = 0; i < n; ++i) s += f(double(x[i]) - t[i]);
  loss[0] = float(loss[0] + s / n);  // grid-stride: every element is covered
}
void kb_mse_loss_f32(Args& a, Dim3 g, Dim3 b, uint32_t) { mean_loss(a, g, b, "kb_mse_loss_f32", [](double d) { return d * d; }); }
void kb_huber_loss_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  mean_loss(a, g, b, "kb_huber_loss_f32", [](double d) { return std::fabs(d) < 1 ? 0.5 * d * d : std::fabs(d) - 0.5; });
}

// ---- pooling and convolutions
void kb_maxpool2d_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_maxpool2d_f32";
  expect_args(a, 11, k);
  int planes = scalar<int32_t>(a, 2, k), h = scalar<int32_t>(a, 3, k), w = scalar<int32_t>(a, 4, k);
  int oh = scalar<int32_t>(a, 5, k), ow = scalar<int32_t>(a, 6, k), ks = scalar<int32_t>(a, 7, k);
  int st = scalar<int32_t>(a, 8, k), pad = scalar<int32_t>(a, 9, k), dil = scalar<int32_t>(a, 10, k);
  int64_t m = covered(g.x, b.x * b.y * b.z, int64_t(planes) * oh * ow);
  const float* x = buffer<float>(a, 0, int64_t(planes) * h * w, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) {
    int ox = int(i % ow), oy = int((i / ow) % oh);
    const float* xp = x + (i / (int64_t(ow) * oh)) * h * w;
    float mx = -std::numeric_limits<float>::infinity();
    for (int ky = 0; ky < ks; ++ky)
      for (int kx = 0; kx < ks; ++kx) {
        int iy = oy * st - pad + ky * dil, ix = ox * st - pad + kx * dil;
        if (iy >= 0 && iy < h && ix >= 0 && ix < w) mx = std::fmax(mx, xp[int64_t(iy) * w + ix]);
      }
    y[i] = mx;
  }
}
void kb_avgpool1d_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_avgpool1d_f32";
  expect_args(a, 8, k);
  int planes = scalar<int32_t>(a, 2, k), len = scalar<int32_t>(a, 3, k), olen = scalar<int32_t>(a, 4, k);
  int ks = scalar<int32_t>(a, 5, k), st = scalar<int32_t>(a, 6, k), pad = scalar<int32_t>(a, 7, k);
  int64_t m = covered(g.x, b.x * b.y * b.z, int64_t(planes) * olen);
  const float* x = buffer<float>(a, 0, int64_t(planes) * len, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) {
    int o = int(i % olen);
    double s = 0;
    for (int j = 0; j < ks; ++j) {
      int t = o * st - pad + j;
      if (t >= 0 && t < len) s += x[(i / olen) * len + t];
    }
    y[i] = float(s / ks);
  }
}
// Shared by the three convolutions: grid.x * block.x covers output positions, grid.y channels, grid.z images.
template <class F> void conv_outputs(Dim3 g, Dim3 b, const char* k, int channels, int h, int w, int ks, F per_output) {
  if (b.y != 1 || b.z != 1) fail(k, "needs 1-D workgroups");
  int oh = h - ks + 1, ow = w - ks + 1;
  int64_t pos = covered(g.x, b.x, int64_t(oh) * ow);
  for (uint32_t n = 0; n < g.z; ++n)
    for (int co = 0; co < std::min<int64_t>(channels, g.y); ++co)
      for (int64_t p = 0; p < pos; ++p) per_output(n, co, int(p / ow), int(p % ow), (int64_t(n) * channels + co) * oh * ow + p);
}
double conv_at(const float* x, const float* wt, int cin, int h, int w, int ks, int n, int co, int oy, int ox) {
  double acc = 0;
  for (int ci = 0; ci < cin; ++ci)
    for (int ky = 0; ky < ks; ++ky)
      for (int kx = 0; kx < ks; ++kx)
        acc += double(x[((int64_t(n) * cin + ci) * h + oy + ky) * w + ox + kx]) * wt[((int64_t(co) * cin + ci) * ks + ky) * ks + kx];
  return acc;
}
void kb_conv2d_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_conv2d_f32";
  expect_args(a, 8, k);
  int cin = scalar<int32_t>(a, 3, k), cout = scalar<int32_t>(a, 4, k), h = scalar<int32_t>(a, 5, k), w = scalar<int32_t>(a, 6, k);
  int ks = scalar<int32_t>(a, 7, k);
  const float* x = buffer<float>(a, 0, int64_t(g.z) * cin * h * w, k);
  const float* wt = buffer<float>(a, 1, int64_t(cout) * cin * ks * ks, k);
  float* y = buffer<float>(a, 2, int64_t(g.z) * cout * (h - ks + 1) * (w - ks + 1), k);
  conv_outputs(g, b, k, cout, h, w, ks, [&](int n, int co, int oy, int ox, int64_t at) {
    y[at] = float(conv_at(x, wt, cin, h, w, ks, n, co, oy, ox));
  });
}
void kb_conv2d_relu_bias_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_conv2d_relu_bias_f32";
  expect_args(a, 10, k);
  int cin = scalar<int32_t>(a, 5, k), cout = scalar<int32_t>(a, 6, k), h = scalar<int32_t>(a, 7, k), w = scalar<int32_t>(a, 8, k);
  int ks = scalar<int32_t>(a, 9, k);
  const float* x = buffer<float>(a, 0, int64_t(g.z) * cin * h * w, k);
  const float* wt = buffer<float>(a, 1, int64_t(cout) * cin * ks * ks, k);
  const float* cb = buffer<float>(a, 2, cout, k);
  const float* bias = buffer<float>(a, 3, cout, k);
  float* y = buffer<float>(a, 4, int64_t(g.z) * cout * (h - ks + 1) * (w - ks + 1), k);
  conv_outputs(g, b, k, cout, h, w, ks, [&](int n, int co, int oy, int ox, int64_t at) {
    y[at] = float(std::max(conv_at(x, wt, cin, h, w, ks, n, co, oy, ox) + cb[co], 0.0) + bias[co]);
  });
}
void kb_depthwise_conv2d_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_depthwise_conv2d_f32";
  expect_args(a, 7, k);
  int c = scalar<int32_t>(a, 3, k), h = scalar<int32_t>(a, 4, k), w = scalar<int32_t>(a, 5, k), ks = scalar<int32_t>(a, 6, k);
  const float* x = buffer<float>(a, 0, int64_t(g.z) * c * h * w, k);
  const float* wt = buffer<float>(a, 1, int64_t(c) * ks * ks, k);
  float* y = buffer<float>(a, 2, int64_t(g.z) * c * (h - ks + 1) * (w - ks + 1), k);
  conv_outputs(g, b, k, c, h, w, ks, [&](int n, int ch, int oy, int ox, int64_t at) {
    double acc = 0;
    for (int ky = 0; ky < ks; ++ky)
      for (int kx = 0; kx < ks; ++kx)
        acc += double(x[((int64_t(n) * c + ch) * h + oy + ky) * w + ox + kx]) * wt[(int64_t(ch) * ks + ky) * ks + kx];
    y[at] = float(acc);
  });
}

// ---- matrix products
// 16 x 16 tiles: grid.x covers columns, grid.y rows.
void tiles(Dim3 g, Dim3 b, const char* k, int M, int N, int64_t* rows, int64_t* cols) {
  expect_block(b, 16, 16, 1, k);
  *rows = std::min<int64_t>(M, int64_t(g.y) * 16);
  *cols = std::min<int64_t>(N, int64_t(g.x) * 16);
}
void kb_matmul_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_matmul_f32";
  expect_args(a, 6, k);
  int M = scalar<int32_t>(a, 3, k), N = scalar<int32_t>(a, 4, k), K = scalar<int32_t>(a, 5, k);
  int64_t rows, cols;
  tiles(g, b, k, M, N, &rows, &cols);
  const float* A = buffer<float>(a, 0, int64_t(M) * K, k);
  const float* B = buffer<float>(a, 1, int64_t(K) * N, k);
  float* C = buffer<float>(a, 2, int64_t(M) * N, k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double s = 0;
      for (int kk = 0; kk < K; ++kk) s += double(A[r * K + kk]) * B[int64_t(kk) * N + c];
      C[r * N + c] = float(s);
    }
}
void kb_bmm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_bmm_f32";
  expect_args(a, 6, k);
  int M = scalar<int32_t>(a, 3, k), N = scalar<int32_t>(a, 4, k), K = scalar<int32_t>(a, 5, k);
  int64_t rows, cols, batch = g.z;
  tiles(g, b, k, M, N, &rows, &cols);
  const float* A = buffer<float>(a, 0, batch * M * K, k);
  const float* B = buffer<float>(a, 1, batch * K * N, k);
  float* C = buffer<float>(a, 2, batch * M * N, k);
  for (int64_t z = 0; z < batch; ++z)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        double s = 0;
        for (int kk = 0; kk < K; ++kk) s += double(A[(z * M + r) * K + kk]) * B[(z * K + kk) * N + c];
        C[(z * M + r) * N + c] = float(s);
      }
}
// X[M, K] x W[N, K]^T (+ epilogue on the double sum and the column).
template <class F> void linear(Args& a, Dim3 g, Dim3 b, const char* k, size_t nargs, int mnk_arg, int out_arg, F epi) {
  expect_args(a, nargs, k);
  int M = scalar<int32_t>(a, mnk_arg, k), N = scalar<int32_t>(a, mnk_arg + 1, k), K = scalar<int32_t>(a, mnk_arg + 2, k);
  int64_t rows, cols;
  tiles(g, b, k, M, N, &rows, &cols);
  const float* X = buffer<float>(a, 0, int64_t(M) * K, k);
  const float* W = buffer<float>(a, 1, int64_t(N) * K, k);
  float* Y = buffer<float>(a, out_arg, int64_t(M) * N, k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double s = 0;
      for (int kk = 0; kk < K; ++kk) s += double(X[r * K + kk]) * W[c * K + kk];
      Y[r * N + c] = float(epi(s, c));
    }
}
void kb_matmul_tb_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  linear(a, g, b, "kb_matmul_tb_f32", 6, 3, 2, [](double s, int64_t) { return s; });
}
void kb_gemm_mul_leakyrelu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_gemm_mul_leakyrelu_f32";
  const float mult = scalar<float>(a, 7, k), slope = scalar<float>(a, 8, k);
  const float* bias = buffer<float>(a, 2, scalar<int32_t>(a, 5, k), k);
  linear(a, g, b, k, 9, 4, 3, [&](double s, int64_t c) {
    double t = (s + bias[c]) * mult;
    return t >= 0 ? t : t * slope;
  });
}
void kb_gemm_add_relu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_gemm_add_relu_f32";
  const float* bias = buffer<float>(a, 2, scalar<int32_t>(a, 5, k), k);
  linear(a, g, b, k, 7, 4, 3, [&](double s, int64_t c) { return std::max(s + bias[c], 0.0); });
}
void kb_matmul_div_gelu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_matmul_div_gelu_f32";
  const float div = scalar<float>(a, 7, k);
  const float* bias = buffer<float>(a, 2, scalar<int32_t>(a, 5, k), k);
  linear(a, g, b, k, 8, 4, 3, [&](double s, int64_t c) { return gelu((s + bias[c]) / div); });
}
void kb_matvec_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_matvec_f32";
  expect_args(a, 5, k);
  expect_pow2(b, 256, k);
  int M = scalar<int32_t>(a, 3, k);
  int64_t K = scalar<int64_t>(a, 4, k), rows = std::min<int64_t>(M, g.x);
  const float* A = buffer<float>(a, 0, int64_t(M) * K, k);
  const float* x = buffer<float>(a, 1, K, k);
  float* y = buffer<float>(a, 2, M, k);
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t kk = 0; kk < K; ++kk) s += double(A[r * K + kk]) * x[kk];
    y[r] = float(s);
  }
}
void kb_matmul_tall_skinny_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "kb_matmul_tall_skinny_f32";
  expect_args(a, 5, k);
  if (b.z != 1) fail(k, "needs 2-D workgroups");
  int M = scalar<int32_t>(a, 3, k), K = scalar<int32_t>(a, 4, k);
  int64_t rows = std::min<int64_t>(M, int64_t(g.y) * b.y), cols = std::min<int64_t>(M, int64_t(g.x) * b.x);
  const float* A = buffer<float>(a, 0, int64_t(M) * K, k);
  const float* B = buffer<float>(a, 1, int64_t(K) * M, k);
  float* C = buffer<float>(a, 2, int64_t(M) * M, k);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      double s = 0;
      for (int kk = 0; kk < K; ++kk) s += double(A[r * K + kk]) * B[int64_t(kk) * M + c];
      C[r * M + c] = float(s);
    }
}

}  // namespace

void register_kernelbench(std::vector<ReferenceEntry>& out) {
  const char* trans = "rtol=1e-5,atol=1e-6: ocml expf/erff vs double";
  const char* sums = "rtol=1e-5,atol=1e-5: f32 sums in the kernel's order vs double";
  out.push_back({"kb_relu_f32", kb_relu_f32, "exact"});
  out.push_back({"kb_leaky_relu_f32", kb_leaky_relu_f32, "exact"});
  out.push_back({"kb_sigmoid_f32", kb_sigmoid_f32, trans});
  out.push_back({"kb_swish_f32", kb_swish_f32, trans});
  out.push_back({"kb_gelu_f32", kb_gelu_f32, trans});
  out.push_back({"kb_softmax_f32", kb_softmax_f32, "rtol=1e-5,atol=1e-6: ocml expf, f32 sum vs double"});
  out.push_back({"kb_log_softmax_f32", kb_log_softmax_f32, "rtol=1e-5,atol=1e-5: ocml expf/logf, f32 sum vs double"});
  out.push_back({"kb_l1norm_f32", kb_l1norm_f32, sums});
  out.push_back({"kb_cross_entropy_f32", kb_cross_entropy_f32, "rtol=1e-5,atol=1e-5: f32 logsumexp and float atomics vs double"});
  out.push_back({"kb_rmsnorm_f32", kb_rmsnorm_f32, sums});
  out.push_back({"kb_layernorm_f32", kb_layernorm_f32, "rtol=1e-4,atol=1e-5: f32 mean and variance in the kernel's order vs double"});
  out.push_back({"kb_sum_dim1_f32", kb_sum_dim1_f32, sums});
  out.push_back({"kb_max_dim1_f32", kb_max_dim1_f32, "exact"});
  out.push_back({"kb_argmax_dim1_f32", kb_argmax_dim1_f32, "exact"});
  out.push_back({"kb_cumsum_f32", kb_cumsum_f32, "rtol=1e-5,atol=1e-4: f32 scan (Hillis-Steele order) vs double"});
  out.push_back({"kb_mse_loss_f32", kb_mse_loss_f32, "rtol=1e-5,atol=1e-6: f32 tree sums and float atomics vs double"});
  out.push_back({"kb_huber_loss_f32", kb_huber_loss_f32, "rtol=1e-5,atol=1e-6: f32 tree sums and float atomics vs double"});
  out.push_back({"kb_maxpool2d_f32", kb_maxpool2d_f32, "exact"});
  out.push_back({"kb_avgpool1d_f32", kb_avgpool1d_f32, "rtol=1e-6,atol=1e-7: f32 window sum vs double"});
  out.push_back({"kb_conv2d_f32", kb_conv2d_f32, sums});
  out.push_back({"kb_conv2d_relu_bias_f32", kb_conv2d_relu_bias_f32, sums});
  out.push_back({"kb_depthwise_conv2d_f32", kb_depthwise_conv2d_f32, sums});
  out.push_back({"kb_matmul_f32", kb_matmul_f32, sums});
  out.push_back({"kb_bmm_f32", kb_bmm_f32, sums});
  out.push_back({"kb_matmul_tb_f32", kb_matmul_tb_f32, sums});
  out.push_back({"kb_gemm_mul_leakyrelu_f32", kb_gemm_mul_leakyrelu_f32, sums});
  out.push_back({"kb_gemm_add_relu_f32", kb_gemm_add_relu_f32, sums});
  out.push_back({"kb_matmul_div_gelu_f32", kb_matmul_div_gelu_f32, "rtol=1e-5,atol=1e-5: f32 sums and ocml erff vs double"});
  out.push_back({"kb_matvec_f32", kb_matvec_f32, sums});
  out.push_back({"kb_matmul_tall_skinny_f32", kb_matmul_tall_skinny_f32, sums});
}

}  // namespace asmevo::corpus::detail
