// Checks the HIP kernel corpus (corpus/hip) and its CPU references (corpus/reference):
//  - the build manifest lists every kernel file for gfx90a/gfx942/gfx950 (code object v5), v4 and v6
//    variants, target-ID variants, offload bundles and host shared libraries; each file is what it
//    claims to be (ELF magic, EM_AMDGPU, e_flags arch and xnack/sramecc, EI_ABIVERSION, bundle
//    entries, .hip_fatbin contents);
//  - every extern "C" __global__ kernel has a reference and a launch spec, and the spec agrees with
//    the source signature and with the code object's metadata (explicit args, max workgroup size);
//  - references compute the right numbers on small hand-computed inputs, reject bad launches, and
//    run on the inputs of every launch spec.
#include <gtest/gtest.h>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <set>

#include "corpus/reference/reference.h"
#include "tests/corpus/corpus_test_util.h"
#include "tests/corpus/launch_spec.h"

namespace {

using namespace asmevo::corpus;
using namespace asmevo::corpus::test;

const std::vector<std::string> kArchs = {"gfx90a", "gfx942", "gfx950"};

bool has_elf_magic(const std::string& bytes) { return bytes.size() >= 64 && bytes.compare(0, 4, "\x7f" "ELF") == 0; }

// ---- ELF facts ---------------------------------------------------------------------------------

struct MetaArg {
  std::string value_kind;
  uint64_t size = 0;
};
struct MetaKernel {
  std::string name;
  std::vector<MetaArg> args;
  uint64_t max_flat_workgroup_size = 0;
};
struct ElfFacts {
  uint16_t machine = 0;
  uint32_t flags = 0;
  uint8_t abi_version = 0;
  std::set<std::string> sections;
  std::vector<MetaKernel> kernels;
  std::string hip_fatbin;
};

uint64_t doc_uint(const llvm::msgpack::DocNode& n) {
  return n.getKind() == llvm::msgpack::Type::Int ? static_cast<uint64_t>(n.getInt()) : n.getUInt();
}

std::optional<ElfFacts> read_elf(const std::string& bytes, const std::string& what) {
  auto buf = llvm::MemoryBuffer::getMemBuffer(llvm::StringRef(bytes.data(), bytes.size()), what, false);
  auto bin = llvm::object::ObjectFile::createObjectFile(buf->getMemBufferRef());
  if (!bin) {
    ADD_FAILURE() << what << ": " << llvm::toString(bin.takeError());
    return std::nullopt;
  }
  auto* elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(bin->get());
  if (!elf) {
    ADD_FAILURE() << what << ": not ELF64LE";
    return std::nullopt;
  }
  const auto& ef = elf->getELFFile();
  ElfFacts f;
  f.machine = ef.getHeader().e_machine;
  f.flags = ef.getHeader().e_flags;
  f.abi_version = ef.getHeader().e_ident[llvm::ELF::EI_ABIVERSION];
  auto sections = ef.sections();
  if (!sections) {
    ADD_FAILURE() << what << ": " << llvm::toString(sections.takeError());
    return std::nullopt;
  }
  for (const auto& sec : *sections) {
    auto name = ef.getSectionName(sec);
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    f.sections.insert(name->str());
    if (*name == ".hip_fatbin") {
      auto data = ef.getSectionContents(sec);
      if (data) f.hip_fatbin.assign(reinterpret_cast<const char*>(data->data()), data->size());
      else llvm::consumeError(data.takeError());
    }
    if (sec.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : ef.notes(sec, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(sec.sh_addralign), false)) {
        ADD_FAILURE() << what << ": unreadable metadata";
        continue;
      }
      auto& kernels = doc.getRoot().getMap()["amdhsa.kernels"].getArray();
      for (size_t i = 0; i < kernels.size(); ++i) {
        auto& k = kernels[i].getMap();
        MetaKernel mk;
        mk.name = k[".name"].getString().str();
        mk.max_flat_workgroup_size = doc_uint(k[".max_flat_workgroup_size"]);
        if (k.find(".args") != k.end()) {
          auto& args = k[".args"].getArray();
          for (size_t j = 0; j < args.size(); ++j) {
            auto& a = args[j].getMap();
            mk.args.push_back({a[".value_kind"].getString().str(), doc_uint(a[".size"])});
          }
        }
        f.kernels.push_back(std::move(mk));
      }
    }
    if (err) ADD_FAILURE() << what << ": " << llvm::toString(std::move(err));
  }
  return f;
}

