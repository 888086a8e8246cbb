// Internal helpers shared by the reference implementations (not part of the public interface).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "corpus/reference/reference.h"

namespace asmevo::corpus::detail {

using Args = std::vector<HostArg>;

[[noreturn]] inline void fail(const char* kernel, const std::string& what) {
  throw std::invalid_argument(std::string(kernel) + ": " + what);
}

inline void expect_args(const Args& a, size_t n, const char* kernel) {
  if (a.size() != n)
    fail(kernel, "expects " + std::to_string(n) + " arguments, got " + std::to_string(a.size()));
}

// Buffer argument i as T*, holding at least `need` elements.
template <class T> T* buffer(Args& a, size_t i, int64_t need, const char* kernel) {
  if (i >= a.size() || !a[i].is_buffer) fail(kernel, "argument " + std::to_string(i) + " must be a buffer");
  if (!a[i].dtype.empty() && dtype_size(a[i].dtype) != sizeof(T))
    fail(kernel, "argument " + std::to_string(i) + " has dtype " + a[i].dtype + " of the wrong size");
  if (need < 0) need = 0;
  if (a[i].count<T>() < static_cast<size_t>(need))
    fail(kernel, "buffer argument " + std::to_string(i) + " holds " + std::to_string(a[i].count<T>()) +
                     " elements, the sizes need " + std::to_string(need));
  return a[i].data<T>();
}

template <class T> T scalar(const Args& a, size_t i, const char* kernel) {
  if (i >= a.size() || a[i].is_buffer) fail(kernel, "argument " + std::to_string(i) + " must be a scalar");
  return a[i].value<T>();
}

// Number of indices in [0, n) that `groups` workgroups of `per_group` work-items cover when index
// = group * per_group + local (no grid-stride loop).
inline int64_t covered(uint32_t groups, uint32_t per_group, int64_t n) {
  int64_t c = static_cast<int64_t>(groups) * per_group;
  return std::max<int64_t>(0, std::min<int64_t>(n, c));
}

inline void expect_block(Dim3 block, uint32_t x, uint32_t y, uint32_t z, const char* kernel) {
  if (block.x != x || block.y != y || block.z != z)
    fail(kernel, "needs workgroups of " + std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z));
}

inline void expect_wave_multiple(Dim3 block, const char* kernel) {
  if (block.x == 0 || block.x % 64 != 0 || block.x > 1024 || block.y != 1 || block.z != 1)
    fail(kernel, "needs 1-D workgroups whose size is a multiple of 64 (at most 1024)");
}

inline void expect_pow2(Dim3 block, uint32_t max, const char* kernel) {
  if (block.x == 0 || (block.x & (block.x - 1)) != 0 || block.x > max || block.y != 1 || block.z != 1)
    fail(kernel, "needs 1-D workgroups whose size is a power of two (at most " + std::to_string(max) + ")");
}

void register_elementwise(std::vector<ReferenceEntry>& out);
void register_reduction(std::vector<ReferenceEntry>& out);
void register_matmul(std::vector<ReferenceEntry>& out);
void register_conv(std::vector<ReferenceEntry>& out);
void register_misc(std::vector<ReferenceEntry>& out);
void register_kernelbench(std::vector<ReferenceEntry>& out);

}  // namespace asmevo::corpus::detail
