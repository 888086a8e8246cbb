// Calibration kernels: each does what one published MI300X/MI250X measurement did
// (/work/shared/notes/mi300x-measured.md), so the model can be held against it (calibration_bench.cpp).
#include <hip/hip_runtime.h>
#include <stdint.h>

// Work-item and workgroup ids straight from the hardware registers: no device library is linked.
#define TID __builtin_amdgcn_workitem_id_x()
#define BID __builtin_amdgcn_workgroup_id_x()
#define BARRIER()                                        \
  do {                                                   \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
    __builtin_amdgcn_s_barrier();                        \
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); \
  } while (0)
constexpr uint32_t kBlock = 256;  // the launches of these kernels use 256 work-items per workgroup (add_rmsnorm_fp8: its own rule)

// Pointer chase (latency ladder): one lane, each address depends on the value loaded before it. The
// buffer is zero, so the next index is (j + stride) & mask: one new 128-byte line per step over a
// footprint of mask + 1 words; a second pass over the same footprint hits wherever the lines stayed.
// The index starts as TID >> 6 (0 in the one 64-lane wave launched, but not provably uniform), so the
// loads are vector loads through the L1 as in a HIP/OpenCL chase, not scalar loads.
extern "C" __global__ void chase(const uint32_t* buf, uint32_t steps, uint32_t stride, uint32_t mask, uint32_t* out) {
  uint32_t j = TID >> 6;
  for (uint32_t s = 0; s < steps; ++s) j = (buf[j] + j + stride) & mask;
  if (TID == 0) out[BID] = j;
}