uint32_t mach_of(const std::string& arch) {
  if (arch == "gfx90a") return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A;
  if (arch == "gfx942") return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942;
  if (arch == "gfx950") return llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950;
  return 0;
}

// Expected xnack / sramecc bits of a target ID like "gfx942:sramecc+:xnack-" (code object v4+).
uint32_t feature_bits(const std::string& tid) {
  uint32_t xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4, sram = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4;
  if (tid.find("xnack+") != std::string::npos) xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4;
  if (tid.find("xnack-") != std::string::npos) xnack = llvm::ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4;
  if (tid.find("sramecc+") != std::string::npos) sram = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4;
  if (tid.find("sramecc-") != std::string::npos) sram = llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4;
  return xnack | sram;
}

// ---- Offload bundles ---------------------------------------------------------------------------

struct BundleEntry {
  std::string triple;
  std::string bytes;
};

// Parses one __CLANG_OFFLOAD_BUNDLE__ at the start of `data`; empty on malformed input.
std::vector<BundleEntry> parse_bundle(const std::string& data) {
  static const std::string kMagic = "__CLANG_OFFLOAD_BUNDLE__";
  std::vector<BundleEntry> out;
  auto u64 = [&](size_t off) {
    uint64_t v = 0;
    if (off + 8 <= data.size()) std::memcpy(&v, data.data() + off, 8);
    return v;
  };
  if (data.compare(0, kMagic.size(), kMagic) != 0) return out;
  uint64_t n = u64(24);
  size_t pos = 32;
  for (uint64_t i = 0; i < n && i < 64; ++i) {
    uint64_t off = u64(pos), size = u64(pos + 8), tlen = u64(pos + 16);
    if (pos + 24 + tlen > data.size() || off + size > data.size()) return {};
    out.push_back({data.substr(pos + 24, tlen), data.substr(off, size)});
    pos += 24 + tlen;
  }
  return out;
}

// Checks one bundle: an empty host entry and one code object per arch, each with the right e_flags.
void check_bundle(const std::string& data, const std::string& what) {
  auto entries = parse_bundle(data);
  ASSERT_EQ(entries.size(), 1 + kArchs.size()) << what;
  std::set<std::string> archs;
  for (const auto& e : entries) {
    if (e.triple.rfind("host-", 0) == 0) {
      EXPECT_TRUE(e.bytes.empty()) << what;
      continue;
    }
    ASSERT_EQ(e.triple.rfind("hipv4-amdgcn-amd-amdhsa--", 0), 0u) << what << ": " << e.triple;
    std::string arch = e.triple.substr(std::string("hipv4-amdgcn-amd-amdhsa--").size());
    archs.insert(arch);
    ASSERT_TRUE(has_elf_magic(e.bytes)) << what << ": " << e.triple;
    auto f = read_elf(e.bytes, what + ":" + e.triple);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->flags & llvm::ELF::EF_AMDGPU_MACH, mach_of(arch)) << what << ": " << arch;
    EXPECT_FALSE(f->kernels.empty()) << what << ": " << arch;
  }
  EXPECT_EQ(archs, std::set<std::string>(kArchs.begin(), kArchs.end())) << what;
}

// ---- (a) the build manifest --------------------------------------------------------------------

