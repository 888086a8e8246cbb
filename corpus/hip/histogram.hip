// Byte histogram into nbins (<= 256) equal-width bins: per-workgroup LDS histogram with LDS
// atomics, merged into hist with global atomicAdd (hist is accumulated into). The bin mapping
// is a real device-function call (__noinline__).
#include "common.h"

__device__ __noinline__ int bin_of(unsigned v, int nbins) { return (int)((v * (unsigned)nbins) >> 8); }

extern "C" __global__ void histogram_u8(const unsigned char* data, unsigned* hist, int n, int nbins) {
  __shared__ unsigned local[256];
  nbins = nbins < 1 ? 1 : (nbins > 256 ? 256 : nbins);
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[bin_of(data[i], nbins)], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < nbins; b += blockDim.x)
    if (local[b] != 0u) atomicAdd(&hist[b], local[b]);
}
