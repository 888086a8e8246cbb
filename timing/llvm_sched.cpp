#include "timing/llvm_sched.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSchedule.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::timing {

struct LlvmSchedModel::Impl {
  llvm::Triple triple{"amdgcn-amd-amdhsa"};
  llvm::MCTargetOptions options;
  std::unique_ptr<llvm::MCRegisterInfo> mri;
  std::unique_ptr<llvm::MCAsmInfo> mai;
  std::unique_ptr<llvm::MCInstrInfo> mii;
  std::unique_ptr<llvm::MCSubtargetInfo> sti;
  std::unique_ptr<llvm::MCContext> ctx;
  std::unique_ptr<llvm::MCDisassembler> disasm;
};

LlvmSchedModel::LlvmSchedModel(const codeobj::TargetId& target) : impl_(std::make_unique<Impl>()) {
  program::initialize_llvm_amdgpu();
  std::string err;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(impl_->triple, err);
  if (!t) throw Error("LLVM has no AMDGPU target: " + err, target.str(), {}, kExitInternal);
  impl_->mri.reset(t->createMCRegInfo(impl_->triple));
  impl_->mai.reset(t->createMCAsmInfo(*impl_->mri, impl_->triple, impl_->options));
  impl_->mii.reset(t->createMCInstrInfo());
  impl_->sti.reset(t->createMCSubtargetInfo(impl_->triple, target.processor, target.mc_features()));
  if (!impl_->mri || !impl_->mai || !impl_->mii || !impl_->sti)
    throw Error("cannot create LLVM's AMDGPU MC objects", target.str(), {}, kExitInternal);
  impl_->ctx = std::make_unique<llvm::MCContext>(impl_->triple, impl_->mai.get(), impl_->mri.get(), impl_->sti.get(),
                                                 nullptr, &impl_->options);
  impl_->disasm.reset(t->createMCDisassembler(*impl_->sti, *impl_->ctx));
  if (!impl_->disasm) throw Error("cannot create LLVM's AMDGPU disassembler", target.str(), {}, kExitInternal);
}

LlvmSchedModel::~LlvmSchedModel() = default;

LlvmSchedModel::Cost LlvmSchedModel::cost(const program::Instruction& inst) const {
  llvm::MCInst mi;
  uint64_t size = 0;
  auto st = impl_->disasm->getInstruction(mi, size, llvm::ArrayRef<uint8_t>(inst.bytes.data(), inst.bytes.size()),
                                          inst.address, llvm::nulls());
  if (st == llvm::MCDisassembler::Fail) throw Error("LLVM cannot decode " + inst.text, "", {}, kExitInternal);
  const llvm::MCSchedModel& sm = impl_->sti->getSchedModel();
  unsigned sc = impl_->mii->get(mi.getOpcode()).getSchedClass();
  const llvm::MCSchedClassDesc* d = sm.getSchedClassDesc(sc);
  unsigned guard = 0;
  while (d && d->isVariant() && guard++ < 8) {
    sc = impl_->sti->resolveVariantSchedClass(sc, &mi, impl_->mii.get(), sm.getProcessorID());
    d = sm.getSchedClassDesc(sc);
  }
  Cost c;
  if (!d || !d->isValid() || d->isVariant()) return c;  // LLVM has no timing for it: free (as llvm-mca's default)
  c.latency = std::max(0, llvm::MCSchedModel::computeInstrLatency(*impl_->sti, *d));
  c.reciprocal_throughput = llvm::MCSchedModel::getReciprocalThroughput(*impl_->sti, *d);
  if (!std::isfinite(c.reciprocal_throughput)) c.reciprocal_throughput = 1;
  return c;
}

double LlvmSchedModel::estimate(const std::vector<const program::Instruction*>& window) const {
  std::map<std::pair<int, unsigned>, double> ready;  // (file, register) -> cycle its value is ready
  double issue = 0, end = 0;
  for (const program::Instruction* in : window) {
    const Cost c = cost(*in);
    double t = issue;
    for (const auto& u : in->uses)
      for (unsigned r = u.first; r < u.first + u.count; ++r)
        if (auto it = ready.find({static_cast<int>(u.file), r}); it != ready.end()) t = std::max(t, it->second);
    for (const auto& d : in->defs)
      for (unsigned r = d.first; r < d.first + d.count; ++r) ready[{static_cast<int>(d.file), r}] = t + c.latency;
    end = std::max(end, t + c.latency);
    issue = t + std::max(1.0, c.reciprocal_throughput);
  }
  return std::max(end, issue);
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const size_t n = a.size();
  if (n < 2 || b.size() != n) return 0;
  auto ranks = [n](const std::vector<double>& v) {
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    std::sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return v[x] < v[y] || (v[x] == v[y] && x < y); });
    std::vector<double> r(n);
    for (size_t i = 0; i < n;) {
      size_t j = i;
      while (j + 1 < n && v[idx[j + 1]] == v[idx[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[idx[k]] = (i + j) / 2.0 + 1;
      i = j + 1;
    }
    return r;
  };
  auto ra = ranks(a), rb = ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n, mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) sab += (ra[i] - ma) * (rb[i] - mb), saa += (ra[i] - ma) * (ra[i] - ma), sbb += (rb[i] - mb) * (rb[i] - mb);
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace asmevo::timing
