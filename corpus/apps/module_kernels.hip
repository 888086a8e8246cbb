// Device code for module_api (built as a bare code object, loaded with hipModuleLoad/LoadData).
#include <hip/hip_runtime.h>
extern "C" __global__ void relu(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] > 0 ? in[i] : 0.0f;
}
extern "C" __global__ void add_offset(float* p, float add, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += add;
}
