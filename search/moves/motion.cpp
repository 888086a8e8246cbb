#include "search/moves/motion.h"

#include <string>

namespace asmevo::search {

using program::InstClass;

bool global_vector_load(const program::Instruction& in) {
  const bool global = in.cls == InstClass::VMEMLoad || (in.cls == InstClass::GLOBAL && in.may_load && !in.may_store);
  return global && in.text.find(" lds") == std::string::npos;
}

bool state_or_pc(const program::Instruction& in) {
  for (const char* m : {"setreg", "getreg", "getpc", "setpc", "swappc", "rfe", "sleep"})
    if (in.mnemonic.find(m) != std::string::npos) return true;
  return false;
}

bool pure_compute(const program::Instruction& in) {
  return in.cls == InstClass::VALU || in.cls == InstClass::VOP3P || (in.cls == InstClass::SALU && !state_or_pc(in));
}

bool register_independent(const program::Instruction& a, const program::Instruction& b) {
  for (const program::RegRange& d : a.defs)
    if (b.reads(d) || b.writes(d)) return false;
  for (const program::RegRange& d : b.defs)
    if (a.reads(d)) return false;
  return true;
}

}  // namespace asmevo::search
