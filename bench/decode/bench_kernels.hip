// Kernels built only to give the decode benchmark a large, realistic .text (tens of thousands of
// instructions): fully unrolled MFMA tiles, LDS staging, reductions and elementwise math.
// Builtins only (compiled with -nogpuinc -nogpulib).
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define DEVICE static __attribute__((device)) inline
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4_ __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

DEVICE unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
DEVICE unsigned bid() { return __builtin_amdgcn_workgroup_id_x(); }

template <int K>
DEVICE void mfma_tile(const half4* __restrict a, const half4* __restrict b, float16* __restrict c) {
  __shared__ half4 sa[K * 64], sb[K * 64];
#pragma unroll
  for (int i = 0; i < K; ++i) {
    sa[i * 64 + tid()] = a[bid() * K * 64 + i * 64 + tid()];
    sb[i * 64 + tid()] = b[bid() * K * 64 + i * 64 + tid()];
  }
  __builtin_amdgcn_s_barrier();
  float16 acc0 = {}, acc1 = {};
#pragma unroll
  for (int i = 0; i < K; ++i) {
    acc0 = __builtin_amdgcn_mfma_f32_32x32x8f16(sa[i * 64 + tid()], sb[i * 64 + tid()], acc0, 0, 0, 0);
    acc1 = __builtin_amdgcn_mfma_f32_32x32x8f16(sb[i * 64 + tid()], sa[i * 64 + tid()], acc1, 0, 0, 0);
  }
  c[bid() * 128 + tid()] = acc0 + acc1;
}

template <int N>
DEVICE float poly(float x) {
  float r = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) r = __builtin_fmaf(r, x, 1.0f / (i + 1)) + __builtin_sqrtf(r * r + x);
  return r;
}

template <int N>
DEVICE void elementwise(const float* __restrict x, float* __restrict y, int n) {
#pragma unroll
  for (int j = 0; j < N; ++j) {
    int i = (bid() * N + j) * 256 + tid();
    if (i < n) y[i] = poly<16>(x[i]) * (x[i] > 0 ? 1.0f : 0.01f);
  }
}

template <int W>
DEVICE void reduce(const float* __restrict x, float* __restrict out, int n) {
  __shared__ float buf[1024];
  float s = 0;
#pragma unroll 8
  for (int i = bid() * 1024 + tid(); i < n; i += 1024 * 4096) s += x[i] * x[i];
  buf[tid()] = s;
  __builtin_amdgcn_s_barrier();
#pragma unroll
  for (int w = W / 2; w > 0; w >>= 1) {
    if (tid() < (unsigned)w) buf[tid()] = __builtin_fmaxf(buf[tid()], buf[tid() + w]);
    __builtin_amdgcn_s_barrier();
  }
  if (tid() == 0) __atomic_fetch_add(out, buf[0], __ATOMIC_RELAXED);
}

#define KERNELS(S)                                                                                   \
  extern "C" __global__ void mfma##S(const half4* a, const half4* b, float16* c) { mfma_tile<S>(a, b, c); } \
  extern "C" __global__ void ew##S(const float* x, float* y, int n) { elementwise<S>(x, y, n); }      \
  extern "C" __global__ void red##S(const float* x, float* o, int n) { reduce<S * 16>(x, o, n); }

KERNELS(8)
KERNELS(16)
KERNELS(32)
KERNELS(64)
