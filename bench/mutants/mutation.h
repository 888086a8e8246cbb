// Mutants of a kernel: small edits that usually change its behaviour, to measure whether
// `verify` catches wrong kernels (its mutation score), and semantics-preserving rewrites that
// must all verify EQUIVALENT (its false-rejection rate). Operators follow the list:
//   imm            change an immediate or a memory offset
//   swap-operands  swap the two sources of a non-commutative operation
//   sibling        replace an opcode by a sibling (add<->sub, lt<->le, f32<->i32 compare, ...)
//   compare-flip   a compare's strictness or equality flipped (gt<->ge, lt<->le, eq<->ne)
//   mul-add        v_mul_f32 -> v_add_f32 where the product feeds a range check (a compare, a
//                  float-to-int conversion) or the estimate of a division sequence
//   delete-store / delete-waitcnt / delete-nop / delete-barrier / delete-exec-restore
//   retarget       move a register operand to the next register
//   swap-adjacent  swap two adjacent, dependent instructions
// Rewrites: rename-register (a VGPR to one the kernel never uses), insert-nop, swap-independent
// (two adjacent VALU or SALU instructions with no register in common).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "program/program.h"

namespace asmevo::mutants {

// One line edit of the kernel's .text: line `line` replaced by `text` (empty: deleted), or, when
// `insert` is set, `text` inserted before it.
struct LineEdit {
  size_t line = 0;
  std::string text;
  bool insert = false;
  std::string before;  // the original line's text
};

struct Mutant {
  std::string op;           // operator name
  bool preserving = false;  // a semantics-preserving rewrite (must verify EQUIVALENT)
  std::vector<LineEdit> edits;
  uint64_t address = 0;     // address of the first edited original line
  std::string diff() const; // "-old" / "+new" lines
};

// Every mutant the operators produce for kernel `kernel` of the program (deterministic order).
// Some are not valid assembly (e.g. a swapped operand the encoding does not allow): applying
// them fails to assemble and callers count them as unbuildable, not as mutants.
std::vector<Mutant> generate_mutants(const program::Program& p, const std::string& kernel);
std::vector<Mutant> generate_rewrites(const program::Program& p, const std::string& kernel);

// The operator names in report order.
const std::vector<std::string>& mutation_operators();
const std::vector<std::string>& rewrite_operators();

// Why a mutant cannot change any output, when a simple static argument shows it (else ""):
//   "dead result"        imm / sibling / swap-operands of an instruction none of whose results is
//                        live afterwards (register liveness over the CFG, whole registers)
//   "restore at the end" an exec restore followed only by scalar instructions up to s_endpgm
//   "trailing barrier"   an s_barrier with no LDS access after it and no branch back over it
//   "no-op wait"         an s_waitcnt the waitcnt dataflow proves completes nothing on any path
std::string known_equivalent(const program::Program& p, const std::string& kernel, const Mutant& m);

// Applies one mutant to a copy of the program (resources recomputed) and rebuilds it into code
// object bytes. Throws asmevo::Error when it does not assemble or exceeds the arch's limits.
std::vector<uint8_t> build_mutant(const program::Program& p, const Mutant& m);

}  // namespace asmevo::mutants
