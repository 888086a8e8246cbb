// Tiny HIP kernels for the build tests, compiled at test time with clang++-22 -nogpulib: builtins
// only (no HIP headers' threadIdx). `scale` is straight-line code with a branch; `table_call`
// calls a non-inlined device function that reads a __constant__ table, so its code has
// s_getpc_b64 + rel32 relocations, s_swappc_b64 and a data section.
__constant__ float kTable[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__attribute__((noinline)) __device__ float lookup(int i) { return kTable[i & 7] * 2.0f; }

extern "C" __global__ void scale(float* out, const float* in, float a, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  if (i < n) out[i] = a * in[i];
}

extern "C" __global__ void table_call(float* out, int n) {
  int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 256;
  if (i < n) out[i] = lookup(i);
}
