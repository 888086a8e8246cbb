// `asmevo rebuild IN.s -o OUT.co` and `asmevo roundtrip FILE [--json]`.
#pragma once
#include <CLI/CLI.hpp>
#include <string>

namespace asmevo::cli {

struct RebuildOptions {
  std::string input, output;
};
CLI::App* add_rebuild_command(CLI::App& app, RebuildOptions& opts);
int run_rebuild(const RebuildOptions& opts);

struct RoundtripOptions {
  std::string file;
  bool json = false;
};
CLI::App* add_roundtrip_command(CLI::App& app, RoundtripOptions& opts);
int run_roundtrip(const RoundtripOptions& opts);

}  // namespace asmevo::cli
