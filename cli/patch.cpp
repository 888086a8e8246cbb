#include "cli/patch.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

#include "rebuild/patch.h"
#include "support/error.h"
#include "support/file_io.h"
#include "support/text.h"

namespace asmevo::cli {
namespace {

std::string hex_bytes(const std::vector<uint8_t>& b) {
  std::string s;
  for (uint8_t x : b) s += fmt::format("{:02x}", x);
  return s;
}

}  // namespace

CLI::App* add_patch_command(CLI::App& app, PatchOptions& o) {
  auto* cmd = app.add_subcommand("patch",
                                 "Patch a kernel's machine code in place (same layout; refuses unsafe edits, "
                                 "docs/rebuild.md)");
  cmd->add_option("file", o.file, "code object to patch (never modified)")->required();
  cmd->add_option("--kernel", o.kernel, "kernel to patch")->required();
  cmd->add_option("--at", o.at, "offset from the kernel's code start (decimal or 0x hex); an address with --absolute");
  cmd->add_option("--asm", o.asm_text,
                  "replacement instructions, separated by ';' or newlines; branch targets as @OFFSET");
  cmd->add_option("--replace", o.replace, "number of whole instructions replaced (default 1)");
  cmd->add_option("--delete", o.delete_count, "replace N instructions from --at with s_nop 0");
  cmd->add_flag("--absolute", o.absolute, "--at is a virtual address in the code object");
  cmd->add_option("--edits", o.edits, "YAML list of {at, asm[, replace]} / {at, delete} edits, applied in order");
  cmd->add_option("-o,--output", o.output, "patched code object (written atomically)")->required();
  cmd->add_flag("--json", o.json, "machine-readable report (schema asmevo.patch/1)");
  return cmd;
}

int run_patch(const PatchOptions& o) {
  std::vector<rebuild::PatchEdit> edits;
  if (o.edits) {
    if (o.at || o.asm_text || o.replace || o.delete_count || o.absolute)
      throw Error("--edits cannot be combined with --at/--asm/--replace/--delete/--absolute", "patch",
                  "put every edit in the YAML file");
    edits = rebuild::parse_edits_yaml(read_file_text(*o.edits), *o.edits);
  } else {
    if (!o.at || (!o.asm_text && !o.delete_count))
      throw Error("give --at OFFSET with --asm TEXT (or --delete N), or --edits EDITS.yaml", "patch", "");
    if (o.asm_text && o.delete_count) throw Error("--asm and --delete exclude each other", "patch", "");
    if (o.replace && o.delete_count) throw Error("--replace and --delete exclude each other", "patch", "--delete N already names N instructions");
    rebuild::PatchEdit e;
    e.at = rebuild::parse_number(*o.at, "--at");
    e.absolute = o.absolute;
    if (o.asm_text) e.asm_text = *o.asm_text;
    if (o.replace) e.replace = *o.replace;
    e.delete_count = o.delete_count;
    e.where = "--at " + *o.at;
    edits.push_back(std::move(e));
  }
  std::error_code ec;
  if (std::filesystem::exists(o.output, ec) && std::filesystem::equivalent(o.file, o.output, ec))
    throw Error("the output would overwrite the input", o.output, "write the patched object to another path");

  auto bytes = read_file_bytes(o.file);
  rebuild::PatchResult r = rebuild::patch_kernel(bytes, o.file, o.kernel, edits);
  write_file_atomic(o.output, r.image);

  if (o.json) {
    nlohmann::json j = {{"schema", "asmevo.patch/1"}, {"file", sanitize_utf8(o.file)},
                        {"output", sanitize_utf8(o.output)}, {"kernel", sanitize_utf8(o.kernel)},
                        {"edits", nlohmann::json::array()}, {"notes", r.notes}};
    for (const auto& p : r.ranges)
      j["edits"].push_back({{"offset", p.offset}, {"address", p.address}, {"file_offset", p.file_offset},
                            {"size", p.new_bytes.size()}, {"old_bytes", hex_bytes(p.old_bytes)},
                            {"new_bytes", hex_bytes(p.new_bytes)}, {"old", p.old_text}, {"new", p.new_text}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("patched kernel {} of {} -> {}\n", sanitize_utf8(o.kernel), o.file, o.output);
  for (size_t i = 0; i < r.ranges.size(); ++i) {
    const auto& p = r.ranges[i];
    std::cout << fmt::format("  edit {} at +0x{:x} (address 0x{:x}, {} bytes):\n", i + 1, p.offset, p.address,
                             p.new_bytes.size());
    for (const auto& t : p.old_text) std::cout << "    - " << t << "\n";
    for (const auto& t : p.new_text) std::cout << "    + " << t << "\n";
  }
  for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
  return kExitOk;
}

}  // namespace asmevo::cli
