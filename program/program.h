// The editable program: a recovered listing seen as functions → basic blocks → instructions,
// with CFG edges, labels and register liveness, plus the edit API (replace / insert / delete
// instruction ranges) and the resource bookkeeping edits require: after an edit, each affected
// kernel's register needs are recomputed and written consistently into both its kernel
// descriptor and its metadata (rebuild/rebuild.h turns the result into a code object).
#pragma once
#include <bitset>
#include <functional>
#include <map>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codeobj/code_object.h"
#include "program/recover.h"

namespace asmevo::program {

struct BasicBlock {
  size_t first = 0, last = 0;  // line indices (inclusive) of its first/last instruction in .text
  std::vector<size_t> succs, preds;  // block indices within the function
};

struct Function {
  std::string name;
  bool is_kernel = false;
  size_t begin = 0, end = 0;  // line range in .text: [begin, end)
  std::vector<BasicBlock> blocks;
  std::set<std::string> callees;  // functions it reaches through s_getpc/s_swappc or s_call
};

// Register units liveness works on: SGPR 0..127, VGPR 0..255, AGPR 0..255, VCC lo/hi, EXEC lo/hi,
// SCC, M0 (one bit each).
struct RegSet {
  static constexpr size_t kSgpr = 0, kVgpr = 128, kAgpr = 384, kVcc = 640, kExec = 642, kScc = 644, kM0 = 645, kSize = 646;
  std::bitset<kSize> bits;
  void add(const RegRange& r);
  bool contains(const RegRange& r) const;  // any unit of r
  std::string to_string() const;
};

// Registers an instruction line reads and writes (from the decoded instruction, or parsed from
// the text of an edited line).
struct LineRegisters {
  std::vector<RegRange> defs, uses;
};

// Highest registers a piece of code references.
struct RegisterUse {
  int max_sgpr = -1, max_vgpr = -1, max_agpr = -1;
  bool uses_vcc = false, uses_flat_scratch = false;
};

class Program {
 public:
  static Program recover(const codeobj::CodeObject& co);

  const codeobj::CodeObject& original() const { return original_; }
  const Listing& listing() const { return listing_; }
  const std::vector<Function>& functions() const { return functions_; }
  const Function* function(const std::string& name) const;

  // The .text line holding the original instruction at `address`; throws if none.
  size_t line_of_address(uint64_t address) const;
  const Line& text_line(size_t index) const;
  size_t text_line_count() const;

  // Edits (line indices in .text). New instructions are given as assembly text; branches may
  // name existing labels; an entry ".Lname:" adds a new local label there (a name the listing does
  // not have). A replaced range may not contain labels or symbol directives. Each edit
  // marks the enclosing function's kernels for resource recomputation and refreshes the CFG.
  void replace(size_t first, size_t last, const std::vector<std::string>& instructions);
  void insert_before(size_t line, const std::vector<std::string>& instructions);
  void remove(size_t first, size_t last);
  // Gives an edited instruction line the decoded form of its text, which the caller assembled and
  // decoded (rebuild::encode_instruction, then Decoder::decode_one): registers_of then reads its
  // exact operands instead of treating every register it names as read and written. A move that
  // analyses its own intermediate edits uses it (search/moves/rematerialize.cpp); the line stays an
  // edit (its address is the anchor's; the instruction's is set to UINT64_MAX). Throws asmevo::Error when `line` is not an edited
  // instruction line or `inst.text` is not its text.
  void attach_decoding(size_t line, Instruction inst);
  // Marks a kernel for resource recomputation without editing it.
  void touch(const std::string& kernel) { dirty_.insert(kernel); }

  // Liveness: registers live on entry to each line of function `f` (indexed by line - begin).
  // Conditional and single-bit scalar writes (s_cmov*, s_bitset*) never end liveness. With
  // `vector_writes_kill`, a VGPR/AGPR write ends the whole register's liveness — right for "which
  // registers does the code need at the entry" (register compaction). Without it, vector writes
  // never kill: a vector write only reaches the lanes EXEC enables, so inside if/else code a
  // register written in one half still carries the other half's lanes — what "this write is dead"
  // needs (dead-code elimination).
  std::vector<RegSet> live_in(const Function& f, bool vector_writes_kill = true) const;
  // A third mode, for moves that rename or recompute values (register_compact, occupancy_rename,
  // rematerialize): a VGPR/AGPR write ends the register's liveness unless `keeps_part(line)` says it
  // may leave part of the old value in place (some bits, e.g. a 16-bit result that keeps the other
  // half). A destination the decoder also lists as a use (tied DPP `old`, v_writelane, d16 loads,
  // SDWA UNUSED_PRESERVE) stays live through the write in every mode. Writes reaching only EXEC's
  // lanes are the caller's to rule out (both renaming moves refuse kernels that write EXEC, or
  // only look at the entry).
  std::vector<RegSet> live_in_partial(const Function& f, const std::function<bool(const Line&)>& keeps_part) const;
  // The instruction lines that can run right after each instruction line of `f` (indexed by line -
  // begin; empty for other lines): the next one in its block, else the first of each successor block.
  std::vector<std::vector<size_t>> successor_lines(const Function& f) const;
  LineRegisters registers_of(const Line& line) const;
  RegisterUse register_use(const std::string& kernel) const;  // kernel + everything it calls

  // Writes recomputed KD and metadata for every kernel an edit touched (and every kernel whose
  // resources were set explicitly). Throws asmevo::Error when a limit of the arch is exceeded.
  void update_resources();
  // Explicit overrides for what code cannot reveal.
  void set_lds_size(const std::string& kernel, uint32_t bytes);
  void set_scratch_size(const std::string& kernel, uint32_t bytes_per_lane);
  // Kernarg preloading (gfx942/gfx950): the first `dwords` kernarg dwords arrive in the user
  // SGPRs after the enabled ones (KD kernarg_preload length/offset 0, user_sgpr_count grown by
  // `dwords`). The code must shift every SGPR from the old user_sgpr_count up by `dwords` and
  // carry the 256-byte compatibility prologue (search/moves/kernarg_preload.cpp). Throws
  // asmevo::Error on another arch, a kernel that already preloads, or more than 16 user SGPRs.
  void set_kernarg_preload(const std::string& kernel, unsigned dwords);
  // The dispatch pointer (the AQL packet's address) in user SGPRs: the KD's enable bit set and
  // user_sgpr_count grown by 2. The hardware puts it after the private segment buffer, so the
  // user SGPRs after it and the system SGPRs move up by 2: the code must move them back first
  // (search/moves/lds_forward.cpp). Throws asmevo::Error on a kernel that has it already, preloads
  // kernel arguments, or would exceed 16 user SGPRs.
  void enable_dispatch_ptr(const std::string& kernel);

  // Current kernel descriptor and metadata (after update_resources()).
  const codeobj::KernelDescriptor& kernel_descriptor(const std::string& kernel) const;
  const codeobj::Metadata* metadata() const { return metadata_ ? &*metadata_ : nullptr; }
  const std::set<std::string>& dirty_kernels() const { return dirty_; }

 private:
  void analyze();  // functions, blocks, CFG, callees
  void mark_dirty(size_t line);
  void rewrite_kd_lines(const std::string& kernel);
  void rewrite_note_lines();
  ListingSection& text();
  const ListingSection& text() const;

  codeobj::CodeObject original_;
  Listing listing_;
  std::vector<Function> functions_;
  std::map<std::string, codeobj::KernelDescriptor> kds_;
  std::optional<codeobj::Metadata> metadata_;
  std::set<std::string> dirty_;
};

}  // namespace asmevo::program