// BabelStream's five kernels (double precision, one element per work-item).
extern "C" __global__ void stream_copy(const double* a, double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) c[i] = a[i];
}
extern "C" __global__ void stream_mul(double* b, const double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) b[i] = 0.4 * c[i];
}
extern "C" __global__ void stream_add(const double* a, const double* b, double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void stream_triad(double* a, const double* b, const double* c, uint32_t n) {
  uint32_t i = BID * kBlock + TID;
  if (i < n) a[i] = b[i] + 0.4 * c[i];
}
// Dot: each workgroup reduces its grid-stride share in LDS and writes one partial sum.
extern "C" __global__ void stream_dot(const double* a, const double* b, double* sums, uint32_t n, uint32_t groups) {
  __shared__ double part[256];
  double s = 0;
  for (uint32_t i = BID * kBlock + TID; i < n; i += groups * kBlock) s += a[i] * b[i];
  part[TID] = s;
  BARRIER();
  for (uint32_t w = kBlock / 2; w > 0; w /= 2) {
    if (TID < w) part[TID] += part[TID + w];
    BARRIER();
  }
  if (TID == 0) sums[BID] = part[0];
}

// Plain read (fleet-amd-task "plain read, 1 GiB"): float4 loads, one sum per work-item.
extern "C" __global__ void read_f32x4(const float4* a, float* out, uint32_t n4, uint32_t groups) {
  float s = 0;
  for (uint32_t i = BID * kBlock + TID; i < n4; i += groups * kBlock) {
    float4 v = a[i];
    s += v.x + v.y + v.z + v.w;
  }
  out[BID * kBlock + TID] = s;
}

// MFMA issue-to-issue: one wave, a chain of `iters` x 8 MFMAs on four independent accumulators.
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16v __attribute__((ext_vector_type(16)));
typedef float float4v __attribute__((ext_vector_type(4)));
extern "C" __global__ void mfma_32x32x8f16(const half4* ab, float* out, uint32_t iters) {
  half4 a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
// The same chain for the MAF blog's other two data types (bf16, fp8: the sustained clock differs per type).
typedef short short4v __attribute__((ext_vector_type(4)));
extern "C" __global__ void mfma_32x32x8bf16(const short4v* ab, float* out, uint32_t iters) {
  short4v a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
#if defined(__gfx942__)  // fp8 MFMAs are gfx942 instructions
extern "C" __global__ void mfma_32x32x16fp8(const long* ab, float* out, uint32_t iters) {
  long a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
#endif
extern "C" __global__ void mfma_16x16x16f16(const half4* ab, float* out, uint32_t iters) {
  half4 a = ab[TID], b = ab[TID + 64];
  float4v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
extern "C" __global__ void mfma_32x32x2f32(const float* ab, float* out, uint32_t iters) {
  float a = ab[TID], b = ab[TID + 64];
  float16v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_32x32x2f32(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}
extern "C" __global__ void mfma_16x16x4f32(const float* ab, float* out, uint32_t iters) {
  float a = ab[TID], b = ab[TID + 64];
  float4v c0 = {}, c1 = {}, c2 = {}, c3 = {};
  for (uint32_t i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 2; ++k) {
      c0 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c0, 0, 0, 0);
      c1 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c1, 0, 0, 0);
      c2 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c2, 0, 0, 0);
      c3 = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c3, 0, 0, 0);
    }
  }
  out[TID] = c0[0] + c1[1] + c2[2] + c3[3];
}

// Bandwidth against footprint (fleet-amd-task's curve, Chips and Cheese's Infinity Cache figure): the
// plain read above, `passes` times over the same footprint in one launch, as back-to-back launches
// over one buffer would: each pass a workgroup takes the share of the workgroup 8 after it (same XCD,
// since workgroups go round robin over the 8 XCDs, another CU), so the L2 and MALL are warm and the
// L1 is not. The bench takes the difference of two pass counts: the warm bandwidth of the level the
// footprint lives in. `groups` must be a multiple of 8.
extern "C" __global__ void read_passes(const float4* a, float* out, uint32_t n4, uint32_t groups, uint32_t passes) {
  float s = 0;
  for (uint32_t p = 0; p < passes; ++p)
    for (uint32_t i = ((BID + 8 * p) % groups) * kBlock + TID; i < n4; i += groups * kBlock) {
      float4 v = a[i];
      s += v.x + v.y + v.z + v.w;
    }
  out[BID * kBlock + TID] = s;
}

typedef float float2v __attribute__((ext_vector_type(2)));
// LDS sweep (nod-ai empirical-lds): one wave, `iters` blocks of 64 back-to-back ds_read of one width,
// lane l at byte l * stride (stride = the width: no conflict; 128: every lane in one bank), each read
// 256 bytes after the one before (the immediate offset). The values are consumed by empty asm once the
// block's reads are issued (kChunk at a time for b128, whose 64 results would not fit in VGPRs), so the
// wave waits once per block as a timed block of reads does. The empty asm on the base makes it opaque,
// so the reads stay in the loop; the memory clobbers between them keep them from being merged into ds_read2.
template <typename T, int kChunk>
__device__ void lds_sweep(float* out, uint32_t iters, uint32_t stride_bytes) {
  __shared__ T lds[65536 / sizeof(T)];
  for (uint32_t i = TID; i < 65536 / sizeof(T); i += 64) lds[i] = (T)(float)(i & 7);
  BARRIER();
  const uint32_t idx = TID * (stride_bytes / sizeof(T));
  T v[kChunk];
  for (uint32_t it = 0; it < iters; ++it) {
    uint32_t base = idx;
    asm volatile("" : "+v"(base));
#pragma unroll
    for (int k = 0; k < 64; ++k) {
      v[k % kChunk] = lds[base + k * (256 / sizeof(T))];
      asm volatile("" ::: "memory");
      if ((k + 1) % kChunk == 0)
#pragma unroll
        for (int j = 0; j < kChunk; ++j) asm volatile("" ::"v"(v[j]));
    }
  }
  out[TID] = (float)iters;
}
extern "C" __global__ __launch_bounds__(64) void lds_read_b32(float* out, uint32_t iters, uint32_t stride) { lds_sweep<float, 64>(out, iters, stride); }
extern "C" __global__ __launch_bounds__(64) void lds_read_b64(float* out, uint32_t iters, uint32_t stride) { lds_sweep<float2v, 64>(out, iters, stride); }
extern "C" __global__ __launch_bounds__(64) void lds_read_b128(float* out, uint32_t iters, uint32_t stride) { lds_sweep<float4v, 32>(out, iters, stride); }

// Whole kernels of the Hugging Face MI300X blog (section D): fp16 rows of 16384, 256 work-items per row.
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
__device__ inline float block_sum(float v, float* part) {
  part[TID] = v;
  BARRIER();
  for (uint32_t w = kBlock / 2; w > 0; w /= 2) {
    if (TID < w) part[TID] += part[TID + w];
    BARRIER();
  }
  return part[0];
}
#if defined(__gfx942__)  // the FP8 conversions are gfx942 instructions (gfx90a has none); these rows are MI300X rows
__device__ inline uint32_t fp8x4(float a, float b, float c, float d) {
  int lo = __builtin_amdgcn_cvt_pk_fp8_f32(a, b, 0, false);
  return static_cast<uint32_t>(__builtin_amdgcn_cvt_pk_fp8_f32(c, d, lo, true));
}
// Fused residual add + RMSNorm + FP8 quantization, written the way vLLM's
// fused_add_rms_norm_static_fp8_quant kernel (csrc/layernorm_quant_kernels.cu, the width-8 fp16 path) works,
// since the measured rows time that kernel: one workgroup per row, launched with
// min(hidden, rows < 256 ? 1024 : 256) work-items (the host side's rule), loops of the runtime stride
// blockDim over vectors of 8 halves; pass 1 adds the residual in place (res = x + res) and sums squares,
// a block reduction (each wave by cross-lane shuffles, one partial per wave in LDS, the first wave sums
// those: hipcub BlockReduce's warp-reductions algorithm), thread 0 puts rsqrt in LDS; pass 2 reads the
// residual back, scales by it and the weight (in fp16), and writes one fp8 byte per element.
__device__ inline float wave_sum(float v) {
  const uint32_t lane = TID & 63;
#pragma unroll
  for (uint32_t m = 1; m < 64; m *= 2)
    v += __builtin_bit_cast(float, __builtin_amdgcn_ds_bpermute(static_cast<int>((lane ^ m) * 4), __builtin_bit_cast(int, v)));
  return v;
}
__device__ inline uint8_t fp8_sat(float v) {  // vLLM's scaled_fp8_conversion: clamp to the fp8 range, convert
  v = __builtin_fmaxf(-240.0f, __builtin_fminf(v, 240.0f));
  return static_cast<uint8_t>(__builtin_amdgcn_cvt_pk_fp8_f32(v, v, 0, false) & 0xff);
}
extern "C" __global__ void add_rmsnorm_fp8(uint8_t* out, const half8* x, half8* res, const half8* w, const float* scale,
                                           uint32_t hidden) {
  __shared__ float wave_part[16];
  __shared__ float s_variance;
  const uint32_t n8 = hidden / 8, threads = __builtin_amdgcn_workgroup_size_x(), row = BID * n8;
  float ss = 0;
  for (uint32_t i = TID; i < n8; i += threads) {
    half8 t = x[row + i] + res[row + i];
#pragma unroll
    for (int e = 0; e < 8; ++e) ss += static_cast<float>(t[e]) * static_cast<float>(t[e]);
    res[row + i] = t;
  }
  ss = wave_sum(ss);
  if ((TID & 63) == 0) wave_part[TID >> 6] = ss;
  BARRIER();
  if (TID < 64) {
    float v = TID < threads / 64 ? wave_part[TID] : 0.0f;
    v = wave_sum(v);
    if (TID == 0) s_variance = __builtin_amdgcn_rsqf(v / static_cast<float>(hidden) + 1e-6f);
  }
  BARRIER();
  const float inv_scale = __builtin_amdgcn_rcpf(*scale);
  for (uint32_t i = TID; i < n8; i += threads) {
    half8 t = res[row + i];
    const half8 g = w[i];
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const _Float16 h = static_cast<_Float16>(static_cast<float>(t[e]) * s_variance) * g[e];
      out[(row + i) * 8 + e] = fp8_sat(static_cast<float>(h) * inv_scale);
    }
  }
}
// Fused SwiGLU + FP8: a row is gate[8192] | up[8192]; q = fp8(silu(gate) * up / scale), 8192 per row.
extern "C" __global__ void swiglu_fp8(const half8* in, uint2* q, float inv_scale) {
  constexpr uint32_t kHalf8 = 8192 / 8;
  const uint32_t row = BID;
#pragma unroll
  for (uint32_t j = 0; j < kHalf8 / kBlock; ++j) {
    const uint32_t c = j * kBlock + TID;
    const half8 g = in[row * 2 * kHalf8 + c], u = in[row * 2 * kHalf8 + kHalf8 + c];
    float f[8];
    for (int e = 0; e < 8; ++e) {
      const float gf = static_cast<float>(g[e]);
      f[e] = gf * __builtin_amdgcn_rcpf(1.0f + __builtin_amdgcn_exp2f(-1.442695f * gf)) * static_cast<float>(u[e]) * inv_scale;
    }
    q[row * kHalf8 + c] = uint2{fp8x4(f[0], f[1], f[2], f[3]), fp8x4(f[4], f[5], f[6], f[7])};
  }
}
// Skinny FP8 GEMM, M = 1: y[n] = sum_k w[n][k] x[k], fp8 weights and activations, f32 out. One wave per
// output, 8 fp8 per lane per step (k = 512 per wave step), the wave's partial sums reduced in LDS.
extern "C" __global__ void gemv_fp8(const uint2* w, const uint2* x, float* y, uint32_t k8) {
  __shared__ float part[kBlock];
  const uint32_t lane = TID & 63, n = BID * 4 + (TID >> 6);
  float s = 0;
  for (uint32_t k = lane; k < k8; k += 64) {
    const uint2 a = w[n * k8 + k], b = x[k];
    const uint32_t aw[2] = {a.x, a.y}, bw[2] = {b.x, b.y};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float2v a0 = __builtin_amdgcn_cvt_pk_f32_fp8(aw[h], false), a1 = __builtin_amdgcn_cvt_pk_f32_fp8(aw[h], true);
      const float2v b0 = __builtin_amdgcn_cvt_pk_f32_fp8(bw[h], false), b1 = __builtin_amdgcn_cvt_pk_f32_fp8(bw[h], true);
      s += a0.x * b0.x + a0.y * b0.y + a1.x * b1.x + a1.y * b1.y;
    }
  }
  part[TID] = s;
  BARRIER();
  for (uint32_t o = 32; o > 0; o /= 2) {
    if (lane < o) part[TID] += part[TID + o];
    BARRIER();
  }
  if (lane == 0) y[n] = part[TID];
}

