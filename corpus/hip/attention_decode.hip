// Single-query attention decode: one workgroup per head h,
//   s[j]   = scale * dot(q[h], k[h][j])            j < seq
//   p[j]   = exp(s[j] - max s) / sum exp(...)
//   out[h] = sum_j p[j] * v[h][j]
// q: [heads][dim], k, v: [heads][seq][dim]. Scores live in dynamic LDS: launch with
// dynamic_lds = (seq + 16) * 4 bytes. blockDim.x must be a multiple of 64.
#include "common.h"

extern "C" __global__ void attention_decode_f32(const float* q, const float* k, const float* v, float* out,
                                                int heads, int seq, int dim, float scale) {
  extern __shared__ float smem[];
  float* scores = smem;
  float* red = smem + seq;
  int h = blockIdx.x;
  if (h >= heads) return;  // uniform per workgroup
  int tid = threadIdx.x;
  const float* qh = q + (size_t)h * dim;
  const float* kh = k + (size_t)h * seq * dim;
  const float* vh = v + (size_t)h * seq * dim;
  float m = -INFINITY;
  for (int j = tid; j < seq; j += blockDim.x) {
    float d = 0.0f;
    for (int e = 0; e < dim; ++e) d += qh[e] * kh[(size_t)j * dim + e];
    d *= scale;
    scores[j] = d;
    m = fmaxf(m, d);
  }
  m = block_max(m, red);
  float sum = 0.0f;
  for (int j = tid; j < seq; j += blockDim.x) {
    float p = expf(scores[j] - m);
    scores[j] = p;
    sum += p;
  }
  sum = block_sum(sum, red);  // its barriers also publish scores[]
  float inv = 1.0f / sum;
  for (int e = tid; e < dim; e += blockDim.x) {
    float acc = 0.0f;
    for (int j = 0; j < seq; ++j) acc += scores[j] * vh[(size_t)j * dim + e];
    out[(size_t)h * dim + e] = acc * inv;
  }
}
