// The generator of input chunks after the first (emu::fill_chunk): splitmix64 (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) and normal draws by the
// ziggurat method (Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables", J.
// Stat. Software 5(8), 2000; 256 layers). std::normal_distribution (polar method: a log and a square
// root per pair, a quarter of the pairs rejected) cost about 9x a draw of mt19937_64; the 60 MB of
// one 4096^3 GEMM operand took over a second. Deterministic: the same seed gives the same values.
#pragma once
#include <bit>
#include <cstdint>

namespace asmevo::emu {

class FastRandom {
 public:
  explicit FastRandom(uint64_t seed);
  uint64_t next() { return mix(state_ += kGamma); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // A standard normal draw (mean 0, standard deviation 1). The draw inside a layer's rectangle (about 99 %
  // of them) is inline: called once per element of a perf launch's inputs, the call itself was a third of
  // the generator's time (perf on bench/timing/sampling_bench).
  double normal() {
    const uint64_t bits = next();
    const double t = point_in_layer(bits, layer_x_);
    if (in_rectangle(bits, t, layer_x_)) return signed_draw(bits, t);
    return normal_beyond_rectangle(bits, t);
  }
  // Eight normal() draws in a row, the same values in the same order: the eight candidates are made side by side
  // (splitmix64's output is a function of its counter alone, so they need not wait on each other); a block where one
  // falls outside its rectangle (about one in twelve) is drawn again one by one. A draw at a time kept one
  // element's draw waiting on the last one's state; a perf launch's input generation was 8-15 % of its sampled
  // timing run (perf on bench/timing/sampling_bench).
  void normal8(double* out);
  // An integer uniform in [lo, hi] (hi >= lo), by rejection: no modulo bias.
  int64_t integer(int64_t lo, int64_t hi);

  // The steps of a draw (public for normal8's vectorized candidates, fast_random.cpp).
  static constexpr uint64_t kGamma = 0x9E3779B97F4A7C15ull;  // splitmix64's counter step
  static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // A candidate of 64 random bits: its layer (bits 0-7), sign (bit 8) and point t = u * x[layer], u uniform in [0, 1)
  // from bits 11-63; accepted at once when t lies in the layer's rectangle under the density. `x`: the layer edges.
  static double point_in_layer(uint64_t bits, const double* x) { return static_cast<double>(bits >> 11) * 0x1.0p-53 * x[bits & 255u]; }
  static bool in_rectangle(uint64_t bits, double t, const double* x) { return t < x[(bits & 255u) + 1]; }
  // -t when the sign bit (bit 8) is set, by moving it to the double's sign: no branch on a random bit.
  static double signed_draw(uint64_t bits, double t) { return std::bit_cast<double>(std::bit_cast<uint64_t>(t) ^ (bits & 256u) << 55); }

 private:
  // The rest of a draw whose first candidate `bits` (t = its point in its layer) fell outside the rectangle.
  double normal_beyond_rectangle(uint64_t bits, double t);
  uint64_t state_;
  const double* layer_x_;  // the ziggurat's layer edges x[0..256] (fast_random.cpp)
};

// FastRandom::normal() values one at a time, drawn eight at a time (normal8): the same values in the same order.
class NormalDraws {
 public:
  explicit NormalDraws(FastRandom& rng) : rng_(rng) {}
  double next() {
    if (used_ == 8) rng_.normal8(block_), used_ = 0;
    return block_[used_++];
  }

 private:
  FastRandom& rng_;
  double block_[8];
  unsigned used_ = 8;
};

}  // namespace asmevo::emu
