#include "emu/fast_random.h"

#include "emu/vector_clones.h"

#include <array>
#include <cmath>

namespace asmevo::emu {

namespace {

// Marsaglia and Tsang's 256-layer table for the normal density f(x) = exp(-x^2 / 2): r is where the
// tail begins, v the area of every layer (their paper's constants for n = 256).
constexpr double kTailStart = 3.6541528853610088;
constexpr double kLayerArea = 4.92867323399e-3;

struct Ziggurat {
  std::array<double, 257> x{};  // layer i spans [0, x[i]) at heights f(x[i]) .. f(x[i + 1]); x[256] = 0
  std::array<double, 257> f{};
  Ziggurat() {
    auto density = [](double t) { return std::exp(-0.5 * t * t); };
    x[0] = kLayerArea / density(kTailStart);  // the base layer: the rectangle under f(r) plus the tail
    x[1] = kTailStart;
    for (int i = 1; i < 256; ++i) {
      const double y = kLayerArea / x[i] + density(x[i]);
      x[i + 1] = y >= 1.0 ? 0.0 : std::sqrt(-2.0 * std::log(y));
    }
    x[256] = 0.0;
    for (int i = 0; i <= 256; ++i) f[i] = density(x[i]);
  }
};

const Ziggurat& table() {
  static const Ziggurat z;
  return z;
}

// normal8's eight candidates after counter `state` (x: the layer edges): their signed points in `out`, and whether
// every one lies in its rectangle. No branch, so the eight advance side by side in vector lanes, compiled for the
// host's widest vector unit (integer steps and exactly rounded products: the same bits at every width).
ASMEVO_VECTOR_CLONES bool candidates8(uint64_t state, const double* __restrict x, double* __restrict out) {
  unsigned outside = 0;
  for (unsigned j = 0; j < 8; ++j) {
    const uint64_t bits = FastRandom::mix(state + (j + 1) * FastRandom::kGamma);
    const double t = FastRandom::point_in_layer(bits, x);
    outside |= !FastRandom::in_rectangle(bits, t, x);
    out[j] = FastRandom::signed_draw(bits, t);
  }
  return outside == 0;
}

}  // namespace

FastRandom::FastRandom(uint64_t seed) : state_(seed), layer_x_(table().x.data()) {}

double FastRandom::normal_beyond_rectangle(uint64_t bits, double t) {
  const Ziggurat& z = table();
  for (;;) {  // `bits` and `t`: this candidate; normal() has rejected it from its layer's rectangle
    const unsigned layer = bits & 255u;
    const double sign = (bits & 256u) ? -1.0 : 1.0;
    if (layer == 0) {  // the tail beyond r (Marsaglia's exponential rejection)
      double a, b;
      do {
        a = -std::log(1.0 - uniform()) / kTailStart;
        b = -std::log(1.0 - uniform());
      } while (2.0 * b < a * a);
      return sign * (kTailStart + a);
    }
    // The wedge between the rectangle and f: accept under the curve.
    const double height = z.f[layer] + uniform() * (z.f[layer + 1] - z.f[layer]);
    if (height < std::exp(-0.5 * t * t)) return sign * t;
    // The next candidate, as normal() tries it.
    bits = next();
    t = point_in_layer(bits, z.x.data());
    if (in_rectangle(bits, t, z.x.data())) return signed_draw(bits, t);
  }
}

void FastRandom::normal8(double* out) {
  if (candidates8(state_, layer_x_, out)) [[likely]] {
    state_ += 8 * kGamma;
    return;
  }
  for (unsigned j = 0; j < 8; ++j) out[j] = normal();  // a wedge or the tail: the candidates as normal() takes them
}

int64_t FastRandom::integer(int64_t lo, int64_t hi) {
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == ~0ull) return static_cast<int64_t>(next());
  const uint64_t n = span + 1, limit = ~0ull - (~0ull % n + 1) % n;  // largest multiple of n, minus one
  uint64_t r;
  do r = next();
  while (r > limit);
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + r % n);
}

}  // namespace asmevo::emu
