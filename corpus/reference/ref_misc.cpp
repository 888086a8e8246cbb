// References for scans, histogram, cross-entropy, gather / scatter and attention decode.
#include <cmath>
#include <limits>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

void prefix_scan_inclusive_i32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "prefix_scan_inclusive_i32";
  expect_args(a, 3, k);
  if (b.x == 0 || b.x > 1024 || b.y != 1 || b.z != 1) fail(k, "needs 1-D workgroups of at most 1024");
  int n = scalar<int32_t>(a, 2, k);
  if (g.x == 0) return;  // only workgroup 0 works
  const int32_t* x = buffer<int32_t>(a, 0, n, k);
  int32_t* y = buffer<int32_t>(a, 1, n, k);
  uint32_t s = 0;  // two's-complement wrap-around, like the GPU
  for (int i = 0; i < n; ++i) y[i] = static_cast<int32_t>(s += static_cast<uint32_t>(x[i]));
}

void scan_blocks_exclusive_u32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "scan_blocks_exclusive_u32";
  expect_args(a, 4, k);
  expect_wave_multiple(b, k);
  int n = scalar<int32_t>(a, 3, k);
  int64_t m = covered(g.x, b.x, n);
  const uint32_t* x = buffer<uint32_t>(a, 0, m, k);
  uint32_t* y = buffer<uint32_t>(a, 1, m, k);
  uint32_t* sums = buffer<uint32_t>(a, 2, g.x, k);
  for (uint32_t blk = 0; blk < g.x; ++blk) {
    uint32_t s = 0;
    for (int64_t i = int64_t(blk) * b.x; i < int64_t(blk + 1) * b.x; ++i) {
      if (i >= n) continue;  // the tail contributes 0
      y[i] = s;
      s += x[i];
    }
    sums[blk] = s;
  }
}

void histogram_u8(Args& a, Dim3, Dim3, uint32_t) {
  const char* k = "histogram_u8";
  expect_args(a, 4, k);
  int n = scalar<int32_t>(a, 2, k), nbins = scalar<int32_t>(a, 3, k);
  nbins = nbins < 1 ? 1 : (nbins > 256 ? 256 : nbins);
  const uint8_t* data = buffer<uint8_t>(a, 0, n, k);
  uint32_t* hist = buffer<uint32_t>(a, 1, nbins, k);
  for (int i = 0; i < n; ++i) hist[(static_cast<uint32_t>(data[i]) * static_cast<uint32_t>(nbins)) >> 8] += 1;
}

void cross_entropy_rows_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "cross_entropy_rows_f32";
  expect_args(a, 6, k);
  if (b.x != 64 || b.z != 1) fail(k, "needs workgroups of 64 x R");
  int rows = scalar<int32_t>(a, 4, k), classes = scalar<int32_t>(a, 5, k);
  int64_t rr = covered(g.x, b.y, rows);
  const float* x = buffer<float>(a, 0, rr * classes, k);
  const int32_t* labels = buffer<int32_t>(a, 1, rr, k);
  float* loss = buffer<float>(a, 2, rr, k);
  float* total = buffer<float>(a, 3, 1, k);
  double t = total[0];
  for (int64_t r = 0; r < rr; ++r) {
    const float* xr = x + r * classes;
    double m = -std::numeric_limits<double>::infinity(), s = 0.0;
    for (int c = 0; c < classes; ++c) m = std::fmax(m, xr[c]);
    for (int c = 0; c < classes; ++c) s += std::exp(xr[c] - m);
    int lab = labels[r];
    double l = (lab >= 0 && lab < classes) ? m + std::log(s) - xr[lab] : 0.0;
    loss[r] = static_cast<float>(l);
    t += l / rows;
  }
  total[0] = static_cast<float>(t);
}

