// References for the elementwise kernels: vector_add, vector_add_f16x2, axpy_f32/f64, relu_f32,
// gelu_f16, silu_bf16, sigmoid_f32_vec4, tanh_f32, bias_gelu_f32.
#include <cmath>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

void vector_add(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "vector_add";
  expect_args(a, 4, k);
  int n = scalar<int32_t>(a, 3, k);
  int64_t m = covered(g.x, b.x, n);
  const float* x = buffer<float>(a, 0, m, k);
  const float* y = buffer<float>(a, 1, m, k);
  float* out = buffer<float>(a, 2, m, k);
  for (int64_t i = 0; i < m; ++i) out[i] = x[i] + y[i];
}

void vector_add_f16x2(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "vector_add_f16x2";
  expect_args(a, 4, k);
  int n = scalar<int32_t>(a, 3, k);
  int64_t m = covered(g.x, b.x * 2, n);  // work-item i handles elements 2i and 2i+1
  const uint16_t* x = buffer<uint16_t>(a, 0, m, k);
  const uint16_t* y = buffer<uint16_t>(a, 1, m, k);
  uint16_t* out = buffer<uint16_t>(a, 2, m, k);
  // The f32 sum of two f16 values rounded once to f16 equals the f16 sum (24 >= 2*11+2).
  for (int64_t i = 0; i < m; ++i) out[i] = f32_to_f16(f16_to_f32(x[i]) + f16_to_f32(y[i]));
}

template <class T> void axpy(Args& a, const char* k) {
  expect_args(a, 4, k);
  T alpha = scalar<T>(a, 0, k);
  int n = scalar<int32_t>(a, 3, k);
  const T* x = buffer<T>(a, 1, n, k);
  T* y = buffer<T>(a, 2, n, k);
  for (int i = 0; i < n; ++i) y[i] = std::fma(alpha, x[i], y[i]);  // grid-stride: all of n
}
void axpy_f32(Args& a, Dim3, Dim3, uint32_t) { axpy<float>(a, "axpy_f32"); }
void axpy_f64(Args& a, Dim3, Dim3, uint32_t) { axpy<double>(a, "axpy_f64"); }

void relu_f32(Args& a, Dim3, Dim3, uint32_t) {
  const char* k = "relu_f32";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  const float* x = buffer<float>(a, 0, n, k);
  float* y = buffer<float>(a, 1, n, k);
  for (int i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void gelu_f16(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "gelu_f16";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  int64_t m = covered(g.x, b.x, n);
  const uint16_t* x = buffer<uint16_t>(a, 0, m, k);
  uint16_t* y = buffer<uint16_t>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) {
    double v = f16_to_f32(x[i]);
    y[i] = f32_to_f16(static_cast<float>(0.5 * v * (1.0 + std::erf(v * 0.70710678118654752))));
  }
}

void silu_bf16(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "silu_bf16";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  int64_t m = covered(g.x, b.x, n);
  const uint16_t* x = buffer<uint16_t>(a, 0, m, k);
  uint16_t* y = buffer<uint16_t>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) {
    double v = bf16_to_f32(x[i]);
    y[i] = f32_to_bf16(static_cast<float>(v / (1.0 + std::exp(-v))));
  }
}

void sigmoid_f32_vec4(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "sigmoid_f32_vec4";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  int64_t m = covered(g.x, b.x * 4, n);  // work-item i handles elements 4i .. 4i+3
  const float* x = buffer<float>(a, 0, m, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) y[i] = static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(x[i]))));
}

void tanh_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "tanh_f32";
  expect_args(a, 3, k);
  int n = scalar<int32_t>(a, 2, k);
  int64_t m = covered(g.x, b.x, n);
  const float* x = buffer<float>(a, 0, m, k);
  float* y = buffer<float>(a, 1, m, k);
  for (int64_t i = 0; i < m; ++i) y[i] = static_cast<float>(std::tanh(static_cast<double>(x[i])));
}

void bias_gelu_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "bias_gelu_f32";
  expect_args(a, 5, k);
  int rows = scalar<int32_t>(a, 3, k), cols = scalar<int32_t>(a, 4, k);
  int64_t rr = covered(g.y, b.y, rows), cc = covered(g.x, b.x, cols);
  int64_t need = rr > 0 ? (rr - 1) * cols + cc : 0;
  const float* x = buffer<float>(a, 0, need, k);
  const float* bias = buffer<float>(a, 1, cc, k);
  float* y = buffer<float>(a, 2, need, k);
  for (int64_t r = 0; r < rr; ++r)
    for (int64_t c = 0; c < cc; ++c) {
      double v = static_cast<double>(x[r * cols + c] + bias[c]);  // the kernel adds in f32
      double t = std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v));
      y[r * cols + c] = static_cast<float>(0.5 * v * (1.0 + t));
    }
}

}  // namespace

void register_elementwise(std::vector<ReferenceEntry>& out) {
  out.push_back({"vector_add", vector_add, "exact"});
  out.push_back({"vector_add_f16x2", vector_add_f16x2, "exact"});
  out.push_back({"axpy_f32", axpy_f32, "rtol=1e-6,atol=1e-7: reference uses fma, the kernel may not contract"});
  out.push_back({"axpy_f64", axpy_f64, "rtol=1e-14,atol=1e-15: reference uses fma, the kernel may not contract"});
  out.push_back({"relu_f32", relu_f32, "exact"});
  out.push_back({"gelu_f16", gelu_f16, "rtol=2e-3,atol=1e-4: f16 output, ocml erff vs double erf"});
  out.push_back({"silu_bf16", silu_bf16, "rtol=1.6e-2,atol=1e-3: bf16 output, ocml expf vs double exp"});
  out.push_back({"sigmoid_f32_vec4", sigmoid_f32_vec4, "rtol=1e-5,atol=1e-6: ocml expf vs double exp"});
  out.push_back({"tanh_f32", tanh_f32, "rtol=1e-5,atol=1e-6: ocml tanhf vs double tanh"});
  out.push_back({"bias_gelu_f32", bias_gelu_f32, "rtol=1e-5,atol=1e-6: ocml tanhf, f32 polynomial vs double"});
}

}  // namespace asmevo::corpus::detail
