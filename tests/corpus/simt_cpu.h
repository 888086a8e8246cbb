// A tiny CPU stand-in for the HIP device environment, used only by corpus_simt_test to run the
// corpus kernels' *source* on the host (one std::thread per work-item, one workgroup at a time)
// and compare them with the CPU references. It checks the kernels' indexing, masking, tails,
// barriers and reductions; it says nothing about the compiled GPU code.
//
// Usage (done by the file tests/corpus/CMakeLists.txt generates): define ASMEVO_CORPUS_SIMT,
// include this header, then the text of each corpus/hip/*.hip file inside its own namespace, with
// `extern __shared__ T name[];` rewritten to `T* name = ::asmevo::simt::dynamic_lds<T>();`
// (common.h skips the HIP headers under ASMEVO_CORPUS_SIMT).
//
// Semantics: wavefronts of 64 lanes (consecutive linearized work-item ids); __shfl_* read from the
// source lane like ds_bpermute with width 64; __syncthreads is a workgroup barrier that exited
// work-items leave; __shared__ variables are function statics (workgroups run one at a time);
// dynamic LDS is a buffer of the launch's dynamic_lds bytes; MFMA builtins are computed per wave
// with the operand layouts documented in matmul_mfma_*.hip.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "corpus/reference/reference.h"