TEST(HipCorpusBuild, ManifestCoversEveryFileArchAndVersion) {
  auto manifest = read_manifest();
  ASSERT_FALSE(manifest.empty()) << "no manifest at " << kHipBuild / "manifest.txt";
  std::set<std::string> files;
  for (const auto& k : hip_kernels()) files.insert(k.file);
  ASSERT_GE(files.size(), 30u);

  // (cov, target) -> source stems
  std::map<std::pair<int, std::string>, std::set<std::string>> co;
  size_t bundles = 0, sos = 0;
  for (const auto& e : manifest) {
    SCOPED_TRACE(e.path.string());
    ASSERT_TRUE(fs::exists(e.path));
    std::string bytes = read_file(e.path);
    ASSERT_FALSE(e.sources.empty());
    for (const auto& s : e.sources) EXPECT_TRUE(fs::exists(fs::path(ASMEVO_SOURCE_DIR) / s)) << s;
    if (e.kind == "co") {
      ASSERT_EQ(e.sources.size(), 1u);
      ASSERT_TRUE(has_elf_magic(bytes));
      auto f = read_elf(bytes, e.path.string());
      ASSERT_TRUE(f);
      std::string arch = e.target.substr(0, e.target.find(':'));
      EXPECT_EQ(f->machine, llvm::ELF::EM_AMDGPU);
      EXPECT_EQ(f->flags & llvm::ELF::EF_AMDGPU_MACH, mach_of(arch));
      EXPECT_EQ(f->flags & (llvm::ELF::EF_AMDGPU_FEATURE_XNACK_V4 | llvm::ELF::EF_AMDGPU_FEATURE_SRAMECC_V4),
                feature_bits(e.target));
      // EI_ABIVERSION: 2 = code object v4, 3 = v5, 4 = v6.
      EXPECT_EQ(f->abi_version, e.cov - 2);
      // The code object holds exactly the kernels its source declares.
      std::set<std::string> want, got;
      std::string stem = fs::path(e.sources[0]).stem().string();
      for (const auto& k : hip_kernels())
        if (k.file == stem) want.insert(k.name);
      for (const auto& k : f->kernels) got.insert(k.name);
      EXPECT_EQ(got, want);
      co[{e.cov, e.target}].insert(stem);
    } else if (e.kind == "bundle") {
      ++bundles;
      check_bundle(bytes, e.path.string());
    } else if (e.kind == "host-so") {
      ++sos;
      ASSERT_TRUE(has_elf_magic(bytes));
      auto f = read_elf(bytes, e.path.string());
      ASSERT_TRUE(f);
      EXPECT_EQ(f->machine, llvm::ELF::EM_X86_64);
      ASSERT_TRUE(f->sections.count(".hip_fatbin"));
      // One 4096-aligned bundle per source file, uncompressed.
      const std::string& fb = f->hip_fatbin;
      ASSERT_EQ(fb.compare(0, 24, "__CLANG_OFFLOAD_BUNDLE__"), 0) << "no bundle magic at the start of .hip_fatbin";
      size_t found = 0;
      for (size_t off = 0; off < fb.size(); off += 4096)
        if (fb.compare(off, 24, "__CLANG_OFFLOAD_BUNDLE__") == 0) {
          ++found;
          check_bundle(fb.substr(off), e.path.string() + "@" + std::to_string(off));
        }
      EXPECT_EQ(found, e.sources.size());
    } else {
      ADD_FAILURE() << "unknown kind " << e.kind;
    }
  }
  for (const auto& arch : kArchs) {
    EXPECT_EQ(co[std::make_pair(5, arch)], files) << arch << " v5 must cover every kernel file";
    EXPECT_GE(co[std::make_pair(4, arch)].size(), 4u) << arch << " v4";
    EXPECT_GE(co[std::make_pair(6, arch)].size(), 4u) << arch << " v6";
  }
  size_t tids = 0;
  for (const auto& [key, stems] : co)
    if (key.second.find(':') != std::string::npos) tids += stems.size();
  EXPECT_GE(tids, 4u) << "target-ID variants (xnack / sramecc)";
  EXPECT_GE(bundles, 2u);
  EXPECT_GE(sos, 2u);
}

// ---- (b) sources, references and launch specs agree ------------------------------------------------

