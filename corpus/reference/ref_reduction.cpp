// References for the reduction / normalization kernels: reduce_sum_f32, reduce_max_rows_f32,
// argmax_rows_f32, mean_rows_f32, softmax_rows_f32, log_softmax_rows_f32, layernorm_f32, rmsnorm_f16.
#include <cmath>
#include <limits>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

void reduce_sum_f32(Args& a, Dim3, Dim3 b, uint32_t) {
  const char* k = "reduce_sum_f32";
  expect_args(a, 3, k);
  expect_wave_multiple(b, k);
  int n = scalar<int32_t>(a, 2, k);
  const float* x = buffer<float>(a, 0, n, k);
  float* out = buffer<float>(a, 1, 1, k);
  double s = 0.0;
  for (int i = 0; i < n; ++i) s += x[i];
  out[0] = static_cast<float>(static_cast<double>(out[0]) + s);  // atomicAdd onto the initial value
}

void reduce_max_rows_f32(Args& a, Dim3, Dim3 b, uint32_t) {
  const char* k = "reduce_max_rows_f32";
  expect_args(a, 4, k);
  expect_pow2(b, 256, k);
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  const float* x = buffer<float>(a, 0, int64_t(rows) * cols, k);
  float* out = buffer<float>(a, 1, rows, k);
  for (int r = 0; r < rows; ++r) {  // grid-stride over rows
    float m = kNegInf;
    for (int c = 0; c < cols; ++c) m = std::fmax(m, x[int64_t(r) * cols + c]);
    out[r] = m;
  }
}

void argmax_rows_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "argmax_rows_f32";
  expect_args(a, 4, k);
  if (b.x != 64 || b.z != 1) fail(k, "needs workgroups of 64 x R");
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  int64_t rr = covered(g.x, b.y, rows);  // row = blockIdx.x * blockDim.y + threadIdx.y
  const float* x = buffer<float>(a, 0, rr * cols, k);
  int32_t* out = buffer<int32_t>(a, 1, rr, k);
  for (int64_t r = 0; r < rr; ++r) {
    float best = kNegInf;
    int32_t idx = -1;
    for (int c = 0; c < cols; ++c)
      if (x[r * cols + c] > best) best = x[r * cols + c], idx = c;
    out[r] = idx;
  }
}

void mean_rows_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "mean_rows_f32";
  expect_args(a, 4, k);
  expect_wave_multiple(b, k);
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  int64_t rr = covered(g.x, 1, rows);
  const float* x = buffer<float>(a, 0, rr * cols, k);
  float* out = buffer<float>(a, 1, rr, k);
  for (int64_t r = 0; r < rr; ++r) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) s += x[r * cols + c];
    out[r] = static_cast<float>(s / cols);
  }
}

// Softmax / log-softmax of one row in double.
void softmax_row(const float* x, float* y, int cols, bool log) {
  double m = -std::numeric_limits<double>::infinity();
  for (int c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
  double s = 0.0;
  for (int c = 0; c < cols; ++c) s += std::exp(x[c] - m);
  double lse = m + std::log(s);
  for (int c = 0; c < cols; ++c)
    y[c] = static_cast<float>(log ? x[c] - lse : std::exp(x[c] - m) / s);
}

void softmax_rows_f32(Args& a, Dim3, Dim3 b, uint32_t dyn) {
  const char* k = "softmax_rows_f32";
  expect_args(a, 4, k);
  expect_pow2(b, 1024, k);
  if (dyn < b.x * 4) fail(k, "needs dynamic_lds >= blockDim.x * 4");
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  const float* x = buffer<float>(a, 0, int64_t(rows) * cols, k);
  float* y = buffer<float>(a, 1, int64_t(rows) * cols, k);
  for (int r = 0; r < rows; ++r) softmax_row(x + int64_t(r) * cols, y + int64_t(r) * cols, cols, false);
}

void log_softmax_rows_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "log_softmax_rows_f32";
  expect_args(a, 4, k);
  expect_wave_multiple(b, k);
  if (b.x > 256) fail(k, "__launch_bounds__(256)");
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  int64_t rr = covered(g.x, b.x / 64, rows);  // one wave per row
  const float* x = buffer<float>(a, 0, rr * cols, k);
  float* y = buffer<float>(a, 1, rr * cols, k);
  for (int64_t r = 0; r < rr; ++r) softmax_row(x + r * cols, y + r * cols, cols, true);
}

