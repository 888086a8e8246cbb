#include "test_tools.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <array>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "tests/support/corpus_files.h"
#include "tests/support/object_text.h"

namespace asmevo::program::test {

std::vector<uint8_t> words(std::initializer_list<uint32_t> ws) {
  std::vector<uint8_t> out;
  for (uint32_t w : ws)
    for (int k = 0; k < 4; ++k) out.push_back(static_cast<uint8_t>(w >> (8 * k)));
  return out;
}

std::filesystem::path scratch_dir(const std::string& name) { return asmevo::testing::scratch_dir("program", name); }

int run(const std::string& command, std::string* output) { return asmevo::testing::run_shell(command, output); }

std::filesystem::path assemble(const std::string& source, const std::string& mcpu, const std::string& name) {
  auto dir = scratch_dir(mcpu);
  auto s = dir / (name + ".s");
  auto o = dir / (name + ".o");
  std::ofstream(s) << source;
  std::string out;
  int rc = run(std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + mcpu +
                   " -filetype=obj " + s.string() + " -o " + o.string(),
               &out);
  if (rc != 0) throw std::runtime_error("llvm-mc failed for " + mcpu + ":\n" + out);
  return o;
}

Section read_text(const std::filesystem::path& file) {
  auto t = asmevo::testing::read_text_section(file);
  return Section{t.address, std::move(t.bytes)};
}

std::vector<ObjdumpInst> objdump(const std::filesystem::path& file, const std::string& mcpu) {
  std::string out;
  int rc = run(std::string(ASMEVO_LLVM_OBJDUMP) + " -d --mcpu=" + mcpu + " " + file.string(), &out);
  if (rc != 0) throw std::runtime_error("llvm-objdump failed:\n" + out);
  // "\tv_add_u32_e32 v0, s2, v0      // 000000000014: 68000002 <label+0x8>"
  static const std::regex line(R"(^\t(.*?)\s*// ([0-9A-F]+): ([0-9A-F]{8}(?: [0-9A-F]{8})*)(?: <.*>)?\s*$)");
  std::vector<ObjdumpInst> insts;
  std::istringstream in(out);
  std::string l;
  std::smatch m;
  while (std::getline(in, l))
    if (std::regex_match(l, m, line))
      insts.push_back({std::stoull(m[2].str(), nullptr, 16), m[1].str(), m[3].str()});
  return insts;
}

}  // namespace asmevo::program::test