std::string scalar_dtype(const std::string& type) {
  if (type == "int") return "i32";
  if (type == "unsigned" || type == "unsigned int") return "u32";
  if (type == "float") return "f32";
  if (type == "double") return "f64";
  if (type == "long long") return "i64";
  return "?" + type;
}
std::string pointee_dtype(std::string type) {
  for (const char* drop : {"const ", "*"})
    for (size_t p; (p = type.find(drop)) != std::string::npos;) type.erase(p, std::strlen(drop));
  type = trim(type);
  if (type == "float") return "f32";
  if (type == "double") return "f64";
  if (type == "__half" || type == "_Float16") return "f16";
  if (type == "hip_bfloat16") return "bf16";
  if (type == "int") return "i32";
  if (type == "unsigned" || type == "unsigned int") return "u32";
  if (type == "unsigned char") return "u8";
  if (type == "long long") return "i64";
  return "?" + type;
}

TEST(HipCorpusSources, EveryKernelHasReferenceAndLaunchSpec) {
  auto kernels = hip_kernels();
  ASSERT_GE(kernels.size(), 32u);
  size_t declared = 0;  // the signature parser must not miss any declaration
  for (const auto& e : fs::directory_iterator(kHipDir)) {
    if (e.path().extension() != ".hip") continue;
    std::string text = read_file(e.path());
    for (size_t p = 0; (p = text.find("extern \"C\" __global__", p)) != std::string::npos; ++p) ++declared;
  }
  EXPECT_EQ(kernels.size(), declared);
  std::set<std::string> names;
  for (const auto& k : kernels) {
    SCOPED_TRACE(k.name);
    EXPECT_TRUE(names.insert(k.name).second) << "kernel names must be unique";
    const ReferenceEntry* ref = find_reference(k.name);
    ASSERT_NE(ref, nullptr) << "no reference";
    EXPECT_NO_THROW(parse_tolerance(ref->tolerance)) << ref->tolerance;
    fs::path specPath = kHipDir / "launch" / (k.name + ".yaml");
    ASSERT_TRUE(fs::exists(specPath)) << specPath;
    LaunchSpec spec = load_launch_spec(specPath);
    EXPECT_EQ(spec.kernel, k.name);
    ASSERT_EQ(spec.args.size(), k.params.size());
    for (size_t i = 0; i < k.params.size(); ++i) {
      SCOPED_TRACE(k.params[i].name);
      EXPECT_EQ(spec.args[i].name, k.params[i].name);
      EXPECT_EQ(spec.args[i].is_buffer, k.params[i].pointer);
      if (k.params[i].pointer) {
        EXPECT_EQ(spec.args[i].dtype, pointee_dtype(k.params[i].type));
        EXPECT_GT(spec.args[i].count, 0u);
        EXPECT_LE(spec.args[i].count, 65536u);
      } else {
        EXPECT_EQ(spec.args[i].dtype, scalar_dtype(k.params[i].type));
      }
    }
    uint64_t groups = uint64_t(spec.grid.x) * spec.grid.y * spec.grid.z;
    EXPECT_GE(groups, 1u);
    EXPECT_LE(groups, 256u);
    EXPECT_LE(spec.block.x * spec.block.y * spec.block.z, 1024u);
  }
  // No orphans: every reference and every spec belongs to a kernel.
  for (const auto& r : references()) EXPECT_TRUE(names.count(r.kernel)) << "reference without kernel: " << r.kernel;
  for (const auto& e : fs::directory_iterator(kHipDir / "launch"))
    EXPECT_TRUE(names.count(e.path().stem().string())) << "spec without kernel: " << e.path();
}