// RoPE as sglang PR #28783's MI300X comment timed it: apply_rotary_emb_contig_kernel, the GPT-J (adjacent-pair)
// inverse rotation of a contiguous [tokens, 16 heads, 64] tile in place, cos/sin interleaved per pair in an fp32
// table [tokens, 64] (cos = fr[2i], sin = fr[2i+1]); one program of 4 waves per (BLOCK_M tokens, head). bf16:
// the comment's TB/s times its µs give 2 bytes per element read and written [D]. Each work-item holds 8
// contiguous elements (a 16-byte vector) of row TID / 8, the layout Triton's default blocked encoding gives a
// 64-wide bf16 tile on 4 waves (32 rows); a BLOCK_M-row tile with fewer rows is replicated over the other
// waves, which load and compute it too but leave the store to the first copy (Triton's layout rules, inferred
// [U]: the kernel's source is not in the notes). The work-item's rotation: v' = v cos + sign * partner sin.
__device__ inline float bf16_lo(uint32_t w) { return __builtin_bit_cast(float, w << 16); }
__device__ inline float bf16_hi(uint32_t w) { return __builtin_bit_cast(float, w & 0xffff0000u); }
__device__ inline uint32_t bf16_pack(float lo, float hi) {  // round to nearest even, as a bf16 store does
  const uint32_t a = __builtin_bit_cast(uint32_t, lo), b = __builtin_bit_cast(uint32_t, hi);
  return ((a + 0x7fffu + ((a >> 16) & 1)) >> 16) | ((b + 0x7fffu + ((b >> 16) & 1)) & 0xffff0000u);
}
extern "C" __global__ void rope_contig_bf16(uint4* q, const float4* fr, uint32_t tokens, uint32_t heads, uint32_t block_m) {
  const uint32_t head = __builtin_amdgcn_workgroup_id_y(), row = (TID / 8) % block_m, chunk = TID % 8;
  const uint32_t t = BID * block_m + row;
  if (t >= tokens) return;
  uint4 v = q[(t * heads + head) * 8 + chunk];
  const float4 f0 = fr[t * 16 + chunk * 2], f1 = fr[t * 16 + chunk * 2 + 1];  // (cos, sin) of this vector's 4 pairs
  const float c[4] = {f0.x, f0.z, f1.x, f1.z}, sn[4] = {f0.y, f0.w, f1.y, f1.w};
  uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int p = 0; p < 4; ++p) {  // inverse rotation: (x0 cos + x1 sin, x1 cos - x0 sin)
    const float x0 = bf16_lo(w[p]), x1 = bf16_hi(w[p]);
    w[p] = bf16_pack(x0 * c[p] + x1 * sn[p], x1 * c[p] - x0 * sn[p]);
  }
  if (TID / 8 < block_m) q[(t * heads + head) * 8 + chunk] = uint4{w[0], w[1], w[2], w[3]};
}