namespace asmevo::simt {

struct Dim { uint32_t x = 1, y = 1, z = 1; };

struct Wave {
  explicit Wave(ptrdiff_t lanes) : bar(lanes) {}
  std::barrier<> bar;
  uint64_t slot[64][16] = {};  // up to 16 x 64 bits per lane (MFMA operands)
};

struct Block {
  explicit Block(ptrdiff_t n) : bar(n) {}
  std::barrier<> bar;
  std::vector<std::unique_ptr<Wave>> waves;
};

inline Dim g_grid, g_block, g_block_idx;
inline std::vector<double> g_dynamic_lds;  // double: 8-byte aligned storage

// `extern __shared__ T name[];` is rewritten to `T* name = ::asmevo::simt::dynamic_lds<T>();`.
template <class T> T* dynamic_lds() { return reinterpret_cast<T*>(g_dynamic_lds.data()); }
inline thread_local Dim t_thread_idx;
inline thread_local int t_lane = 0;
inline thread_local Wave* t_wave = nullptr;
inline thread_local Block* t_blockp = nullptr;

template <class T> T shuffle_from(T v, int src) {
  static_assert(sizeof(T) <= 8);
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  t_wave->slot[t_lane][0] = bits;
  t_wave->bar.arrive_and_wait();
  uint64_t got = t_wave->slot[src][0];
  t_wave->bar.arrive_and_wait();
  T r;
  std::memcpy(&r, &got, sizeof(T));
  return r;
}

// Wave-collective matrix multiply-accumulate for one 1-block MFMA of size MxM (M = 16 or 32) and
// depth K, each lane holding KL consecutive k values of A and B. Output layout: element i of lane l
// is D[4 * (64 / M) * (i / 4) + 4 * (l / M) + i % 4][l % M].
template <int M, int K, int KL, int NOUT>
void mfma(const float (&a)[KL], const float (&b)[KL], float (&acc)[NOUT]) {
  static_assert(KL * 64 == M * K && NOUT * 64 == M * M);
  for (int i = 0; i < KL; ++i) {
    float pa = a[i], pb = b[i];
    uint32_t ua, ub;
    std::memcpy(&ua, &pa, 4);
    std::memcpy(&ub, &pb, 4);
    t_wave->slot[t_lane][i] = (uint64_t(ub) << 32) | ua;
  }
  t_wave->bar.arrive_and_wait();
  auto A = [&](int m, int k) {
    uint32_t u = uint32_t(t_wave->slot[m + M * (k / KL)][k % KL]);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  auto B = [&](int k, int n) {
    uint32_t u = uint32_t(t_wave->slot[n + M * (k / KL)][k % KL] >> 32);
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  };
  int l = t_lane;
  for (int i = 0; i < NOUT; ++i) {
    int m = 4 * (64 / M) * (i / 4) + 4 * (l / M) + i % 4, n = l % M;
    double s = acc[i];
    for (int k = 0; k < K; ++k) s += double(A(m, k)) * double(B(k, n));
    acc[i] = float(s);
  }
  t_wave->bar.arrive_and_wait();
}

// Runs `body` once per work-item of every workgroup of the grid.
inline void launch(Dim grid, Dim block, const std::function<void()>& body) {
  g_grid = grid;
  g_block = block;
  uint32_t n = block.x * block.y * block.z;
  for (uint32_t bz = 0; bz < grid.z; ++bz)
    for (uint32_t by = 0; by < grid.y; ++by)
      for (uint32_t bx = 0; bx < grid.x; ++bx) {
        g_block_idx = {bx, by, bz};
        Block blk(n);
        for (uint32_t w = 0; w < (n + 63) / 64; ++w)
          blk.waves.push_back(std::make_unique<Wave>(std::min<uint32_t>(64, n - 64 * w)));
        std::vector<std::thread> threads;
        threads.reserve(n);
        for (uint32_t t = 0; t < n; ++t)
          threads.emplace_back([&, t] {
            t_thread_idx = {t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
            t_lane = int(t % 64);
            t_wave = blk.waves[t / 64].get();
            t_blockp = &blk;
            body();
            t_wave->bar.arrive_and_drop();
            blk.bar.arrive_and_drop();
          });
        for (auto& th : threads) th.join();
      }
}

// Kernel registry: each generated wrapper registers its kernels with an adapter that unpacks
// HostArgs into the kernel's parameter types.
using Runner = std::function<void(std::vector<corpus::HostArg>&, Dim, Dim, uint32_t)>;
inline std::map<std::string, Runner>& registry() {
  static std::map<std::string, Runner> r;
  return r;
}

template <class T> T unpack(corpus::HostArg& a) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<T>(a.bytes.data());
  else
    return a.value<T>();
}

template <class... P> struct Registrar {
  Registrar(const char* name, void (*fn)(P...)) {
    registry()[name] = [fn](std::vector<corpus::HostArg>& args, Dim grid, Dim block, uint32_t dyn) {
      if (args.size() != sizeof...(P)) throw std::invalid_argument("argument count");
      g_dynamic_lds.assign((dyn + 7) / 8, 0.0);
      launch(grid, block, [&] {
        size_t i = 0;
        std::tuple<P...> t{unpack<P>(args[i++])...};
        std::apply(fn, t);
      });
    };
  }
};

}  // namespace asmevo::simt

// ---- The HIP device surface the corpus uses -------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __noinline__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)

struct SimtCoord {
  uint32_t x, y, z;
};
#define threadIdx (::asmevo::simt::t_thread_idx)
#define blockIdx (::asmevo::simt::g_block_idx)
#define blockDim (::asmevo::simt::g_block)
#define gridDim (::asmevo::simt::g_grid)

inline void __syncthreads() { asmevo::simt::t_blockp->bar.arrive_and_wait(); }

template <class T> T __shfl_xor(T v, int m, int width = 64) {
  int self = asmevo::simt::t_lane, src = self ^ m;
  if (src >= ((self + width) & ~(width - 1))) src = self;
  return asmevo::simt::shuffle_from(v, src);
}
template <class T> T __shfl_down(T v, unsigned d, int width = 64) {
  int self = asmevo::simt::t_lane;
  int src = int((self & (width - 1)) + d) >= width ? self : self + int(d);
  return asmevo::simt::shuffle_from(v, src);
}
template <class T> T __shfl_up(T v, unsigned d, int width = 64) {
  int self = asmevo::simt::t_lane, src = self - int(d);
  if (src < (self & ~(width - 1))) src = self;
  return asmevo::simt::shuffle_from(v, src);
}

template <class T> T atomicAdd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

struct float4 {
  float x, y, z, w;
} __attribute__((aligned(16)));

struct __half {
  uint16_t data;
};
struct __half2 {
  __half x, y;
};
inline float __half2float(__half h) { return asmevo::corpus::f16_to_f32(h.data); }
inline __half __float2half(float f) { return {asmevo::corpus::f32_to_f16(f)}; }
inline __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
inline __half2 __hadd2(__half2 a, __half2 b) { return {__hadd(a.x, b.x), __hadd(a.y, b.y)}; }

struct hip_bfloat16 {
  uint16_t data;
  hip_bfloat16() = default;
  explicit hip_bfloat16(float f) : data(asmevo::corpus::f32_to_bf16(f)) {}
  explicit operator float() const { return asmevo::corpus::bf16_to_f32(data); }
};

// MFMA builtins (operand vector types as in the kernels).
typedef _Float16 simt_half4 __attribute__((ext_vector_type(4)));
typedef short simt_short4 __attribute__((ext_vector_type(4)));
typedef float simt_float4 __attribute__((ext_vector_type(4)));
typedef float simt_float16 __attribute__((ext_vector_type(16)));

template <int M, int K, class V, class Acc, int KL, int NOUT, class Conv>
Acc simt_mfma_impl(V a, V b, Acc c, Conv conv) {
  float fa[KL], fb[KL], acc[NOUT];
  for (int i = 0; i < KL; ++i) fa[i] = conv(a[i]), fb[i] = conv(b[i]);
  for (int i = 0; i < NOUT; ++i) acc[i] = c[i];
  asmevo::simt::mfma<M, K, KL, NOUT>(fa, fb, acc);
  for (int i = 0; i < NOUT; ++i) c[i] = acc[i];
  return c;
}
inline float simt_from_h(_Float16 v) { return float(v); }
inline float simt_from_bf(short v) { return asmevo::corpus::bf16_to_f32(uint16_t(v)); }
inline float simt_from_f(float v) { return v; }

struct SimtScalar {
  float v;
  float operator[](int) const { return v; }
};

inline simt_float4 simt_mfma_16x16x16f16(simt_half4 a, simt_half4 b, simt_float4 c, int, int, int) {
  return simt_mfma_impl<16, 16, simt_half4, simt_float4, 4, 4>(a, b, c, simt_from_h);
}
inline simt_float16 simt_mfma_32x32x8f16(simt_half4 a, simt_half4 b, simt_float16 c, int, int, int) {
  return simt_mfma_impl<32, 8, simt_half4, simt_float16, 4, 16>(a, b, c, simt_from_h);
}
inline simt_float4 simt_mfma_16x16x16bf16_1k(simt_short4 a, simt_short4 b, simt_float4 c, int, int, int) {
  return simt_mfma_impl<16, 16, simt_short4, simt_float4, 4, 4>(a, b, c, simt_from_bf);
}
inline simt_float16 simt_mfma_32x32x8bf16_1k(simt_short4 a, simt_short4 b, simt_float16 c, int, int, int) {
  return simt_mfma_impl<32, 8, simt_short4, simt_float16, 4, 16>(a, b, c, simt_from_bf);
}
inline simt_float4 simt_mfma_16x16x4f32(float a, float b, simt_float4 c, int, int, int) {
  return simt_mfma_impl<16, 4, SimtScalar, simt_float4, 1, 4>(SimtScalar{a}, SimtScalar{b}, c, simt_from_f);
}
inline simt_float16 simt_mfma_32x32x2f32(float a, float b, simt_float16 c, int, int, int) {
  return simt_mfma_impl<32, 2, SimtScalar, simt_float16, 1, 16>(SimtScalar{a}, SimtScalar{b}, c, simt_from_f);
}
#define __builtin_amdgcn_mfma_f32_16x16x16f16 simt_mfma_16x16x16f16
#define __builtin_amdgcn_mfma_f32_32x32x8f16 simt_mfma_32x32x8f16
#define __builtin_amdgcn_mfma_f32_16x16x16bf16_1k simt_mfma_16x16x16bf16_1k
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k simt_mfma_32x32x8bf16_1k
#define __builtin_amdgcn_mfma_f32_16x16x4f32 simt_mfma_16x16x4f32
#define __builtin_amdgcn_mfma_f32_32x32x2f32 simt_mfma_32x32x2f32