TEST(HipCorpusSources, LaunchSpecsMatchCodeObjectMetadata) {
  auto kernels = hip_kernels();
  size_t checked = 0;
  for (const auto& arch : kArchs) {
    for (const auto& k : kernels) {
      SCOPED_TRACE(arch + " " + k.name);
      auto f = read_elf(read_file(kHipBuild / arch / (k.file + ".co")), k.file + ".co");
      ASSERT_TRUE(f);
      const MetaKernel* mk = nullptr;
      for (const auto& m : f->kernels)
        if (m.name == k.name) mk = &m;
      ASSERT_NE(mk, nullptr);
      LaunchSpec spec = load_launch_spec(kHipDir / "launch" / (k.name + ".yaml"));
      std::vector<MetaArg> explicit_args;
      for (const auto& a : mk->args)
        if (a.value_kind.rfind("hidden_", 0) != 0) explicit_args.push_back(a);
      ASSERT_EQ(explicit_args.size(), spec.args.size());
      for (size_t i = 0; i < spec.args.size(); ++i) {
        if (spec.args[i].is_buffer) {
          EXPECT_EQ(explicit_args[i].value_kind, "global_buffer") << i;
          EXPECT_EQ(explicit_args[i].size, 8u) << i;
        } else {
          EXPECT_EQ(explicit_args[i].value_kind, "by_value") << i;
          EXPECT_EQ(explicit_args[i].size, dtype_size(spec.args[i].dtype)) << i;
        }
      }
      EXPECT_LE(uint64_t(spec.block.x) * spec.block.y * spec.block.z, mk->max_flat_workgroup_size);
      ++checked;
    }
  }
  EXPECT_GE(checked, 3 * 32u);
}

// Every reference runs on its launch spec's inputs without complaint, and writes something.
TEST(HipCorpusReferences, RunOnEveryLaunchSpec) {
  for (const auto& k : hip_kernels()) {
    SCOPED_TRACE(k.name);
    LaunchSpec spec = load_launch_spec(kHipDir / "launch" / (k.name + ".yaml"));
    auto args = make_args(spec);
    auto before = args;
    const ReferenceEntry* ref = find_reference(k.name);
    ASSERT_NE(ref, nullptr);
    ASSERT_NO_THROW(ref->fn(args, spec.grid, spec.block, spec.dynamic_lds));
    bool changed = false;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].is_buffer) continue;
      changed |= args[i].bytes != before[i].bytes;
      for (size_t j = 0; j < args[i].bytes.size() / dtype_size(args[i].dtype); ++j)
        ASSERT_TRUE(std::isfinite(element(args[i], j))) << "arg " << i << " element " << j;
    }
    EXPECT_TRUE(changed) << "the reference wrote nothing";
  }
}

// ---- (c) references on hand-computed inputs ------------------------------------------------------

HostArg f32s(std::vector<float> v) { return HostArg::buffer("f32", v); }
HostArg i32(int32_t v) { return HostArg::scalar("i32", v); }
HostArg f32(float v) { return HostArg::scalar("f32", v); }
void run(const char* kernel, std::vector<HostArg>& args, Dim3 grid, Dim3 block, uint32_t lds = 0) {
  const ReferenceEntry* r = find_reference(kernel);
  ASSERT_NE(r, nullptr) << kernel;
  r->fn(args, grid, block, lds);
}

