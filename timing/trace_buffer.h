// The growable arrays of a wave's trace (timing/trace.h): millions of entries for a long-running wave
// (kb_layernorm's one workgroup normalizes a 4M-element row). They grow by realloc, which glibc serves
// for a large block by remapping its pages (mremap): std::vector's allocate-copy-free growth copied every
// entry at each doubling and made the kernel zero twice the final size in fresh pages (perf, page faults of
// bench/timing/sampling_bench on kb_layernorm: 43 % of them in the trace's growth).
#pragma once
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace asmevo::timing {

template <class T>
class TraceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "TraceBuffer moves its values with realloc");

 public:
  TraceBuffer() = default;
  TraceBuffer(const TraceBuffer& o) {
    reserve(o.size_);
    if (o.size_) std::memcpy(data_, o.data_, o.size_ * sizeof(T));
    size_ = o.size_;
  }
  TraceBuffer(TraceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)), capacity_(std::exchange(o.capacity_, 0)) {}
  TraceBuffer& operator=(TraceBuffer o) noexcept {
    std::swap(data_, o.data_), std::swap(size_, o.size_), std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~TraceBuffer() { std::free(data_); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }
  void push_back(const T& v) {
    if (size_ == capacity_) reserve(capacity_ ? 2 * capacity_ : 16);
    data_[size_++] = v;
  }
  void reserve(size_t n) {
    if (n <= capacity_) return;
    void* p = std::realloc(data_, n * sizeof(T));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<T*>(p), capacity_ = n;
  }

 private:
  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace asmevo::timing
