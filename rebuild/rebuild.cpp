#include "rebuild/rebuild.h"

#include <regex>

#include "rebuild/assembler.h"
#include "rebuild/linker.h"
#include "support/error.h"

namespace asmevo::rebuild {

std::vector<uint8_t> rebuild(const program::Listing& listing, const std::string& name) {
  auto object = assemble_object(listing.to_assembly(false), listing.target, name);
  return link_code_object({object}, name);
}

std::vector<uint8_t> rebuild_text(const std::string& assembly, const std::string& name) {
  // The target comes from the listing's own `.amdgcn_target` directive.
  static const std::regex target_re(R"(\.amdgcn_target\s+"([^"]+)\")");
  std::smatch m;
  if (!std::regex_search(assembly, m, target_re))
    throw Error("no .amdgcn_target directive", name, "the assembly must name its target, as `asmevo disasm` writes it");
  auto target = codeobj::parse_target_id(m[1].str());
  if (!target)
    throw Error("unknown target '" + m[1].str() + "' in .amdgcn_target", name, "use a gfx9 target such as amdgcn-amd-amdhsa--gfx942");
  auto object = assemble_object(assembly, *target, name);
  return link_code_object({object}, name);
}

}  // namespace asmevo::rebuild
