// Small kernels compiled at test time (clang++ -x hip --offload-device-only -nogpuinc) whose
// whole .text the decoder must reproduce exactly as llvm-objdump prints it. Builtins only, so
// no HIP headers or device libraries are needed.
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

static __attribute__((device)) unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) unsigned bid() { return __builtin_amdgcn_workgroup_id_x(); }

extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = bid() * 256 + tid();
  if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduce_sum(const float* x, float* out, int n) {
  __shared__ float buf[256];
  unsigned t = tid();
  float s = 0;
  for (int i = bid() * 256 + t; i < n; i += 256 * 1024) s += x[i];
  buf[t] = s;
  __builtin_amdgcn_s_barrier();
  for (unsigned w = 128; w > 0; w >>= 1) {
    if (t < w) buf[t] += buf[t + w];
    __builtin_amdgcn_s_barrier();
  }
  if (t == 0) __atomic_fetch_add(out, buf[0], __ATOMIC_RELAXED);
}

extern "C" __global__ void histogram(const unsigned char* in, unsigned* bins, int n) {
  __shared__ unsigned local[256];
  unsigned t = tid();
  local[t] = 0;
  __builtin_amdgcn_s_barrier();
  for (int i = bid() * 256 + t; i < n; i += 256 * 64) __atomic_fetch_add(&local[in[i]], 1u, __ATOMIC_RELAXED);
  __builtin_amdgcn_s_barrier();
  __atomic_fetch_add(&bins[t], local[t], __ATOMIC_RELAXED);
}

extern "C" __global__ void mfma_tile(const half4* a, const half4* b, float16* c, int k) {
  float16 acc = c[tid()];
  for (int i = 0; i < k; ++i)
    acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a[i * 64 + tid()], b[i * 64 + tid()], acc, 0, 0, 0);
  c[tid()] = acc;
}

extern "C" __global__ void shuffle_max(const float* x, float* out) {
  float v = x[bid() * 64 + tid()];
  for (int off = 32; off > 0; off >>= 1) {
    int other = __builtin_amdgcn_ds_bpermute(((tid() + off) & 63) << 2, __builtin_bit_cast(int, v));
    v = __builtin_fmaxf(v, __builtin_bit_cast(float, other));
  }
  if (tid() == 0) out[bid()] = v;
}
