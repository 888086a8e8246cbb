// The one line diff: a shortest-edit script between two sequences of lines (longest common
// subsequence after trimming the common prefix and suffix). search::diff_edit turns it into an
// Edit's hunks; the HTML report renders it side by side.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace asmevo {

// One step: a[a_line] and b[b_line] are equal (kEqual), or a[a_line] is removed (kDelete), or
// b[b_line] is added (kInsert). Within a changed run, where both choices keep the LCS, the
// insertion comes first.
struct DiffOp {
  enum Kind { kEqual, kDelete, kInsert } kind;
  size_t a_line = 0, b_line = 0;
};

struct LineDiff {
  std::vector<DiffOp> ops;
  // The differing middle needed more than max_cells LCS cells, so it is reported as one
  // replacement (every middle line of a deleted, every middle line of b inserted).
  bool whole_replacement = false;
};

// Edits are local, so the middle is usually a few lines; max_cells bounds the LCS table's memory
// (4 bytes a cell).
LineDiff diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t max_cells = 4'000'000);

}  // namespace asmevo
