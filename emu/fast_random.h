// The generator of input chunks after the first (emu::fill_chunk): splitmix64 (Steele, Lea and
// Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014) and normal draws by the
// ziggurat method (Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables", J.
// Stat. Software 5(8), 2000; 256 layers). std::normal_distribution (polar method: a log and a square
// root per pair, a quarter of the pairs rejected) cost about 9x a draw of mt19937_64; the 60 MB of
// one 4096^3 GEMM operand took over a second. Deterministic: the same seed gives the same values.
#pragma once
#include <cstdint>

namespace asmevo::emu {

class FastRandom {
 public:
  explicit FastRandom(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  // A standard normal draw (mean 0, standard deviation 1).
  double normal();
  // An integer uniform in [lo, hi] (hi >= lo), by rejection: no modulo bias.
  int64_t integer(int64_t lo, int64_t hi);

 private:
  uint64_t state_;
};

}  // namespace asmevo::emu
