#include "search/moves/kernarg.h"

#include <fmt/format.h>

#include <regex>

namespace asmevo::search {

std::optional<ArgLoad> parse_arg_load(const std::string& text, unsigned kernarg_sgpr) {
  static const std::regex re(R"(^s_load_dword(x(2|4|8|16))? (s(\d+)|s\[(\d+):(\d+)\]), s\[(\d+):(\d+)\], (0x[0-9a-fA-F]+|\d+)$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  if (std::stoul(m[7]) != kernarg_sgpr || std::stoul(m[8]) != kernarg_sgpr + 1) return std::nullopt;
  ArgLoad a;
  a.dwords = m[2].matched ? std::stoul(m[2]) : 1;
  a.dest = m[4].matched ? std::stoul(m[4]) : std::stoul(m[5]);
  a.offset = static_cast<unsigned>(std::stoul(m[9], nullptr, 0));
  return a;
}

std::optional<unsigned> kernarg_pointer_sgpr(const codeobj::KernelDescriptor& kd) {
  if (!kd.get("kernel_code_properties.enable_sgpr_kernarg_segment_ptr")) return std::nullopt;
  return 4 * kd.get("kernel_code_properties.enable_sgpr_private_segment_buffer") + 2 * kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr") +
         2 * kd.get("kernel_code_properties.enable_sgpr_queue_ptr");
}

std::vector<bool> kernarg_pointer_intact(const program::Program& p, const program::Function& f, unsigned kernarg_sgpr) {
  // Compilers reuse s[0:1] once the last argument is loaded, so a write is common after the loads
  // and harmless; what matters is whether one reaches a load.
  auto block_of = [&](size_t line) {
    for (size_t b = 0; b < f.blocks.size(); ++b)
      if (f.blocks[b].first <= line && line <= f.blocks[b].last) return b;
    return f.blocks.size();
  };
  std::vector<bool> tainted(f.blocks.size(), false);
  std::vector<size_t> first_write(f.blocks.size(), SIZE_MAX);  // in a block: lines after it are tainted
  std::vector<size_t> work;
  for (size_t i = f.begin; i < f.end; ++i) {
    const program::Line& l = p.text_line(i);
    if (l.kind != program::Line::Instr && l.kind != program::Line::RawInstr) continue;
    for (const program::RegRange& d : p.registers_of(l).defs)
      if (d.file == program::RegFile::SGPR && d.first < kernarg_sgpr + 2 && kernarg_sgpr < d.first + d.count) {
        size_t b = block_of(i);
        if (b == f.blocks.size()) return {};
        first_write[b] = std::min(first_write[b], i);
        for (size_t s : f.blocks[b].succs) work.push_back(s);
      }
  }
  while (!work.empty()) {
    size_t b = work.back();
    work.pop_back();
    if (tainted[b]) continue;
    tainted[b] = true;
    for (size_t s : f.blocks[b].succs) work.push_back(s);
  }
  std::vector<bool> intact(f.end - f.begin, false);
  for (size_t i = f.begin; i < f.end; ++i) {
    size_t b = block_of(i);
    intact[i - f.begin] = b < f.blocks.size() && !tainted[b] && i <= first_write[b];
  }
  return intact;
}

std::string sgpr_operand(unsigned first, unsigned count) {
  return count == 1 ? fmt::format("s{}", first) : fmt::format("s[{}:{}]", first, first + count - 1);
}

}  // namespace asmevo::search