void gather_rows_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "gather_rows_f32";
  expect_args(a, 6, k);
  int n = scalar<int32_t>(a, 3, k), dim = scalar<int32_t>(a, 4, k), vocab = scalar<int32_t>(a, 5, k);
  int64_t rr = covered(g.y, b.y, n), dd = covered(g.x, b.x, dim);
  const float* table = buffer<float>(a, 0, rr > 0 && dd > 0 ? int64_t(vocab) * dim : 0, k);
  const int32_t* idx = buffer<int32_t>(a, 1, dd > 0 ? rr : 0, k);
  float* out = buffer<float>(a, 2, int64_t(n) * dim, k);
  for (int64_t r = 0; r < rr; ++r) {
    int t = idx[r];
    t = t < 0 ? 0 : (t >= vocab ? vocab - 1 : t);
    for (int64_t d = 0; d < dd; ++d) out[r * dim + d] = table[int64_t(t) * dim + d];
  }
}

void scatter_add_f32(Args& a, Dim3, Dim3, uint32_t) {
  const char* k = "scatter_add_f32";
  expect_args(a, 5, k);
  int n = scalar<int32_t>(a, 3, k), m = scalar<int32_t>(a, 4, k);
  const float* src = buffer<float>(a, 0, n, k);
  const int32_t* idx = buffer<int32_t>(a, 1, n, k);
  float* out = buffer<float>(a, 2, m, k);
  std::vector<double> acc(out, out + (m > 0 ? m : 0));
  for (int i = 0; i < n; ++i)
    if (idx[i] >= 0 && idx[i] < m) acc[idx[i]] += src[i];
  for (int j = 0; j < m; ++j) out[j] = static_cast<float>(acc[j]);
}

void attention_decode_f32(Args& a, Dim3 g, Dim3 b, uint32_t dyn) {
  const char* k = "attention_decode_f32";
  expect_args(a, 8, k);
  expect_wave_multiple(b, k);
  int heads = scalar<int32_t>(a, 4, k), seq = scalar<int32_t>(a, 5, k), dim = scalar<int32_t>(a, 6, k);
  float scale = scalar<float>(a, 7, k);
  if (int64_t(dyn) < (int64_t(seq) + 16) * 4) fail(k, "needs dynamic_lds >= (seq + 16) * 4");
  int64_t hh = covered(g.x, 1, heads);
  const float* q = buffer<float>(a, 0, hh * dim, k);
  const float* kk = buffer<float>(a, 1, hh * seq * dim, k);
  const float* v = buffer<float>(a, 2, hh * seq * dim, k);
  float* out = buffer<float>(a, 3, hh * dim, k);
  std::vector<double> p(seq > 0 ? seq : 0);
  for (int64_t h = 0; h < hh; ++h) {
    const float* qh = q + h * dim;
    const float* kh = kk + h * seq * dim;
    const float* vh = v + h * seq * dim;
    double m = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int j = 0; j < seq; ++j) {
      double d = 0.0;
      for (int e = 0; e < dim; ++e) d += double(qh[e]) * kh[int64_t(j) * dim + e];
      p[j] = d * scale;
      m = std::fmax(m, p[j]);
    }
    for (int j = 0; j < seq; ++j) sum += (p[j] = std::exp(p[j] - m));
    for (int e = 0; e < dim; ++e) {
      double acc = 0.0;
      for (int j = 0; j < seq; ++j) acc += p[j] * vh[int64_t(j) * dim + e];
      out[h * dim + e] = static_cast<float>(acc / sum);
    }
  }
}

}  // namespace

void register_misc(std::vector<ReferenceEntry>& out) {
  out.push_back({"prefix_scan_inclusive_i32", prefix_scan_inclusive_i32, "exact"});
  out.push_back({"scan_blocks_exclusive_u32", scan_blocks_exclusive_u32, "exact"});
  out.push_back({"histogram_u8", histogram_u8, "exact"});
  out.push_back({"cross_entropy_rows_f32", cross_entropy_rows_f32, "rtol=1e-5,atol=1e-5: ocml expf/logf, atomic order vs double"});
  out.push_back({"gather_rows_f32", gather_rows_f32, "exact"});
  out.push_back({"scatter_add_f32", scatter_add_f32, "rtol=1e-5,atol=1e-5: atomic order vs double sum"});
  out.push_back({"attention_decode_f32", attention_decode_f32, "rtol=1e-4,atol=1e-5: ocml expf, f32 dot products vs double"});
}

}  // namespace asmevo::corpus::detail
