#include "search/moves/probe.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "program/decoder.h"
#include "rebuild/assembler.h"
#include "rebuild/rebuild.h"
#include "check/check.h"
#include "codeobj/resources.h"
#include "support/error.h"

namespace asmevo::search {

std::vector<std::string> split_operands(const std::string& text, size_t mnemonic_size) {
  std::vector<std::string> parts;
  std::stringstream ss(text.substr(mnemonic_size));
  for (std::string part; std::getline(ss, part, ',');) {
    part.erase(0, part.find_first_not_of(' '));
    part.erase(part.find_last_not_of(' ') + 1);
    parts.push_back(part);
  }
  return parts;
}

void decode_edited_lines(program::Program& q, const std::string& kernel) {
  const program::Function& qf = kernel_function(q, kernel);
  const program::Decoder decoder(q.original().target());
  for (size_t i = qf.begin; i < qf.end; ++i) {
    const program::Line& l = q.text_line(i);
    if (l.kind != program::Line::Instr || l.inst) continue;
    program::Instruction inst = decoder.decode_one(rebuild::encode_instruction(l.text, q.original().target()), 0);
    if (inst.text != l.text) q.replace(i, i, {inst.text});
    q.attach_decoding(i, std::move(inst));
  }
}

bool rebuilds_clean(const program::Program& p, const std::string& kernel) {
  program::Program copy = p;
  copy.touch(kernel);
  try {
    copy.update_resources();
    auto co = codeobj::CodeObject::parse(rebuild::rebuild(copy.listing(), "rule-probe"), "rule-probe");
    check::CheckOptions opts;
    opts.kernel = kernel;
    return check::check_code_object(co, opts).clean();
  } catch (const Error&) {
    return false;  // what does not rebuild (e.g. past the arch's register limits) is not a candidate
  }
}

program::Program with_line(const program::Program& p, size_t line, const std::string& text) {
  program::Program copy = p;
  if (text.empty()) copy.remove(line, line);
  else copy.replace(line, line, {text});
  return copy;
}

check::Wait weakest_clean_wait(check::Wait start, const check::CounterLimits& limits,
                               const std::function<bool(const check::Wait&)>& clean) {
  for (int c = 0; c < check::kNumCounters; ++c) start.count[c] = std::min<unsigned>(start.count[c], limits.max[c]);
  for (int c = 0; c < check::kNumCounters; ++c) {
    if (start.count[c] >= limits.max[c]) continue;  // does not wait on this counter
    unsigned lo = start.count[c], hi = limits.max[c];  // max means "no wait"
    while (lo < hi) {
      const unsigned mid = lo + (hi - lo + 1) / 2;
      check::Wait trial = start;
      trial.count[c] = mid;
      if (clean(trial)) lo = mid;
      else hi = mid - 1;
    }
    start.count[c] = lo;
  }
  return start;
}

const program::Function& kernel_function(const program::Program& p, const std::string& kernel) {
  const program::Function* f = p.function(kernel);
  if (!f || !f->is_kernel) throw Error("no kernel named " + kernel, p.original().elf().name());
  return *f;
}

std::optional<size_t> closing_instruction(const program::Program& p, const program::Function& f) {
  size_t tail = f.end;
  while (tail > f.begin && !p.text_line(tail - 1).is_instruction()) --tail;
  if (tail == f.begin || !p.text_line(tail - 1).inst || !p.text_line(tail - 1).inst->no_fallthrough) return std::nullopt;
  return tail - 1;
}

std::pair<size_t, size_t> window_lines(const program::Program& p, const std::string& kernel,
                                       std::optional<std::pair<size_t, size_t>> window) {
  const program::Function& f = kernel_function(p, kernel);
  if (!window) return {f.begin, f.end - 1};
  if (window->first > window->second || window->first < f.begin || window->second >= f.end)
    throw Error(fmt::format("window [{}, {}] is not inside kernel {} (lines [{}, {}))", window->first, window->second, kernel,
                            f.begin, f.end),
                p.original().elf().name(), "windows come from the timing profile of the same kernel");
  return *window;
}

std::set<unsigned> vgprs_of(const program::Instruction& in) {
  std::set<unsigned> v;
  for (const auto* list : {&in.defs, &in.uses})
    for (const program::RegRange& r : *list)
      if (r.file == program::RegFile::VGPR)
        for (unsigned q = 0; q < r.count; ++q) v.insert(r.first + q);
  return v;
}

unsigned vgpr_occupancy_limit(const codeobj::ArchParams& ap, unsigned vgprs_now) {
  auto by_vgprs = [&](unsigned n) {
    const unsigned g = ap.vgpr_alloc_granule;
    return codeobj::compute_occupancy(ap, std::max(g, (n + g - 1) / g * g), 0, 0, 64).by_vgprs;
  };
  unsigned limit = vgprs_now;
  while (limit < ap.max_arch_vgprs && by_vgprs(limit + 1) == by_vgprs(vgprs_now)) ++limit;
  return limit;
}

std::string fresh_vgpr_room(const program::Program& p, const std::string& kernel, VgprRoom& room) {
  const program::RegisterUse use = p.register_use(kernel);
  if (use.max_agpr >= 0) return "the kernel uses AGPRs (unified register file split)";
  const codeobj::ArchParams* ap = codeobj::arch_params(p.original().target().arch);
  if (!ap) return "no resource table for the arch";
  const program::Function& f = kernel_function(p, kernel);
  room.referenced.clear();
  for (size_t i = f.begin; i < f.end; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind == program::Line::Instr && l.inst) {
      const std::set<unsigned> v = vgprs_of(*l.inst);
      room.referenced.insert(v.begin(), v.end());
    } else if (l.kind == program::Line::RawInstr) {
      return "an undecoded instruction in the kernel (its registers are unknown)";
    }
  }
  room.limit = vgpr_occupancy_limit(*ap, static_cast<unsigned>(use.max_vgpr + 1));
  room.taken = room.referenced;
  return "";
}

std::optional<unsigned> VgprRoom::take(unsigned count) {
  const unsigned step = count == 1 ? 1 : 2;
  auto free_at = [&](unsigned at) {
    for (unsigned q = at; q < at + count; ++q)
      if (taken.count(q)) return false;
    return true;
  };
  unsigned r = 0;
  while (r + count <= limit && !free_at(r)) r += step;
  if (r + count > limit) return std::nullopt;
  for (unsigned q = r; q < r + count; ++q) taken.insert(q);
  return r;
}

bool vmcnt0_alone(const program::Instruction& in, codeobj::Arch arch) {
  if (in.cls != program::InstClass::Waitcnt) return false;
  const auto w = check::decode_waitcnt(in, arch);
  if (!w) return false;
  const check::CounterLimits lim = check::counter_limits(arch);
  return w->count[check::kVmCnt] == 0 && w->count[check::kLgkmCnt] >= lim.max[check::kLgkmCnt] && w->count[check::kExpCnt] >= lim.max[check::kExpCnt];
}

}  // namespace asmevo::search
