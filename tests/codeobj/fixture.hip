// A small fixture for code-object tests: two kernels, LDS, a device-function call, a data table.
// It uses compiler builtins instead of threadIdx/__syncthreads so that it links without the
// ROCm device libraries (the corpus under corpus/hip covers the full HIP idioms).
#define TID_X __builtin_amdgcn_workitem_id_x()
#define WG_X __builtin_amdgcn_workgroup_id_x()
#define BLOCK 256

static inline __device__ void barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

__constant__ float kScale[4] = {1.0f, 2.0f, 3.0f, 4.0f};

__device__ __attribute__((noinline)) float scale_of(int i) { return kScale[i & 3]; }

extern "C" __global__ void fixture_scale(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = WG_X * BLOCK + TID_X;
  if (i < n) y[i] = x[i] * scale_of(i);
}

extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, BLOCK))) void fixture_block_sum(const float* x, float* out, int n) {
  __shared__ float partial[BLOCK];
  int i = WG_X * BLOCK + TID_X;
  partial[TID_X] = i < n ? x[i] : 0.0f;
  barrier();
  for (int s = BLOCK / 2; s > 0; s >>= 1) {
    if (TID_X < s) partial[TID_X] += partial[TID_X + s];
    barrier();
  }
  if (TID_X == 0) out[WG_X] = partial[0];
}