#endif

// A/B: DPP against ds_swizzle (nod-ai optimization guide: a ds_* cross-lane step costs ~50 cycles with
// its wait, a DPP step 4-12). One wave, a dependent chain of `iters` x 8 cross-lane adds.
extern "C" __global__ void xlane_swizzle(const float* in, float* out, uint32_t iters) {
  int v = __builtin_bit_cast(int, in[TID]);
  for (uint32_t i = 0; i < iters; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k) v = __builtin_bit_cast(int, __builtin_bit_cast(float, v) + __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(v, 0x041F)));
  out[TID] = __builtin_bit_cast(float, v);
}
extern "C" __global__ void xlane_dpp(const float* in, float* out, uint32_t iters) {
  int v = __builtin_bit_cast(int, in[TID]);
  for (uint32_t i = 0; i < iters; ++i)
#pragma unroll
    for (int k = 0; k < 8; ++k)  // quad_perm [1,0,3,2]: the same neighbour swap as the swizzle above
      v = __builtin_bit_cast(int, __builtin_bit_cast(float, v) + __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, v, 0xB1, 0xF, 0xF, false)));
  out[TID] = __builtin_bit_cast(float, v);
}

// A/B: packed FP32 (ROCm/hip #3447: v_pk_fma_f32 doubles the FP32 rate). Every work-item runs 8 independent
// FMA chains, as eight v_fma_f32 or four v_pk_fma_f32 per step. Written as asm because clang's SLP
// vectorizer packs the scalar form by itself (VALU-only asm: no counters or hazards to track).
extern "C" __global__ void fma_scalar(const float* in, float* out, uint32_t iters) {
  float a[8];
  for (int j = 0; j < 8; ++j) a[j] = in[TID] + j;
  const float m = in[TID + 64];
  for (uint32_t i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) asm volatile("v_fma_f32 %0, %0, %1, 1.0" : "+v"(a[j]) : "v"(m));
  float s = 0;
  for (int j = 0; j < 8; ++j) s += a[j];
  out[BID * kBlock + TID] = s;
}
extern "C" __global__ void fma_packed(const float* in, float* out, uint32_t iters) {
  float2v a[4];
  for (int j = 0; j < 4; ++j) a[j] = (float2v){in[TID] + 2 * j, in[TID] + 2 * j + 1};
  const float2v m = {in[TID + 64], in[TID + 64]}, one = {1.0f, 1.0f};
  for (uint32_t i = 0; i < iters; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) asm volatile("v_pk_fma_f32 %0, %0, %1, %2" : "+v"(a[j]) : "v"(m), "v"(one));
  float s = 0;
  for (int j = 0; j < 4; ++j) s += a[j].x + a[j].y;
  out[BID * kBlock + TID] = s;
}

