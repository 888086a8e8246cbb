// asmevo coverage FILE...: every mnemonic in the files' kernels and device functions that the
// emulator does not implement (static; exit 1 if any).
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/run.h"
#include "codeobj/code_object.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

int run_coverage(const CoverageOptions& o) {
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