TEST(HipCorpusReferences, HandComputed) {
  {  // sum of [1, 2, 3] accumulates into out[0] = 0.5
    std::vector<HostArg> a = {f32s({1, 2, 3}), f32s({0.5f}), i32(3)};
    run("reduce_sum_f32", a, {1}, {64});
    EXPECT_EQ(a[1].data<float>()[0], 6.5f);
  }
  {  // softmax of [0, 0] and of [0, ln 3]
    std::vector<HostArg> a = {f32s({0, 0, 0, std::log(3.0f)}), f32s({9, 9, 9, 9}), i32(2), i32(2)};
    run("softmax_rows_f32", a, {1}, {64}, 256);
    auto y = a[1].to_vector<float>();
    EXPECT_FLOAT_EQ(y[0], 0.5f);
    EXPECT_FLOAT_EQ(y[1], 0.5f);
    EXPECT_FLOAT_EQ(y[2], 0.25f);
    EXPECT_FLOAT_EQ(y[3], 0.75f);
  }
  {  // log-softmax of [0, 0] = [-ln 2, -ln 2]
    std::vector<HostArg> a = {f32s({0, 0}), f32s({0, 0}), i32(1), i32(2)};
    run("log_softmax_rows_f32", a, {1}, {64});
    EXPECT_FLOAT_EQ(a[1].data<float>()[0], -std::log(2.0f));
    EXPECT_FLOAT_EQ(a[1].data<float>()[1], -std::log(2.0f));
  }
  {  // [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]
    std::vector<HostArg> a = {f32s({1, 2, 3, 4}), f32s({5, 6, 7, 8}), f32s({0, 0, 0, 0}), i32(2), i32(2), i32(2)};
    run("matmul_naive_f32", a, {1, 1}, {16, 16});
    EXPECT_EQ(a[2].to_vector<float>(), (std::vector<float>{19, 22, 43, 50}));
  }
  {  // the same product through the f16 MFMA kernel's reference (f16 inputs, f32 output)
    auto h = [](std::vector<float> v) {
      std::vector<uint16_t> o;
      for (float x : v) o.push_back(f32_to_f16(x));
      return HostArg::buffer("f16", o);
    };
    std::vector<HostArg> a = {h({1, 2, 3, 4}), h({5, 6, 7, 8}), f32s({0, 0, 0, 0}), i32(2), i32(2), i32(2)};
    run("matmul_mfma_16x16x16_f16", a, {1, 1}, {64});
    EXPECT_EQ(a[2].to_vector<float>(), (std::vector<float>{19, 22, 43, 50}));
  }
  {  // argmax: first index of the maximum; empty rows give -1
    std::vector<HostArg> a = {f32s({1, 3, 3, 2, -1, -5, -1, -9}), HostArg::buffer("i32", std::vector<int32_t>{7, 7}),
                              i32(2), i32(4)};
    run("argmax_rows_f32", a, {1}, {64, 4});
    EXPECT_EQ(a[1].to_vector<int32_t>(), (std::vector<int32_t>{1, 0}));
    std::vector<HostArg> e = {f32s({0}), HostArg::buffer("i32", std::vector<int32_t>{7}), i32(1), i32(0)};
    run("argmax_rows_f32", e, {1}, {64, 1});
    EXPECT_EQ(e[1].data<int32_t>()[0], -1);
  }
  {  // vector_add writes only what the grid covers: 1 workgroup of 2 for n = 5
    std::vector<HostArg> a = {f32s({1, 2, 3, 4, 5}), f32s({10, 20, 30, 40, 50}), f32s({0, 0, 0, 0, 0}), i32(5)};
    run("vector_add", a, {1}, {2});
    EXPECT_EQ(a[2].to_vector<float>(), (std::vector<float>{11, 22, 0, 0, 0}));
  }
  {  // relu has a grid-stride loop: it covers all of n
    std::vector<HostArg> a = {f32s({-1, 2, -3, 4, 0}), f32s({9, 9, 9, 9, 9}), i32(5)};
    run("relu_f32", a, {1}, {2});
    EXPECT_EQ(a[1].to_vector<float>(), (std::vector<float>{0, 2, 0, 4, 0}));
  }
  {  // inclusive and per-workgroup exclusive scans
    std::vector<HostArg> a = {HostArg::buffer("i32", std::vector<int32_t>{1, 2, 3, 4}),
                              HostArg::buffer("i32", std::vector<int32_t>(4)), i32(4)};
    run("prefix_scan_inclusive_i32", a, {1}, {256});
    EXPECT_EQ(a[1].to_vector<int32_t>(), (std::vector<int32_t>{1, 3, 6, 10}));
    std::vector<uint32_t> x(130, 1);
    std::vector<HostArg> b = {HostArg::buffer("u32", x), HostArg::buffer("u32", std::vector<uint32_t>(130)),
                              HostArg::buffer("u32", std::vector<uint32_t>(3)), i32(130)};
    run("scan_blocks_exclusive_u32", b, {3}, {64});
    auto y = b[1].to_vector<uint32_t>();
    EXPECT_EQ(y[0], 0u);
    EXPECT_EQ(y[63], 63u);
    EXPECT_EQ(y[64], 0u);
    EXPECT_EQ(y[129], 1u);
    EXPECT_EQ(b[2].to_vector<uint32_t>(), (std::vector<uint32_t>{64, 64, 2}));
  }
  {  // histogram into 2 bins, accumulated
    std::vector<HostArg> a = {HostArg::buffer("u8", std::vector<uint8_t>{0, 255, 128, 4, 127}),
                              HostArg::buffer("u32", std::vector<uint32_t>{1, 0}), i32(5), i32(2)};
    run("histogram_u8", a, {1}, {256});
    EXPECT_EQ(a[1].to_vector<uint32_t>(), (std::vector<uint32_t>{4, 2}));
  }
  {  // layernorm of [1, 2, 3]: mean 2, variance 2/3
    std::vector<HostArg> a = {f32s({1, 2, 3}), f32s({1, 1, 2}), f32s({0, 0, 1}), f32s({0, 0, 0}), i32(1), i32(3), f32(0)};
    run("layernorm_f32", a, {1}, {64});
    auto y = a[3].to_vector<float>();
    EXPECT_FLOAT_EQ(y[0], -1.2247449f);
    EXPECT_FLOAT_EQ(y[1], 0.0f);
    EXPECT_FLOAT_EQ(y[2], 2 * 1.2247449f + 1);
  }
  {  // cross-entropy of uniform logits over 2 classes is ln 2; label -1 is ignored
    std::vector<HostArg> a = {f32s({0, 0, 5, 1}), HostArg::buffer("i32", std::vector<int32_t>{1, -1}), f32s({0, 0}),
                              f32s({0}), i32(2), i32(2)};
    run("cross_entropy_rows_f32", a, {1}, {64, 2});
    EXPECT_FLOAT_EQ(a[2].data<float>()[0], std::log(2.0f));
    EXPECT_EQ(a[2].data<float>()[1], 0.0f);
    EXPECT_FLOAT_EQ(a[3].data<float>()[0], std::log(2.0f) / 2);
  }
  {  // transpose of a 2x3 matrix
    std::vector<HostArg> a = {f32s({1, 2, 3, 4, 5, 6}), f32s({0, 0, 0, 0, 0, 0}), i32(2), i32(3)};
    run("transpose_lds_f32", a, {1, 1}, {32, 8});
    EXPECT_EQ(a[1].to_vector<float>(), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  }
  {  // gather clamps indices; scatter-add skips out-of-range ones
    std::vector<HostArg> g = {f32s({10, 11, 20, 21, 30, 31}), HostArg::buffer("i32", std::vector<int32_t>{2, -4, 9}),
                              f32s(std::vector<float>(6)), i32(3), i32(2), i32(3)};
    run("gather_rows_f32", g, {1, 1}, {64, 4});
    EXPECT_EQ(g[2].to_vector<float>(), (std::vector<float>{30, 31, 10, 11, 30, 31}));
    std::vector<HostArg> s = {f32s({1, 2, 4, 8}), HostArg::buffer("i32", std::vector<int32_t>{0, 1, 0, 2}),
                              f32s({100, 100}), i32(4), i32(2)};
    run("scatter_add_f32", s, {1}, {64});
    EXPECT_EQ(s[2].to_vector<float>(), (std::vector<float>{105, 102}));
  }
  {  // attention over two keys with equal scores averages the values
    std::vector<HostArg> a = {f32s({1, 0}), f32s({1, 0, 1, 0}), f32s({2, 4, 6, 8}), f32s({0, 0}), i32(1), i32(2), i32(2),
                              f32(1)};
    run("attention_decode_f32", a, {1}, {64}, (2 + 16) * 4);
    EXPECT_EQ(a[3].to_vector<float>(), (std::vector<float>{4, 6}));
  }
  {  // 2x2 max pooling and 1-D average pooling
    std::vector<HostArg> m = {f32s({1, 5, 2, 3, 4, 0, 9, 9, 9}), f32s({0}), i32(1), i32(3), i32(3)};
    run("maxpool2d_2x2_f32", m, {1, 1, 1}, {16, 8});
    EXPECT_EQ(m[1].data<float>()[0], 5.0f);
    std::vector<HostArg> p = {f32s({3, 6, 9, 12, 15}), f32s({0, 0}), i32(1), i32(5)};
    run("avgpool1d_k3s2_f32", p, {1, 1}, {128});
    EXPECT_EQ(p[1].to_vector<float>(), (std::vector<float>{6, 12}));
  }
  {  // blur with the [1 4 6 4 1]/16 taps and zero padding
    std::vector<HostArg> a = {f32s({0, 0, 16, 0, 0}), f32s({0, 0, 0, 0, 0}), i32(5)};
    run("blur_gauss5_f32", a, {1}, {64});
    EXPECT_EQ(a[1].to_vector<float>(), (std::vector<float>{1, 4, 6, 4, 1}));
  }
}

TEST(HipCorpusReferences, RejectBadLaunches) {
  const ReferenceEntry* r = find_reference("vector_add");
  ASSERT_NE(r, nullptr);
  std::vector<HostArg> short_out = {f32s({1, 2, 3}), f32s({1, 2, 3}), f32s({0}), i32(3)};
  EXPECT_THROW(r->fn(short_out, {1}, {64}, 0), std::invalid_argument);
  std::vector<HostArg> too_few = {f32s({1})};
  EXPECT_THROW(r->fn(too_few, {1}, {64}, 0), std::invalid_argument);
  std::vector<HostArg> t = {f32s({1, 2}), f32s({0, 0}), i32(1), i32(2)};
  EXPECT_THROW(run("transpose_lds_f32", t, {1}, {32, 4}), std::invalid_argument);  // needs 32 x 8
  std::vector<HostArg> s = {f32s({1, 2}), f32s({0, 0}), i32(1), i32(2)};
  EXPECT_THROW(run("softmax_rows_f32", s, {1}, {64}, 0), std::invalid_argument);  // needs dynamic LDS
  EXPECT_EQ(find_reference("no_such_kernel"), nullptr);
}

TEST(HipCorpusReferences, HalfAndBfloatConversions) {
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(0.1f), 0x2e66);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // halfway to 2^16 rounds to even: infinity
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);  // tie to even (0)
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -25)), 0x0002);  // tie to even (2)
  EXPECT_EQ(f32_to_f16(std::ldexp(1023.0f, -24) + std::ldexp(1.0f, -25)), 0x0400);  // rounds up into the normals
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie to even (down)
  EXPECT_EQ(f32_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie to even (up)
  EXPECT_EQ(f32_to_f16(INFINITY), 0x7c00);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(NAN))));
  for (uint32_t h = 0; h < 0x10000; ++h) {  // every finite f16 survives the round trip
    if ((h & 0x7c00) == 0x7c00) continue;
    ASSERT_EQ(f32_to_f16(f16_to_f32(uint16_t(h))), h) << std::hex << h;
  }
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f808000u)), 0x3f80);  // tie to even (down)
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f818000u)), 0x3f82);  // tie to even (up)
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x3f808001u)), 0x3f81);
  EXPECT_EQ(bf16_to_f32(0xc040), -3.0f);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(NAN))));
}

