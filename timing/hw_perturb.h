// Perturbed hardware rows for robust fitness (search/cascade.h): the parameters of a hw_params row
// that hw_params.cpp marks as assumptions [U] or as fitted, each moved by +/- a fraction (the sign
// drawn per parameter from a seed). A win that holds under the nominal row and under several such
// draws does not rest on one guessed latency. Structural sizes (line sizes, ways, bank counts, CU
// counts) are not perturbed: a 48-byte cache line is not a nearby machine but a different one.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "timing/hw_params.h"

namespace asmevo::timing {

// The names of the fields of `arch`'s row that are [U] or fitted (the table in hw_perturb.cpp).
std::vector<std::string> uncertain_params(codeobj::Arch arch);

// `base` with every uncertain parameter multiplied by 1 + fraction or 1 - fraction (drawn from
// `seed`; integer fields rounded, at least 1). The same seed gives the same row.
HwParams perturbed_params(const HwParams& base, uint64_t seed, double fraction = 0.25);

}  // namespace asmevo::timing
