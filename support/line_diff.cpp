#include "support/line_diff.h"

#include <algorithm>
#include <cstdint>

namespace asmevo {

LineDiff diff_lines(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t max_cells) {
  LineDiff d;
  auto& ops = d.ops;
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) ++suf;
  for (size_t i = 0; i < pre; ++i) ops.push_back({DiffOp::kEqual, i, i});
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= max_cells) {
    std::vector<uint32_t> L((n + 1) * (m + 1), 0);  // L[i][j]: LCS of a[pre+i..] and b[pre+j..]
    auto at = [&](size_t i, size_t j) -> uint32_t& { return L[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        ops.push_back({DiffOp::kEqual, pre + i, pre + j});
        ++i, ++j;
      } else if (j < m && (i == n || at(i, j + 1) >= at(i + 1, j))) {
        ops.push_back({DiffOp::kInsert, pre + i, pre + j});
        ++j;
      } else {
        ops.push_back({DiffOp::kDelete, pre + i, pre + j});
        ++i;
      }
    }
  } else {
    d.whole_replacement = n > 0 && m > 0;
    for (size_t i = 0; i < n; ++i) ops.push_back({DiffOp::kDelete, pre + i, pre});
    for (size_t j = 0; j < m; ++j) ops.push_back({DiffOp::kInsert, pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({DiffOp::kEqual, pre + n + k, pre + m + k});
  return d;
}

}  // namespace asmevo
