// A second opinion on straight-line code: LLVM's own AMDGPU scheduling model (MCSchedModel, read
// through the public MC API as llvm-mca does: each instruction's scheduling class, resolved for
// variants, gives its latency and reciprocal throughput). `estimate` runs a window in order on one
// wave: an instruction issues after the previous one's reciprocal throughput and when the registers
// it reads are ready (producer issue + LLVM latency). Memory is whatever latency LLVM assigns its
// class (SISchedule.td: heuristics, S6), so this opinion knows nothing about caches or occupancy.
#pragma once
#include <memory>
#include <vector>

#include "codeobj/target.h"
#include "program/instruction.h"

namespace asmevo::timing {

class LlvmSchedModel {
 public:
  explicit LlvmSchedModel(const codeobj::TargetId& target);
  ~LlvmSchedModel();
  struct Cost {
    double latency = 0, reciprocal_throughput = 0;
  };
  Cost cost(const program::Instruction& inst) const;
  // Estimated cycles of insts[first..last] (inclusive) executed once.
  double estimate(const std::vector<const program::Instruction*>& window) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Spearman's rank correlation of two equally long series (average ranks for ties); 0 if undefined.
double spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace asmevo::timing