// A/B: a redundant LDS barrier (rocm-libraries #7442: removing one from CK's GEMM pipeline, +5.7 % mean).
// An LDS-staged f16 GEMM: 64x64 output tile per workgroup of 4 waves, each wave a 32x32 quarter with
// 32x32x8 MFMAs; per 16-wide k step the workgroup stages A (64x16) and B (16x64) in LDS between two
// barriers. `extra` adds a barrier between the two stores, which orders nothing that needs ordering.
template <bool kExtraBarrier>
__device__ void lds_gemm(const _Float16* A, const _Float16* B, float* C, uint32_t n, uint32_t k) {
  __shared__ _Float16 as[64 * 16], bs[16 * 64];
  const uint32_t lane = TID & 63, wave = TID >> 6, m0 = (BID / (n / 64)) * 64, n0 = (BID % (n / 64)) * 64;
  const uint32_t wm = (wave >> 1) * 32, wn = (wave & 1) * 32;
  float16v acc = {};
  for (uint32_t k0 = 0; k0 < k; k0 += 16) {
    const uint32_t r = TID / 4, c = (TID % 4) * 4;  // A: 64 rows x 16, four halves per work-item
    const half4 av = *reinterpret_cast<const half4*>(A + (m0 + r) * k + k0 + c);
    const uint32_t br = TID / 16, bc = (TID % 16) * 4;  // B: 16 rows x 64
    const half4 bv = *reinterpret_cast<const half4*>(B + (k0 + br) * n + n0 + bc);
    *reinterpret_cast<half4*>(as + r * 16 + c) = av;
    if (kExtraBarrier) BARRIER();
    *reinterpret_cast<half4*>(bs + br * 64 + bc) = bv;
    BARRIER();
#pragma unroll
    for (uint32_t kk = 0; kk < 16; kk += 8) {
      half4 a, b;
      for (int i = 0; i < 4; ++i) {
        a[i] = as[(wm + lane % 32) * 16 + kk + 4 * (lane / 32) + i];
        b[i] = bs[(kk + 4 * (lane / 32) + i) * 64 + wn + lane % 32];
      }
      acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
    }
    BARRIER();
  }
  for (int i = 0; i < 16; ++i) C[(m0 + wm + 8 * (i / 4) + 4 * (lane / 32) + i % 4) * n + n0 + wn + lane % 32] = acc[i];
}
extern "C" __global__ void gemm_lds(const _Float16* A, const _Float16* B, float* C, uint32_t n, uint32_t k) {
  lds_gemm<false>(A, B, C, n, k);
}
extern "C" __global__ void gemm_lds_extra_barrier(const _Float16* A, const _Float16* B, float* C, uint32_t n, uint32_t k) {
  lds_gemm<true>(A, B, C, n, k);
}

