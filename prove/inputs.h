// DISPROVEN -> inputs: a window proof in the original kernel's own context, and the input set its
// counterexample maps back to (docs/prove.md "Counterexamples as inputs").
//
// A window-level counterexample is a live-in state of the window; most such states never occur
// in the kernel (a register that always holds log2(e) given any other value). Here K0 runs once
// on `base` under the aimed-inputs observer (verify/aimed.h), which captures the state of the first
// wave that reaches the window and, per VGPR lane, the affine function of one buffer element that
// lane holds. The proof then fixes every live-in register to its observed value except those
// element-derived lanes, runs the window on to the end of its basic block (so a range check after
// the edit is part of it), and the solver's model is inverted through the affine functions into
// element values: a concrete input set that the caller runs (the verdict rests on that run).
// With ProofOptions::launch, an SGPR holding a by-value argument with `vary:` stays free too,
// bounded by the launch facts, and the model's value becomes that argument's (inside its range).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "emu/launch_spec.h"
#include "prove/prove.h"
#include "verify/backend.h"

namespace asmevo::prove {

struct ContextProof {
  ProofResult proof;                   // under K0's observed live-in state
  std::optional<emu::LaunchSpec> run;  // the input set the model maps back to
  size_t elements = 0;                 // elements it sets
  size_t scalars = 0;                  // scalar arguments it sets (ProofOptions::launch given)
  std::string note;                    // why there is no input set
};

ContextProof prove_in_context(verify::Backend& backend, const verify::LoadedKernel& k0, const program::Program& parent,
                              const std::string& kernel, const std::vector<Change>& changes, const emu::LaunchSpec& base,
                              ProofOptions options);

}  // namespace asmevo::prove
