// Profiles from a modeled run: per-instruction cycles and stall reasons, and hot windows (contiguous
// instruction ranges inside one basic block, at most `max_length` long, ranked by the cycles the
// model attributes to them) as annotated disassembly or JSON. Every figure is modeled.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "emu/program.h"
#include "timing/model.h"

namespace asmevo::timing {

struct HotWindow {
  uint32_t first = 0, last = 0;  // instruction indices (inclusive) into emu::Program::insts
  double cycles = 0;             // attributed wave-cycles
  double share = 0;              // of all attributed wave-cycles
  Stall top_stall = Stall::IssueContention;
  double top_stall_cycles = 0;
};

// Basic blocks start at the entry, at branch targets and after branches/s_endpgm; a window never
// crosses one, so a window can be moved or rewritten as a unit. One window per block (its hottest
// `max_length` instructions), the `count` hottest blocks first.
std::vector<HotWindow> hot_windows(const emu::Program& program, const ModelResult& model, unsigned max_length = 64,
                                   unsigned count = 5);

// The dominant stall of one instruction (IssueContention when it never stalled).
Stall top_stall_of(const InstProfile& p);

std::string profile_text(const emu::Program& program, const ModelResult& model, const std::vector<HotWindow>& windows);
nlohmann::json profile_json(const emu::Program& program, const ModelResult& model, const std::vector<HotWindow>& windows);
// The summary `asmevo time` prints, as JSON (schema asmevo.time/1).
nlohmann::json time_json(const ModelResult& model);

}  // namespace asmevo::timing