// A/B pairs on a software-pipelined GEMM (mi300x-measured.md F: vmcnt partial waits, MFMA/load interleave,
// occupancy). C (m x n, f32) = A (m x k, f16, k contiguous) x B^T (B given as n x k, k contiguous: both
// operands K-major, as CK's default fp16 example). A workgroup of 4 waves computes a kTM x kTN tile, the
// waves 2 x 2, each (kTM/2) x (kTN/2) in 32x32x8 MFMA blocks; k advances 32 per step. The next tiles'
// global loads go to registers `kDepth` steps ahead of their use (CK's "prefetch stage", pipeline v1 for
// kDepth 1), their index clamped to the last tile so every step issues the same loads and no branch changes
// the counters; the step reads its tile from LDS (rows padded to 36 halves: the 16 lanes of a ds_read_b64
// phase hit 32 distinct banks), then, between two barriers, stores the oldest registers to LDS.
//  kWaitAll:    an `s_waitcnt vmcnt(0)` before that store, where the compiler's own wait leaves the newer
//               loads in flight (the vmcnt pair: llvm-project #221115's vmcnt(0) against vmcnt(1));
//  kOrder:      the step's instruction order. kDefault: the compiler's. kInterleave: sched_group_barrier spreads
//               the global loads and ds_reads between the MFMAs (composable_kernel #515's pipeline v1 change).
//               kDsClustered / kDsSpread (llvm-project #180908's pair): every ds_read first, then the MFMAs,
//               or each substep's ds_reads before its MFMAs; the global loads last in both;
//  kExtraBarrier: a barrier between the A and the B stores, which orders nothing that needs ordering
//               (the barrier pair, rocm-libraries #7442, on a pipelined GEMM as CK's CompV4 is).
typedef _Float16 half4v __attribute__((ext_vector_type(4)));
constexpr uint32_t kPK = 32, kPRow = 36;  // k per step; LDS row of a staged tile, in halves
enum PipeOrder { kDefault, kInterleave, kDsClustered, kDsSpread };
template <uint32_t kTM, uint32_t kTN, int kDepth, bool kWaitAll, PipeOrder kOrder, bool kExtraBarrier = false>
__device__ __attribute__((always_inline)) void pipe_gemm(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  static_assert(kDepth == 1 || kDepth == 2, "one or two prefetch stages");
  constexpr uint32_t kLA = kTM / 64, kLB = kTN / 64;    // half8 loads per work-item per step (A, B)
  constexpr uint32_t kBM = kTM / 64, kBN = kTN / 64;    // 32x32 blocks per wave (M, N)
  __shared__ _Float16 as[kTM * kPRow], bs[kTN * kPRow];
  const uint32_t lane = TID & 63, wave = TID >> 6, tiles_n = n / kTN;
  const uint32_t m0 = (BID / tiles_n) * kTM, n0 = (BID % tiles_n) * kTN;
  const uint32_t wm = (wave >> 1) * (kTM / 2), wn = (wave & 1) * (kTN / 2);
  const uint32_t k8 = k / 8, nk = k / kPK, sr = TID / 4, sc = TID % 4;  // staging: row sr (+64 j), chunk sc
  auto load = [&](uint32_t kt, half8* r) {
    kt = kt < nk ? kt : nk - 1;
#pragma unroll
    for (uint32_t j = 0; j < kLA; ++j) r[j] = A[(m0 + 64 * j + sr) * k8 + kt * 4 + sc];
#pragma unroll
    for (uint32_t j = 0; j < kLB; ++j) r[kLA + j] = B[(n0 + 64 * j + sr) * k8 + kt * 4 + sc];
  };
  auto store = [&](const half8* r) {  // two 8-byte stores per half8 (a padded row is 8-byte aligned)
#pragma unroll
    for (uint32_t j = 0; j < kLA + kLB; ++j) {
      _Float16* p = (j < kLA ? as + (64 * j + sr) * kPRow : bs + (64 * (j - kLA) + sr) * kPRow) + sc * 8;
      *reinterpret_cast<half4v*>(p) = __builtin_shufflevector(r[j], r[j], 0, 1, 2, 3);
      *reinterpret_cast<half4v*>(p + 4) = __builtin_shufflevector(r[j], r[j], 4, 5, 6, 7);
      if (kExtraBarrier && j + 1 == kLA) BARRIER();
    }
  };
  float16v acc[kBM][kBN] = {};
  auto compute = [&] {
#pragma unroll
    for (uint32_t kk = 0; kk < kPK; kk += 8) {
      const uint32_t ko = kk + 4 * (lane / 32);
      half4v a[kBM], b[kBN];
#pragma unroll
      for (uint32_t i = 0; i < kBM; ++i) a[i] = *reinterpret_cast<const half4v*>(as + (wm + 32 * i + lane % 32) * kPRow + ko);
#pragma unroll
      for (uint32_t j = 0; j < kBN; ++j) b[j] = *reinterpret_cast<const half4v*>(bs + (wn + 32 * j + lane % 32) * kPRow + ko);
#pragma unroll
      for (uint32_t i = 0; i < kBM; ++i)
#pragma unroll
        for (uint32_t j = 0; j < kBN; ++j) acc[i][j] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[i], b[j], acc[i][j], 0, 0, 0);
    }
    if (kOrder == kInterleave) {  // per k substep: its ds_reads, one global load (while any is left), its MFMAs
#pragma unroll
      for (uint32_t s = 0; s < kPK / 8; ++s) {
        __builtin_amdgcn_sched_group_barrier(0x100, kBM + kBN, 0);  // DS read
        if (s < kLA + kLB) __builtin_amdgcn_sched_group_barrier(0x020, 1, 0);  // VMEM read
        __builtin_amdgcn_sched_group_barrier(0x008, kBM * kBN, 0);  // MFMA
      }
    }
    if (kOrder == kDsClustered) {
      __builtin_amdgcn_sched_group_barrier(0x100, (kBM + kBN) * (kPK / 8), 0);
      __builtin_amdgcn_sched_group_barrier(0x008, kBM * kBN * (kPK / 8), 0);
      __builtin_amdgcn_sched_group_barrier(0x020, kLA + kLB, 0);
    }
    if (kOrder == kDsSpread) {
#pragma unroll
      for (uint32_t s = 0; s < kPK / 8; ++s) {
        __builtin_amdgcn_sched_group_barrier(0x100, kBM + kBN, 0);
        __builtin_amdgcn_sched_group_barrier(0x008, kBM * kBN, 0);
      }
      __builtin_amdgcn_sched_group_barrier(0x020, kLA + kLB, 0);
    }
  };
  half8 r1[kLA + kLB], r2[kLA + kLB];
  load(0, r1);
  store(r1);
  if (kDepth == 2) load(1, r1);
  BARRIER();
  // One step: prefetch tile kt + kDepth into `into`, compute tile kt, store `from` (tile kt + 1) to LDS. Two
  // steps per trip with the stages' registers swapped, so no copy between them waits for the newer loads
  // (k must be a multiple of 64).
  auto step = [&](uint32_t kt, half8* into, const half8* from) {
    load(kt + kDepth, into);
    compute();
    BARRIER();
    if (kWaitAll) asm volatile("s_waitcnt vmcnt(0)" ::: "memory");
    store(from);
    BARRIER();
  };
  for (uint32_t kt = 0; kt < nk; kt += 2) {
    step(kt, kDepth == 2 ? r2 : r1, r1);
    step(kt + 1, r1, kDepth == 2 ? r2 : r1);
  }
