// Resource safety: the code stays within what its kernel descriptor allocates.
//
// Rules (docs/checks.md "resources"):
// - resources.vgpr / resources.agpr: every VGPR referenced (by the kernel or a device function
//   it may call) lies below the architectural VGPR allocation (accum_offset on gfx90a+), every
//   AGPR below the AGPR allocation (unified allocation minus accum_offset).
// - resources.sgpr: every SGPR referenced lies below the SGPR allocation minus the SGPRs the
//   hardware places at its top (VCC 2 when VCC is used; XNACK_MASK 4 when XNACK is on/any;
//   FLAT_SCRATCH 6 when flat_scratch is used or the processor has architected flat scratch,
//   gfx940+) -- LLVM AMDGPUBaseInfo getNumExtraSGPRs -- and below the 102 addressable SGPRs.
// - resources.lds-offset-limit: a DS instruction whose immediate offset alone reaches past the
//   largest LDS allocation of the processor (64 KiB gfx90a/gfx942, 160 KiB gfx950): out of range
//   whatever the base address (DS addresses are unsigned: base + offset >= offset).
// - resources.lds-offset: only when the caller states the launch's dynamic LDS size (a launch
//   spec does; `asmevo check --dynamic-lds BYTES`): a DS offset reaching past
//   group_segment_fixed_size + dynamic LDS, or any LDS access when both are 0. Without it the
//   dynamic part is unknown: the metadata cannot tell (Triton kernels take all their LDS at
//   launch through an external symbol with no hidden_dynamic_lds_size argument and a KD
//   group_segment_fixed_size of 0), so only the processor limit is checked.
// - resources.scratch: scratch_* instructions in a kernel whose KD allocates no private segment
//   (private_segment_fixed_size 0) and has no dynamic stack; with a fixed size and no dynamic
//   stack, constant scratch offsets (vaddr and saddr `off`) must lie within it.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "check/code.h"
#include "check/violation.h"
#include "codeobj/code_object.h"

namespace asmevo::check {

// Checks every kernel of `co`; `functions` are its decoded functions (functions_of(co)).
// `dynamic_lds`: bytes of LDS the launch adds to group_segment_fixed_size, when known.
std::vector<Violation> check_resources(const codeobj::CodeObject& co, const std::vector<Function>& functions,
                                       std::optional<uint32_t> dynamic_lds = std::nullopt);

// The device functions a function may call: s_swappc_b64/s_call_b64 whose target is computed by
// s_getpc_b64 + s_add_u32/s_addc_u32 literals in the same block (or a direct s_call_b64) name one
// function; an unresolved call may reach any device function. Indices into `functions`.
std::vector<size_t> callees_of(const Function& f, const std::vector<Function>& functions);

}  // namespace asmevo::check
