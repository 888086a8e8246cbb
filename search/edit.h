// A candidate edit of a kernel: a typed, serializable change to a recovered Program. Every proposer
// (built-in moves, stochastic moves, the LLM agent) produces Edits; the optimizer applies one to its
// parent's Program, rebuilds (the KD and metadata consequences — register counts, LDS, scratch —
// are recomputed by Program::update_resources) and sends the result through the evaluation cascade.
//
// Line indices are .text line indices of the Program recovered from the *parent* code object
// (program::Program::recover(parent)); recovery is deterministic, so an Edit stored with its
// parent's identity can be re-applied later (resume, report).
#pragma once
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "program/program.h"

namespace asmevo::search {

// Replace `count` .text lines starting at `first` by `lines` (assembly text, one statement each).
// count 0 inserts before `first`; empty `lines` deletes. `before` keeps the replaced lines' text
// (for diffs and for checking that the hunk still applies).
struct Hunk {
  size_t first = 0, count = 0;
  std::vector<std::string> lines;
  std::vector<std::string> before;
};

struct Edit {
  std::string kernel;
  std::string move;         // the move that made it: "waitcnt-refine", "reschedule", "stochastic-swap", ...
  std::string proposer;     // "rules", "stochastic", "llm"
  std::string description;  // one line for people: what changed and why it may help
  std::vector<Hunk> hunks;  // disjoint; any order (applied from the last line backwards)
  // Kernel-descriptor change that goes with the hunks: preload this many kernarg dwords
  // (Program::set_kernarg_preload; 0: the KD's preloading stays as it is).
  unsigned kernarg_preload = 0;
  // Kernel-descriptor change: enable the dispatch pointer (Program::enable_dispatch_ptr), for a guard
  // that reads the AQL packet (the workgroup size).
  bool dispatch_ptr = false;
  // A compound candidate (the optimizer's enabling chains): after this edit, each step in order,
  // each relative to the Program recovered from the previous step's rebuilt object (steps' line
  // numbers cannot refer to the parent: the earlier step moved them, and recovery renames labels).
  // Empty for an ordinary edit. Only the cascade applies steps (it rebuilds between them);
  // apply_edit applies this edit's own hunks and refuses an edit with steps.
  std::vector<Edit> then;

  bool empty() const { return hunks.empty(); }
  // "-old" / "+new" lines per hunk, with "@@ line N" headers.
  std::string diff() const;  // each step after its own "@@ then MOVE" header
  nlohmann::json to_json() const;
  static Edit from_json(const nlohmann::json& j);  // throws asmevo::Error on a malformed edit
};

// Applies `edit` to a copy of `parent` and returns it with resources updated
// (Program::update_resources). Throws asmevo::Error when a hunk does not apply: overlapping hunks,
// a line out of range, a label or directive inside a replaced range, a `before` text that does not
// match, or an arch resource limit exceeded.
program::Program apply_edit(const program::Program& parent, const Edit& edit);

// The edit that turns `parent` into `child` (a Program derived from it by edits): a line diff
// (longest common subsequence) of the .text lines, as hunks that replace only instruction lines.
// Throws asmevo::Error when the two differ in anything but instructions (labels, directives).
// A difference only in the filler after the last function (`s_nop 0`/`s_code_end` up to the next
// alignment boundary, which a longer or shorter kernel changes) is not part of the edit.
Edit diff_edit(const program::Program& parent, const program::Program& child, const std::string& kernel);

// An edit of single lines found by their original address: each (address, after) replaces the
// instruction recovered at that address by `after` (empty: deletes it). For moves that rewrite
// instructions in place (waitcnt refinement, nop minimization).
Edit line_replacements(const program::Program& p, const std::string& kernel,
                       const std::vector<std::pair<uint64_t, std::string>>& changes);

// Builds one Hunk that replaces lines [first, last] of `p` by `lines` (fills `before`).
Hunk make_hunk(const program::Program& p, size_t first, size_t last, std::vector<std::string> lines);
// An insertion before `line`.
Hunk make_insertion(size_t line, std::vector<std::string> lines);

}  // namespace asmevo::search
