// A VALU-heavy kernel for the emulator benchmark: per lane, a long dependent chain of f32 FMAs and
// integer mixing between one load and one store. Builtins only (compiled with -nogpulib -nogpuinc).
#define __global__ __attribute__((global))

extern "C" __global__ void valu_chain(const float* __restrict__ in, float* __restrict__ out, int n, int rounds) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i >= n) return;
  float x = in[i];
  unsigned h = static_cast<unsigned>(i) * 2654435761u;
  for (int r = 0; r < rounds; ++r) {
#pragma unroll
    for (int k = 0; k < 16; ++k) {
      x = __builtin_fmaf(x, 0.999f, 0.001f * static_cast<float>(k));
      h = (h ^ (h >> 13)) * 0x5bd1e995u + static_cast<unsigned>(k);
    }
  }
  out[i] = x + static_cast<float>(h & 0xff);
}
