// Boundary launches for the tile-loop moves' tests (tile_load_batch_test, register_double_buffer_test).
#pragma once
#include <algorithm>
#include <string>

#include "support/file_io.h"
#include "tests/support/corpus_files.h"

namespace asmevo::movetest {

// A launch of a 16 x 16-tiled A·B kernel of the corpus (args A, B, C, M, N, K[, batch in grid.z]) at
// sizes M x K x N, written under scratch_dir(area): boundary launches for the tile-loop moves.
inline std::string tiled_gemm_spec(const std::string& area, const std::string& kernel, int m, int n, int k, int batch) {
  const auto path = asmevo::testing::scratch_dir(area, "") / (kernel + "_" + std::to_string(m) + "_" + std::to_string(n) + "_" +
                                                              std::to_string(k) + "_" + std::to_string(batch) + ".yaml");
  const int a = std::max(1, batch * m * k), b = std::max(1, batch * k * n), c = std::max(1, batch * m * n);
  const std::string text = "kernel: " + kernel + "\ngrid: [" + std::to_string((n + 15) / 16) + ", " + std::to_string((m + 15) / 16) + ", " +
                           std::to_string(batch) + "]\nblock: [16, 16, 1]\ndynamic_lds: 0\nseed: 11\ninputs: 2\nspecial: true\nargs:\n" +
                           "  - {name: A, buffer: f32, count: " + std::to_string(a) + ", init: {normal: [0, 1]}}\n" +
                           "  - {name: B, buffer: f32, count: " + std::to_string(b) + ", init: {normal: [0, 1]}}\n" +
                           "  - {name: C, buffer: f32, count: " + std::to_string(c) + ", init: {normal: [0, 1]}, inout: true}\n" +
                           "  - {name: M, value: " + std::to_string(m) + ", type: i32}\n  - {name: N, value: " + std::to_string(n) +
                           ", type: i32}\n  - {name: K, value: " + std::to_string(k) + ", type: i32}\n";
  write_file_atomic(path.string(), text);
  return path.string();
}

}  // namespace asmevo::movetest
