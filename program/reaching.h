// Reaching definitions on one function's CFG: which writes of a register the value an instruction
// reads may come from. One walk for its users (prove/launch_facts.cpp: does a register still hold
// its entry or loaded value at a window; search/moves/lds_swizzle.cpp: the known bits of an
// address; search/moves/early_load.cpp: whether a load's inputs may still be in flight;
// search/moves/lds_forward.cpp: the value of an LDS address). Also what EXEC holds relative to the
// function's entry, which decides whether a vector write hides the writes before it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <vector>

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

// EXEC before each line of `f` (indexed by line - f.begin) relative to its value on the function's
// entry, E0: Entry (EXEC is E0), Subset (some subset of E0) or Unknown. A forward fixpoint over the
// blocks, merging to the weaker state: `s_and_saveexec_b64 sX, Y` makes EXEC a subset of what it was
// and, under E0, leaves E0 in sX; `s_or_b64 exec, exec, sX` (EXEC not Unknown) or `s_mov_b64 exec, sX`
// with sX still holding a saved E0 restores E0; `s_and_b64`/`s_andn2_b64 exec, exec, Y` narrow; any
// other EXEC write makes EXEC Unknown. Lines no block reaches stay Unknown.
enum class EntryExec : uint8_t { Entry, Subset, Unknown };
std::vector<EntryExec> exec_from_entry(const Program& p, const Function& f);

}  // namespace asmevo::program
