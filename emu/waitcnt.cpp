#include "emu/waitcnt.h"

#include <fmt/format.h>

#include <cstring>

#include "emu/wave.h"
#include "program/instruction.h"

namespace asmevo::emu {
namespace {
std::string reg_name(uint8_t file, unsigned r) {
  if (file == 0) return "v" + std::to_string(r);
  if (r <= 101) return "s" + std::to_string(r);
  switch (r) {
    case kVccLo: return "vcc_lo";
    case kVccHi: return "vcc_hi";
    case kExecLo: return "exec_lo";
    case kExecHi: return "exec_hi";
    case kM0: return "m0";
    default: return "sreg#" + std::to_string(r);
  }
}
bool overlap(const RegUse& a, uint8_t file, unsigned reg, unsigned count) {
  return a.file == file && a.first < reg + count && reg < a.first + a.count;
}
}  // namespace

void WaitcntState::issue(PendingOp op) {
  if (!(op.counters & kVm)) op.vm_done = true;
  if (!(op.counters & kLgkm)) op.lgkm_done = true;
  if (!(op.counters & kExp)) op.exp_done = true;
  ops_.push_back(std::move(op));
  rebuild_bits();
}

void WaitcntState::rebuild_bits() {
  vbits_.reset();
  sbits_.reset();
  auto mark = [&](uint8_t file, unsigned reg, unsigned count) {
    for (unsigned i = 0; i < count; ++i) {
      if (file == 0 && reg + i < vbits_.size()) vbits_.set(reg + i);
      if (file == 1 && reg + i < sbits_.size()) sbits_.set(reg + i);
    }
  };
  for (const auto& op : ops_) {
    for (const auto& w : op.writes) mark(w.file, w.reg, w.count);
    for (const auto& l : op.locks) mark(l.file, l.first, l.count);
  }
}

void WaitcntState::wait(Wave& w, unsigned vm, unsigned lgkm, unsigned exp) {
  if (ops_.empty()) return;
  // Count, from the youngest backwards, the ops issued after each op on each counter.
  unsigned younger_vm = 0, younger_exp = 0, younger_lds = 0;
  for (auto it = ops_.rbegin(); it != ops_.rend(); ++it) {
    PendingOp& op = *it;
    if ((op.counters & kVm) && younger_vm >= vm) op.vm_done = true;
    if ((op.counters & kExp) && younger_exp >= exp) op.exp_done = true;
    if (op.counters & kLgkm) {
      if (lgkm == 0 || (op.lgkm_in_order && younger_lds >= lgkm)) op.lgkm_done = true;
    }
    if (op.counters & kVm) ++younger_vm;
    if (op.counters & kExp) ++younger_exp;
    if ((op.counters & kLgkm) && op.lgkm_in_order) ++younger_lds;
  }
  bool changed = false;
  for (auto it = ops_.begin(); it != ops_.end();) {
    if (it->vm_done && it->lgkm_done && it->exp_done) {
      for (const PendingWrite& pw : it->writes) {
        if (pw.file == 0) {
          for (unsigned r = 0; r < pw.count; ++r) masked_store(w.v[pw.reg + r].lane, pw.data.data() + r * kWaveSize, pw.lanes);
        } else if (pw.file == 2) {
          for (size_t i = 0; i + 1 < pw.data.size(); i += 2) std::memcpy(pw.lds + pw.data[i], &pw.data[i + 1], 4);
        } else {
          for (unsigned r = 0; r < pw.count; ++r) w.s[pw.reg + r] = pw.data[r];
        }
      }
      it = ops_.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  if (changed) rebuild_bits();
}

std::string WaitcntState::violation(const ExecInst& in, uint8_t in_counters) const {
  auto hit = [&](const RegUse& u) {
    for (unsigned i = 0; i < u.count; ++i) {
      if (u.file == 0 && u.first + i < vbits_.size() && vbits_.test(u.first + i)) return true;
      if (u.file == 1 && u.first + i < sbits_.size() && sbits_.test(u.first + i)) return true;
    }
    return false;
  };
  auto describe = [&](const RegUse& u, bool is_def) -> std::string {
    for (const auto& op : ops_) {
      for (const auto& pw : op.writes)
        if (overlap(u, pw.file, pw.reg, pw.count)) {
          // In-order loads may overwrite each other's destinations without waiting: VMEM, and LDS (DS) loads
          // into VGPRs, which return in issue order too (AITer's gfx950 fmha fwd reloads a VGPR that way).
          if (is_def && in_counters == kVm && op.counters == kVm) continue;
          if (is_def && u.file == 0 && in_counters == kLgkm && op.counters == kLgkm && op.lgkm_in_order) continue;
          unsigned r = std::max<unsigned>(u.first, pw.reg);
          return fmt::format("{} {}, the destination of '{}' at 0x{:x}, before an s_waitcnt guarantees that load has completed",
                             is_def ? "writes" : "reads", reg_name(u.file, r), op.inst && op.inst->raw ? op.inst->raw->text : "?",
                             op.inst ? op.inst->address : 0);
        }
      if (is_def)
        for (const auto& l : op.locks)
          if (overlap(u, l.file, l.first, l.count))
            return fmt::format("overwrites {}, data of '{}' at 0x{:x}, before an s_waitcnt guarantees the hardware has read it",
                               reg_name(u.file, std::max<unsigned>(u.first, l.first)), op.inst && op.inst->raw ? op.inst->raw->text : "?",
                               op.inst ? op.inst->address : 0);
    }
    return {};
  };
  for (const auto& u : in.uses)
    if (hit(u))
      if (auto s = describe(u, false); !s.empty()) return s;
  for (const auto& d : in.defs)
    if (hit(d))
      if (auto s = describe(d, true); !s.empty()) return s;
  return {};
}

}  // namespace asmevo::emu
