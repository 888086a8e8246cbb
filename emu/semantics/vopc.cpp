// VOPC: vector compares. D (VCC for e32, an SGPR pair for e64) = one bit per lane, 0 for inactive
// lanes; v_cmpx_* also write EXEC. Integer and float compares are generic (int_units.h, float_units.h).
#include <cmath>

#include <bit>

#include "emu/alu.h"
#include "emu/semantics/float_units.h"
#include "emu/semantics/int_units.h"

namespace asmevo::emu::sem {

// v_cmp_class: S1 is a mask of classes (0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0,
// 6 +0, 7 +denormal, 8 +normal, 9 +inf). sNaN vs qNaN by the quiet bit.
template <class T> bool fp_class(T a, u32 mask) {
  int c;
  switch (std::fpclassify(a)) {
    case FP_NAN: {
      bool quiet;
      if constexpr (sizeof(T) == 4) quiet = std::bit_cast<u32>(a) >> 22 & 1;
      else quiet = std::bit_cast<u64>(a) >> 51 & 1;
      c = quiet ? 1 : 0;
      break;
    }
    case FP_INFINITE: c = std::signbit(a) ? 2 : 9; break;
    case FP_NORMAL: c = std::signbit(a) ? 3 : 8; break;
    case FP_SUBNORMAL: c = std::signbit(a) ? 4 : 7; break;
    default: c = std::signbit(a) ? 5 : 6; break;
  }
  return mask >> c & 1;
}

void register_vopc(Registry& r) {
  EmuUnits units{r};
  int_vopc_units(units);  // integer compares: generic (emu/semantics/int_units.h)
  float_vopc_units(units);  // float compares: generic (emu/semantics/float_units.h)
  valu<[](float a, u32 m) { return fp_class(a, m); }>(r, "v_cmp_class_f32");
  valu<[](double a, u32 m) { return fp_class(a, m); }>(r, "v_cmp_class_f64");
  valu<[](float a, u32 m) { return fp_class(a, m); }>(r, "v_cmpx_class_f32", Category::Vector, kWritesExec);
  valu<[](double a, u32 m) { return fp_class(a, m); }>(r, "v_cmpx_class_f64", Category::Vector, kWritesExec);
}

}  // namespace asmevo::emu::sem