TEST(HipCorpusReferences, Tolerances) {
  Tolerance e = parse_tolerance("exact");
  EXPECT_TRUE(e.exact);
  EXPECT_TRUE(within_tolerance(1.5, 1.5, e));
  EXPECT_FALSE(within_tolerance(1.5, std::nextafter(1.5, 2.0), e));
  EXPECT_FALSE(within_tolerance(0.0, -0.0, e));
  Tolerance t = parse_tolerance("rtol=1e-5,atol=1e-6: expf vs ocml");
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.rtol, 1e-5);
  EXPECT_DOUBLE_EQ(t.atol, 1e-6);
  EXPECT_EQ(t.note, "expf vs ocml");
  EXPECT_TRUE(within_tolerance(100.0009, 100.0, t));
  EXPECT_FALSE(within_tolerance(100.002, 100.0, t));
  EXPECT_TRUE(within_tolerance(NAN, NAN, t));
  EXPECT_FALSE(within_tolerance(NAN, 1.0, t));
  EXPECT_THROW(parse_tolerance("rtol=1e-5"), std::invalid_argument);
  EXPECT_THROW(parse_tolerance("close enough"), std::invalid_argument);
  EXPECT_THROW(parse_tolerance("rtol=x,atol=1"), std::invalid_argument);
  for (const auto& r : references()) EXPECT_NO_THROW(parse_tolerance(r.tolerance)) << r.kernel;
}

}  // namespace
