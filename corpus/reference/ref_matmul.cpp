// References for the matrix kernels: matmul_naive_f32, matmul_tiled_f32, the MFMA matmuls
// (f16 / bf16 / f32, 16x16 and 32x32 tiles), bmm_f32 and transpose_lds_f32.
#include <cmath>

#include "corpus/reference/detail.h"

namespace asmevo::corpus::detail {
namespace {

// C[r][c] = sum_k A[r][k] * B[k][c] for r < rows_cov, c < cols_cov (double accumulation).
template <class T, class Conv>
void matmul(const T* A, const T* B, float* C, int64_t rows_cov, int64_t cols_cov, int N, int K, Conv conv) {
  for (int64_t r = 0; r < rows_cov; ++r)
    for (int64_t c = 0; c < cols_cov; ++c) {
      double acc = 0.0;
      for (int kk = 0; kk < K; ++kk) acc += double(conv(A[r * K + kk])) * double(conv(B[int64_t(kk) * N + c]));
      C[r * N + c] = static_cast<float>(acc);
    }
}

float same(float v) { return v; }
float from_f16(uint16_t v) { return f16_to_f32(v); }
float from_bf16(uint16_t v) { return bf16_to_f32(v); }

struct Mnk {
  int M, N, K;
  int64_t rows, cols;  // covered output rows / columns
};

Mnk mnk(Args& a, const char* k, int64_t rows_per_y, int64_t cols_per_x, Dim3 g) {
  expect_args(a, 6, k);
  Mnk s{scalar<int32_t>(a, 3, k), scalar<int32_t>(a, 4, k), scalar<int32_t>(a, 5, k), 0, 0};
  s.rows = covered(g.y, static_cast<uint32_t>(rows_per_y), s.M);
  s.cols = covered(g.x, static_cast<uint32_t>(cols_per_x), s.N);
  return s;
}

void matmul_naive_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "matmul_naive_f32";
  Mnk s = mnk(a, k, b.y, b.x, g);
  const float* A = buffer<float>(a, 0, int64_t(s.M) * s.K, k);
  const float* B = buffer<float>(a, 1, int64_t(s.K) * s.N, k);
  float* C = buffer<float>(a, 2, int64_t(s.M) * s.N, k);
  matmul(A, B, C, s.rows, s.cols, s.N, s.K, same);
}

void matmul_tiled_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "matmul_tiled_f32";
  expect_block(b, 16, 16, 1, k);
  Mnk s = mnk(a, k, 16, 16, g);
  const float* A = buffer<float>(a, 0, int64_t(s.M) * s.K, k);
  const float* B = buffer<float>(a, 1, int64_t(s.K) * s.N, k);
  float* C = buffer<float>(a, 2, int64_t(s.M) * s.N, k);
  matmul(A, B, C, s.rows, s.cols, s.N, s.K, same);
}

template <class T, float (*Conv)(T)> void mfma(Args& a, Dim3 g, Dim3 b, int tile, const char* k) {
  expect_block(b, 64, 1, 1, k);
  Mnk s = mnk(a, k, tile, tile, g);
  const T* A = buffer<T>(a, 0, int64_t(s.M) * s.K, k);
  const T* B = buffer<T>(a, 1, int64_t(s.K) * s.N, k);
  float* C = buffer<float>(a, 2, int64_t(s.M) * s.N, k);
  matmul(A, B, C, s.rows, s.cols, s.N, s.K, Conv);
}

void mfma16_f16(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<uint16_t, from_f16>(a, g, b, 16, "matmul_mfma_16x16x16_f16"); }
void mfma32_f16(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<uint16_t, from_f16>(a, g, b, 32, "matmul_mfma_32x32x8_f16"); }
void mfma16_bf16(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<uint16_t, from_bf16>(a, g, b, 16, "matmul_mfma_16x16x16_bf16"); }
void mfma32_bf16(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<uint16_t, from_bf16>(a, g, b, 32, "matmul_mfma_32x32x8_bf16"); }
void mfma16_f32(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<float, same>(a, g, b, 16, "matmul_mfma_16x16x4_f32"); }
void mfma32_f32(Args& a, Dim3 g, Dim3 b, uint32_t) { mfma<float, same>(a, g, b, 32, "matmul_mfma_32x32x2_f32"); }

void bmm_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "bmm_f32";
  expect_args(a, 7, k);
  int batch = scalar<int32_t>(a, 3, k), M = scalar<int32_t>(a, 4, k), N = scalar<int32_t>(a, 5, k),
      K = scalar<int32_t>(a, 6, k);
  int64_t bb = covered(g.z, 1, batch), rows = covered(g.y, b.y, M), cols = covered(g.x, b.x, N);
  const float* A = buffer<float>(a, 0, int64_t(batch) * M * K, k);
  const float* B = buffer<float>(a, 1, int64_t(batch) * K * N, k);
  float* C = buffer<float>(a, 2, int64_t(batch) * M * N, k);
  for (int64_t i = 0; i < bb; ++i)
    matmul(A + i * M * K, B + i * K * N, C + i * M * N, rows, cols, N, K, same);
}

void transpose_lds_f32(Args& a, Dim3 g, Dim3 b, uint32_t) {
  const char* k = "transpose_lds_f32";
  expect_args(a, 4, k);
  expect_block(b, 32, 8, 1, k);
  int rows = scalar<int32_t>(a, 2, k), cols = scalar<int32_t>(a, 3, k);
  const float* in = buffer<float>(a, 0, int64_t(rows) * cols, k);
  float* out = buffer<float>(a, 1, int64_t(rows) * cols, k);
  int64_t rr = covered(g.y, 32, rows), cc = covered(g.x, 32, cols);
  for (int64_t r = 0; r < rr; ++r)
    for (int64_t c = 0; c < cc; ++c) out[c * rows + r] = in[r * cols + c];
}

}  // namespace

void register_matmul(std::vector<ReferenceEntry>& out) {
  const char* f32 = "rtol=1e-4,atol=1e-4: f32 accumulation order vs double";
  const char* mat = "rtol=1e-4,atol=1e-4: exact products, MFMA accumulation order vs double";
  out.push_back({"matmul_naive_f32", matmul_naive_f32, f32});
  out.push_back({"matmul_tiled_f32", matmul_tiled_f32, f32});
  out.push_back({"matmul_mfma_16x16x16_f16", mfma16_f16, mat});
  out.push_back({"matmul_mfma_32x32x8_f16", mfma32_f16, mat});
  out.push_back({"matmul_mfma_16x16x16_bf16", mfma16_bf16, mat});
  out.push_back({"matmul_mfma_32x32x8_bf16", mfma32_bf16, mat});
  out.push_back({"matmul_mfma_16x16x4_f32", mfma16_f32, "rtol=1e-4,atol=1e-4: MFMA f32 accumulation order vs double"});
  out.push_back({"matmul_mfma_32x32x2_f32", mfma32_f32, "rtol=1e-4,atol=1e-4: MFMA f32 accumulation order vs double"});
  out.push_back({"bmm_f32", bmm_f32, f32});
  out.push_back({"transpose_lds_f32", transpose_lds_f32, "exact"});
}

}  // namespace asmevo::corpus::detail