void layernorm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "layernorm_f32";
  expect_args(a, 7, k);
  expect_wave_multiple(b, k);
  int rows = scalar<int32_t>(a, 4, k), cols = scalar<int32_t>(a, 5, k);
  float eps = scalar<float>(a, 6, k);
  int64_t rr = covered(g.x, 1, rows);
  const float* x = buffer<float>(a, 0, rr * cols, k);
  const float* gamma = buffer<float>(a, 1, rr > 0 ? cols : 0, k);
  const float* beta = buffer<float>(a, 2, rr > 0 ? cols : 0, k);
  float* y = buffer<float>(a, 3, rr * cols, k);
  for (int64_t r = 0; r < rr; ++r) {
    const float* xr = x + r * cols;
    double mean = 0.0, var = 0.0;
    for (int c = 0; c < cols; ++c) mean += xr[c];
    mean /= cols;
    for (int c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean);
    var /= cols;
    double rstd = 1.0 / std::sqrt(var + static_cast<double>(eps));
    for (int c = 0; c < cols; ++c) y[r * cols + c] = static_cast<float>((xr[c] - mean) * rstd * gamma[c] + beta[c]);
  }
}

void rmsnorm_f16(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "rmsnorm_f16";
  expect_args(a, 6, k);
  expect_wave_multiple(b, k);
  int rows = scalar<int32_t>(a, 3, k), cols = scalar<int32_t>(a, 4, k);
  float eps = scalar<float>(a, 5, k);
  int64_t rr = covered(g.x, 1, rows);
  const uint16_t* x = buffer<uint16_t>(a, 0, rr * cols, k);
  const uint16_t* w = buffer<uint16_t>(a, 1, rr > 0 ? cols : 0, k);
  uint16_t* y = buffer<uint16_t>(a, 2, rr * cols, k);
  for (int64_t r = 0; r < rr; ++r) {
    double s = 0.0;
    for (int c = 0; c < cols; ++c) {
      double v = f16_to_f32(x[r * cols + c]);
      s += v * v;
    }
    double rs = 1.0 / std::sqrt(s / cols + static_cast<double>(eps));
    for (int c = 0; c < cols; ++c)
      y[r * cols + c] = f32_to_f16(static_cast<float>(f16_to_f32(x[r * cols + c]) * rs * f16_to_f32(w[c])));
  }
}

}  // namespace

void register_reduction(std::vector<ReferenceEntry>& out) {
  out.push_back({"reduce_sum_f32", reduce_sum_f32, "rtol=1e-5,atol=1e-3: f32 tree and atomic order vs double sum"});
  out.push_back({"reduce_max_rows_f32", reduce_max_rows_f32, "exact"});
  out.push_back({"argmax_rows_f32", argmax_rows_f32, "exact"});
  out.push_back({"mean_rows_f32", mean_rows_f32, "rtol=1e-5,atol=1e-6: f32 tree order vs double sum"});
  out.push_back({"softmax_rows_f32", softmax_rows_f32, "rtol=1e-5,atol=1e-7: ocml expf, f32 sums vs double"});
  out.push_back({"log_softmax_rows_f32", log_softmax_rows_f32, "rtol=1e-5,atol=1e-5: ocml expf/logf vs double"});
  out.push_back({"layernorm_f32", layernorm_f32, "rtol=1e-4,atol=1e-5: f32 mean/variance, rsqrtf vs double"});
  out.push_back({"rmsnorm_f16", rmsnorm_f16, "rtol=2e-3,atol=1e-3: f16 output, rsqrtf vs double"});
}

}  // namespace asmevo::corpus::detail
