#include "cli/disasm.h"

#include <iostream>

#include "rebuild/roundtrip.h"
#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "program/recover.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

// Reads FILE and returns its single code object (containers with several must be narrowed).
codeobj::CodeObject load_single_code_object(const std::string& file) {
  auto bytes = read_file_bytes(file);
  auto objs = codeobj::extract_code_objects(bytes, file);
  if (objs.size() != 1) {
    std::string list;
    for (const auto& o : objs) list += "\n    " + o.origin;
    throw Error("the file holds " + std::to_string(objs.size()) + " code objects; this command takes exactly one", file,
                "extract one first (clang-offload-bundler --unbundle); found:" + list);
  }
  return codeobj::CodeObject::parse(std::move(objs[0].bytes), objs[0].origin);
}

int run_disasm(const DisasmOptions& opts) {
  auto co = load_single_code_object(opts.file);
  // The listing is rebuilt in memory and compared with the original first: instructions whose
  // text would re-encode differently are kept as raw bytes, so the output always reassembles.
  program::Listing listing;
  auto check = rebuild::roundtrip(co, &listing);
  if (!check.ok()) {
    const auto& d = check.differences.front();
    throw Error("recovered assembly does not rebuild into the same code object (" + std::to_string(check.differences.size()) +
                    " differences; first: " + d.what + " at " + d.where + ")",
                opts.file, "run `asmevo roundtrip " + opts.file + "` for the full list, and report it");
  }
  std::string text = listing.to_assembly(!opts.no_comments);
  if (opts.output.empty())
    std::cout << text;
  else
    write_file_atomic(opts.output, text);
  return kExitOk;
}

}  // namespace asmevo::cli
