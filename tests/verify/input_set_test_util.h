// Helpers the input-set tests share (magnitude sets, exact-sum sets): typed values as a buffer's
// bytes, and an element of a made run's input as a number.
#pragma once
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "emu/launch_spec.h"
#include "verify/element_value.h"

namespace asmevo::inputsettest {

template <typename T>
std::shared_ptr<std::vector<uint8_t>> bytes_of(const std::vector<T>& v) {
  auto b = std::make_shared<std::vector<uint8_t>>(v.size() * sizeof(T));
  std::memcpy(b->data(), v.data(), b->size());
  return b;
}

inline double element(const emu::LaunchSpec& run, size_t arg, uint64_t e) {
  const auto& a = run.args[arg];
  return verify::element_number(a.dtype, verify::element_bits(*a.init.bytes, a.dtype, e));
}

}  // namespace asmevo::inputsettest
