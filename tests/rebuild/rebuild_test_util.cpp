#include "tests/rebuild/rebuild_test_util.h"

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

#include "tests/support/corpus_files.h"

namespace asmevo::rebuild::test {
std::filesystem::path scratch_dir(const std::string& name) { return asmevo::testing::scratch_dir("build", name); }

int run(const std::string& command, std::string* output) { return asmevo::testing::run_shell(command, output); }

std::vector<uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

const ClangOutputs& clang_tiny_kernels(const std::string& arch, unsigned cov) {
  static std::mutex m;
  static std::map<std::pair<std::string, unsigned>, ClangOutputs> cache;
  std::lock_guard lock(m);
  auto key = std::make_pair(arch, cov);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  auto dir = scratch_dir(fmt::format("clang_{}_v{}", arch, cov));
  ClangOutputs o;
  o.s_path = dir / "tiny.s";
  o.co_path = dir / "tiny.co";
  std::string common = fmt::format(
      "{} -x hip -nogpulib -D__AMDGCN_WAVEFRONT_SIZE=64 -O2 --offload-arch={} --offload-device-only "
      "--no-gpu-bundle-output -cuid=asmevo {} {}/tests/rebuild/tiny_kernels.hip",
      ASMEVO_CLANGXX, arch, cov ? fmt::format("-mcode-object-version={}", cov) : "", ASMEVO_SOURCE_DIR);
  std::string out;
  if (run(common + " -S -o " + o.s_path.string(), &out) != 0) throw std::runtime_error("clang -S failed:\n" + out);
  if (run(common + " -o " + o.co_path.string(), &out) != 0) throw std::runtime_error("clang failed:\n" + out);
  std::ifstream s(o.s_path);
  o.assembly.assign(std::istreambuf_iterator<char>(s), {});
  o.code_object = read_bytes(o.co_path);
  return cache.emplace(key, std::move(o)).first->second;
}

std::vector<std::string> loaded_differences(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  std::vector<std::string> d;
  auto ea = codeobj::ElfFile::parse(a, "a");
  auto eb = codeobj::ElfFile::parse(b, "b");
  // ELF header: everything but e_shoff (0x28, 8 bytes), e_shnum (0x3c) and e_shstrndx (0x3e).
  for (size_t i = 0; i < 64; ++i) {
    if ((i >= 0x28 && i < 0x30) || (i >= 0x3c && i < 0x40)) continue;
    if (a[i] != b[i]) d.push_back(fmt::format("ELF header byte 0x{:x}: {:02x} vs {:02x}", i, a[i], b[i]));
  }
  if (ea.segments().size() != eb.segments().size()) d.push_back("program header count differs");
  for (size_t i = 0; i < std::min(ea.segments().size(), eb.segments().size()); ++i) {
    const auto &x = ea.segments()[i], &y = eb.segments()[i];
    if (x.type != y.type || x.flags != y.flags || x.offset != y.offset || x.vaddr != y.vaddr ||
        x.file_size != y.file_size || x.mem_size != y.mem_size || x.alignment != y.alignment)
      d.push_back(fmt::format("program header {} differs", i));
  }
  auto alloc = [](const codeobj::ElfFile& e) {
    std::vector<const codeobj::ElfSection*> v;
    for (const auto& s : e.sections())
      if (s.flags & llvm::ELF::SHF_ALLOC) v.push_back(&s);
    return v;
  };
  auto sa = alloc(ea), sb = alloc(eb);
  if (sa.size() != sb.size()) d.push_back(fmt::format("{} vs {} allocated sections", sa.size(), sb.size()));
  for (size_t i = 0; i < std::min(sa.size(), sb.size()); ++i) {
    const auto &x = *sa[i], &y = *sb[i];
    if (x.name != y.name || x.address != y.address || x.flags != y.flags || x.size != y.size || x.type != y.type) {
      d.push_back(fmt::format("section {} ({}) header differs from {}", i, x.name, y.name));
      continue;
    }
    auto bx = ea.section_bytes(x), by = eb.section_bytes(y);
    if (!std::equal(bx.begin(), bx.end(), by.begin(), by.end())) d.push_back("section " + x.name + " bytes differ");
  }
  return d;
}

std::filesystem::path corpus_path(const std::string& rel) {
  return std::filesystem::path(ASMEVO_BINARY_DIR) / "corpus/hip" / rel;
}

}  // namespace asmevo::rebuild::test
