#include "tests/check/check_test_util.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <unistd.h>

#include "codeobj/target.h"
#include "program/decoder.h"
#include "support/file_io.h"

#include "tests/support/corpus_files.h"
#include "tests/support/object_text.h"

namespace asmevo::check::test {

namespace {
std::string unique_name(const std::string& stem) {
  static std::atomic<int> counter{0};
  return stem + "_" + std::to_string(counter++);
}
}  // namespace

std::filesystem::path scratch_dir() { return asmevo::testing::scratch_dir("check"); }

int run(const std::string& command, std::string* output) { return asmevo::testing::run_shell(command, output); }

namespace {

std::filesystem::path mc(const std::string& source, const std::string& mcpu, const std::string& stem) {
  auto dir = scratch_dir();
  auto s = dir / (stem + ".s");
  auto o = dir / (stem + ".o");
  std::ofstream(s) << source;
  std::string out;
  int rc = run(std::string(ASMEVO_LLVM_MC) + " -triple=amdgcn-amd-amdhsa -mcpu=" + mcpu + " -filetype=obj " +
                   s.string() + " -o " + o.string(),
               &out);
  if (rc != 0) throw std::runtime_error("llvm-mc failed for " + mcpu + ":\n" + out + "\nsource:\n" + source);
  return o;
}

std::vector<uint8_t> text_of(const std::filesystem::path& file) { return asmevo::testing::read_text_section(file).bytes; }

std::string kernel_source(const std::string& body, const std::string& mcpu, const KernelSpec& spec) {
  std::string s;
  s += ".amdgcn_target \"amdgcn-amd-amdhsa--" + mcpu + "\"\n.amdhsa_code_object_version 5\n.text\n";
  s += ".globl " + spec.name + "\n.p2align 8\n.type " + spec.name + ",@function\n" + spec.name + ":\n";
  s += body + "\n  s_endpgm\n.Lend_" + spec.name + ":\n.size " + spec.name + ", .Lend_" + spec.name + "-" + spec.name +
       "\n";
  s += ".rodata\n.p2align 6\n.amdhsa_kernel " + spec.name + "\n";
  s += "  .amdhsa_next_free_vgpr " + std::to_string(spec.next_free_vgpr) + "\n";
  s += "  .amdhsa_next_free_sgpr " + std::to_string(spec.next_free_sgpr) + "\n";
  s += "  .amdhsa_accum_offset " + std::to_string(spec.accum_offset ? spec.accum_offset : spec.next_free_vgpr) + "\n";
  s += "  .amdhsa_group_segment_fixed_size " + std::to_string(spec.group_segment) + "\n";
  s += "  .amdhsa_private_segment_fixed_size " + std::to_string(spec.private_segment) + "\n";
  if (spec.dynamic_stack) s += "  .amdhsa_uses_dynamic_stack 1\n";
  s += spec.extra_directives;
  s += ".end_amdhsa_kernel\n";
  return s;
}

}  // namespace

Function assemble_function(const std::string& body, const std::string& mcpu, bool is_kernel) {
  auto o = mc(".text\n" + body + "\n", mcpu, unique_name("snippet"));
  auto bytes = text_of(o);
  auto target = codeobj::parse_target_id(mcpu);
  if (!target) throw std::runtime_error("unknown target " + mcpu);
  program::Decoder dec(*target);
  return build_function(is_kernel ? "k" : "f", is_kernel, dec.decode_range(bytes, 0));
}

std::filesystem::path assemble_kernel_file(const std::string& body, const std::string& mcpu, const KernelSpec& spec) {
  auto stem = unique_name(spec.name);
  auto o = mc(kernel_source(body, mcpu, spec), mcpu, stem);
  auto co = scratch_dir() / (stem + ".co");
  std::string out;
  int rc = run(std::string(ASMEVO_LD_LLD) + " -shared " + o.string() + " -o " + co.string(), &out);
  if (rc != 0) throw std::runtime_error("ld.lld failed:\n" + out);
  return co;
}

codeobj::CodeObject assemble_kernel(const std::string& body, const std::string& mcpu, const KernelSpec& spec) {
  auto path = assemble_kernel_file(body, mcpu, spec);
  return codeobj::CodeObject::parse(read_file_bytes(path.string()), path.string());
}

}  // namespace asmevo::check::test
