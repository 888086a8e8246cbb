// Reaching definitions on one function's CFG: which writes of a register the value an instruction
// reads may come from. One walk for its users (prove/launch_facts.cpp: does a register still hold
// its entry or loaded value at a window; search/moves/lds_swizzle.cpp: the known bits of an
// address).
#pragma once
#include <cstddef>
#include <functional>
#include <set>

#include "program/program.h"

namespace asmevo::program {

inline constexpr size_t kEntryValue = static_cast<size_t>(-1);  // "the value on the function's entry"

// The lines of `f` whose write of `reg` the read at `line` may see, with kEntryValue when a path
// from the entry reaches `line` without a write. A line writes what registers_of() says it defines
// (an edited line: every register its text names, conservatively). A write for which `hides`
// returns false (one that may leave some lanes alone, say) does not hide the writes before it.
// Empty when `line` lies in no block of `f`.
std::set<size_t> reaching_definitions(const Program& p, const Function& f, size_t line, const RegRange& reg,
                                      const std::function<bool(size_t)>& hides = nullptr);

// Whether the only definition of `reg` reaching `line` is `def` (kEntryValue: the entry value).
bool only_definition(const Program& p, const Function& f, size_t line, const RegRange& reg, size_t def);

}  // namespace asmevo::program
