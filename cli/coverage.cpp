// asmevo coverage FILE...: every mnemonic in the files' kernels and device functions that the
// emulator does not implement (static; exit 1 if any).
#include <fmt/format.h>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "cli/run.h"
#include "codeobj/code_object.h"
#include "emu/program.h"
#include "emu/registry.h"
#include "program/decoder.h"
#include "program/isa_enum.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

namespace {

// Coverage of the whole ISA: every mnemonic LLVM decodes for the processor (program/isa_enum.h),
// and whether the emulator implements it (by stem: v_add_f32_e32 and _e64 count once).
int isa_coverage(const CoverageOptions& o) {
  auto target = codeobj::parse_target_id(o.isa);
  if (!target) throw Error("unknown processor '" + o.isa + "'", "--isa", "use gfx90a, gfx942 or gfx950");
  std::set<std::string> stems, implemented;
  for (const auto& m : program::decodable_mnemonics(*target)) {
    std::string stem(emu::mnemonic_stem(m));
    stems.insert(stem);
    if (emu::Registry::get().find(stem)) implemented.insert(stem);
  }
  std::vector<std::string> missing;
  for (const auto& s : stems)
    if (!implemented.count(s)) missing.push_back(s);
  if (o.json) {
    std::cout << nlohmann::json{{"schema", "asmevo.coverage/1"}, {"isa", target->str()}, {"decodable", stems.size()},
                                {"implemented", implemented.size()}, {"unsupported", missing}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << fmt::format("{}: the emulator implements {} of the {} instruction mnemonics LLVM 22 decodes ({:.1f}%)\n",
                             target->str(), implemented.size(), stems.size(), 100.0 * implemented.size() / std::max<size_t>(1, stems.size()));
    std::cout << "not implemented:";
    for (const auto& m : missing) std::cout << " " << m;
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace

int run_coverage(const CoverageOptions& o) {
  if (!o.isa.empty()) return isa_coverage(o);
  if (o.files.empty()) throw Error("no code objects given", "coverage", "pass code objects, or --isa PROCESSOR");
  bool any = false;
  nlohmann::json report = nlohmann::json::array();
  for (const auto& f : o.files) {
    auto co = codeobj::CodeObject::parse(read_file_bytes(f), f);
    program::Decoder dec(co.target());
    std::vector<program::Instruction> all;
    auto add = [&](uint64_t addr, uint64_t size) {
      auto bytes = co.elf().bytes_at_address(addr, size);
      if (!bytes) return;
      auto v = dec.decode_range(*bytes, addr);
      all.insert(all.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
    };
    for (const auto& k : co.kernels()) add(k.code_address, k.code_size);
    for (const auto& fn : co.device_functions()) add(fn.address, fn.size);
    auto missing = emu::unsupported_mnemonics(all);
    any |= !missing.empty();
    if (o.json) report.push_back({{"file", f}, {"instructions", all.size()}, {"unsupported", missing}});
    else {
      std::cout << fmt::format("{}: {} instructions, {} unsupported mnemonic(s)\n", f, all.size(), missing.size());
      for (const auto& m : missing) std::cout << "  " << m << "\n";
    }
  }
  if (o.json) std::cout << nlohmann::json{{"schema", "asmevo.coverage/1"}, {"files", report}}.dump(2) << "\n";
  return any ? kExitFailure : kExitOk;
}

}  // namespace asmevo::cli