#pragma unroll
  for (uint32_t i = 0; i < kBM; ++i)
#pragma unroll
    for (uint32_t j = 0; j < kBN; ++j)
#pragma unroll
      for (int e = 0; e < 16; ++e)
        C[(m0 + wm + 32 * i + 8 * (e / 4) + 4 * (lane / 32) + e % 4) * n + n0 + wn + 32 * j + lane % 32] = acc[i][j][e];
}
// vmcnt pair (two prefetch stages, 64 x 128 tiles): the compiler's partial waits, and vmcnt(0).
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d2(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 2, false, kDefault>(A, B, C, n, k);
}
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d2_vmcnt0(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 2, true, kDefault>(A, B, C, n, k);
}
// Barrier pair on the pipelined GEMM (the base is pipe_gemm_d2).
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d2_extra_barrier(const half8* A, const half8* B, float* C, uint32_t n,
                                                                             uint32_t k) {
  pipe_gemm<64, 128, 2, false, kDefault, true>(A, B, C, n, k);
}
// Interleave pair (CK pipeline v1: one prefetch stage, 64 x 128 tiles).
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d1(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 1, false, kDefault>(A, B, C, n, k);
}
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d1_interleave(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 1, false, kInterleave>(A, B, C, n, k);
}
// ds_read clustering pair (llvm-project #180908): one prefetch stage, the order pinned in both.
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d1_ds_clustered(const half8* A, const half8* B, float* C, uint32_t n,
                                                                            uint32_t k) {
  pipe_gemm<64, 128, 1, false, kDsClustered>(A, B, C, n, k);
}
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d1_ds_spread(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 1, false, kDsSpread>(A, B, C, n, k);
}
// The ds_read clustering pair again on the two-stage pipelined GEMM (the base is pipe_gemm_d2): with the global
// loads two steps ahead, a step no longer waits for memory, so the order of its ds_reads and MFMAs is what is left.
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d2_ds_clustered(const half8* A, const half8* B, float* C, uint32_t n,
                                                                            uint32_t k) {
  pipe_gemm<64, 128, 2, false, kDsClustered>(A, B, C, n, k);
}
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_d2_ds_spread(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<64, 128, 2, false, kDsSpread>(A, B, C, n, k);
}
// Occupancy pair (rocMLIR #1098): 128 x 320 tiles, two prefetch stages, so the default allocation needs more
// than 256 registers (one wave per SIMD), and amdgpu_waves_per_eu(2) asks the compiler to fit two.
extern "C" __global__ __launch_bounds__(256) void pipe_gemm_big(const half8* A, const half8* B, float* C, uint32_t n, uint32_t k) {
  pipe_gemm<128, 320, 2, false, kDefault>(A, B, C, n, k);
}
extern "C" __global__ __launch_bounds__(256) __attribute__((amdgpu_waves_per_eu(2))) void pipe_gemm_big_wpe2(const half8* A, const half8* B,
                                                                                                               float* C, uint32_t n, uint32_t k) {
  pipe_gemm<128, 320, 2, false, kDefault>(A, B, C, n, k);
}
