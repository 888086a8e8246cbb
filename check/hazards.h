// Software-managed hazards ("manually inserted wait states"): pairs of instructions the hardware
// does not interlock, which need a minimum number of independent instructions or s_nop wait
// states between them. The rules are a table (hazard_rules.cpp), one row per rule with its
// source; the rows follow LLVM's GCNHazardRecognizer (the implementation of the gfx90a/gfx940
// ISA guides' "Manually Inserted Wait States" tables) for gfx90a, gfx942 and gfx950.
//
// Counting (docs/checks.md "hazards"): the distance from a producer P to a consumer C is the
// sum of wait_states() of the instructions strictly between them (1 each, s_nop N gives N+1).
// On every CFG path backwards from C the *nearest* instruction the rule's producer predicate
// accepts decides (as getWaitStatesSince does); the check fails if on some path that distance
// is below what the rule requires. Paths are followed through loops and across blocks; the
// function entry ends a path without a hazard (LLVM's convention: nothing before the entry is
// visible, so callers and kernel launch are assumed hazard-free).
#pragma once
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "check/code.h"
#include "check/violation.h"
#include "codeobj/target.h"

namespace asmevo::check {

struct HazardContext {
  codeobj::Arch arch = codeobj::Arch::gfx942;
  bool xnack = true;          // XNACK on or "any" (LLVM isXNACKEnabled): soft-clause rules apply
  unsigned arch_vgprs = 0;    // allocated architectural VGPRs (0: unknown), for shift64-high-reg
};

// Bit per processor for HazardRule::archs.
enum ArchBit : unsigned { kGfx90a = 1, kGfx942 = 2, kGfx950 = 4, kAllGfx9 = 7, kGfx940Plus = 6 };
unsigned arch_bit(codeobj::Arch a);

// One producer search for a consumer: on each path backwards, instructions for which `match`
// returns -1 are passed over; the first one for which it returns n >= 0 is the producer and
// needs n wait states (0: no hazard, the search on that path ends). `state` is a byte carried
// along the path for rules that depend on what lies between producer and consumer.
struct Probe {
  const char* rule = "";   // rule id (a row of the table)
  program::RegRange reg;   // the register the probe is about (for the report; may be empty)
  int window = 0;          // producers at distance >= window cannot matter
  std::function<int(const program::Instruction& producer, uint8_t& state)> match;
};

struct HazardRule {
  const char* id;
  const char* description;   // producer -> consumer, in words
  unsigned archs;            // ArchBit mask
  const char* wait_states;   // required wait states per arch, in words (for docs and --rules)
  const char* source;        // ISA guide table / GCNHazardRecognizer function
  // Distance rules: the probes for consumer `c` (none if the rule does not apply to it).
  void (*probes)(const HazardContext&, const program::Instruction& c, std::vector<Probe>& out);
  // Local rules (no distance search): violations at instruction `index` of `f`.
  void (*local)(const HazardContext&, const Function& f, size_t index, std::vector<Violation>& out);
};

std::span<const HazardRule> hazard_rules();

// Every hazard rule for `ctx.arch` on every instruction of `f`.
std::vector<Violation> check_hazards(const Function& f, const HazardContext& ctx);

}  // namespace asmevo::check
