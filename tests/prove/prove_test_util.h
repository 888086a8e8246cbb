// The prove tests' one entry point: a window proof with a 10 s solver timeout (generous for CI's
// loaded machines; a verdict the tests check never depends on reaching it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "prove/prove.h"

namespace asmevo::prove::test_util {

inline ProofResult prove(const std::vector<std::string>& a, const std::vector<std::string>& b, const program::RegSet* live = nullptr,
                         const std::map<std::string, program::RegSet>* at_labels = nullptr) {
  ProofOptions o;
  o.timeout_ms = 10000;
  return prove_window(a, b, live, o, at_labels);
}

}  // namespace asmevo::prove::test_util
