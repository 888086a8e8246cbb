// Checks the committed Triton corpus (corpus/triton, built by corpus/triton/build.py):
//  - at least 10 kernels for each required arch (gfx942, gfx950; gfx90a too when present);
//  - every <arch>/<kernel>.hsaco is an AMDGPU ELF shared object whose symbol table holds the kernel named by
//    the matching Triton metadata <kernel>.json (and its .kd descriptor), with one kernel in its msgpack
//    metadata note;
//  - every kernel has a launch spec launch/<kernel>.yaml that agrees with the code object: explicit args in
//    order and kind, trailing {pointer: null} entries for Triton's hidden scratch pointers, block = num_warps *
//    64, dynamic_lds = Triton's `shared`;
//  - no file carries a build-machine path.
#include <gtest/gtest.h>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(ASMEVO_SOURCE_DIR) / "corpus" / "triton";
const std::vector<std::string> kRequiredArchs = {"gfx942", "gfx950"};
const std::vector<std::string> kAllArchs = {"gfx90a", "gfx942", "gfx950"};
const std::vector<std::string> kLeaks = {"/home/", "/root/", "/usr/", "/opt/", "/tmp/", "site-packages", ".py"};

std::string readFile(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> filesWithExt(const fs::path &dir, const std::string &ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto &e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

uint64_t docUInt(const llvm::msgpack::DocNode &n) {
  if (n.getKind() == llvm::msgpack::Type::Int) return static_cast<uint64_t>(n.getInt());
  return n.getUInt();
}

struct KernelArg {
  std::string valueKind;
  uint64_t size = 0;
};

struct CodeObjectFacts {
  uint16_t machine = 0;
  uint16_t type = 0;
  std::set<std::string> functions;  // STT_FUNC symbols
  std::set<std::string> objects;    // STT_OBJECT symbols (kernel descriptors)
  std::vector<std::string> metadataKernels;
  std::vector<KernelArg> args;      // of the first kernel in the metadata note
};

// Reads an AMDGPU code object with LLVM's Object library; returns nullopt (and a gtest failure) on error.
std::optional<CodeObjectFacts> readCodeObject(const fs::path &path) {
  auto bin = llvm::object::ObjectFile::createObjectFile(path.string());
  if (!bin) {
    ADD_FAILURE() << path << ": " << llvm::toString(bin.takeError());
    return std::nullopt;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(bin->getBinary());
  if (!elf) {
    ADD_FAILURE() << path << ": not a 64-bit little-endian ELF";
    return std::nullopt;
  }
  CodeObjectFacts f;
  const auto &ef = elf->getELFFile();
  f.machine = ef.getHeader().e_machine;
  f.type = ef.getHeader().e_type;
  for (const llvm::object::ELFSymbolRef sym : elf->symbols()) {
    auto name = sym.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (sym.getELFType() == llvm::ELF::STT_FUNC) f.functions.insert(name->str());
    if (sym.getELFType() == llvm::ELF::STT_OBJECT) f.objects.insert(name->str());
  }
  auto sections = ef.sections();
  if (!sections) {
    ADD_FAILURE() << path << ": " << llvm::toString(sections.takeError());
    return std::nullopt;
  }
  for (const auto &sec : *sections) {
    if (sec.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto &note : ef.notes(sec, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(sec.sh_addralign), false)) {
        ADD_FAILURE() << path << ": unreadable msgpack metadata";
        continue;
      }
      auto &kernels = doc.getRoot().getMap()["amdhsa.kernels"].getArray();
      for (size_t i = 0; i < kernels.size(); ++i) {
        auto &k = kernels[i].getMap();
        f.metadataKernels.push_back(k[".name"].getString().str());
        if (i != 0 || k.find(".args") == k.end()) continue;
        auto &args = k[".args"].getArray();
        for (size_t j = 0; j < args.size(); ++j) {
          auto &a = args[j].getMap();
          f.args.push_back({a[".value_kind"].getString().str(), docUInt(a[".size"])});
        }
      }
    }
    if (err) {
      ADD_FAILURE() << path << ": " << llvm::toString(std::move(err));
      return std::nullopt;
    }
  }
  return f;
}

TEST(TritonCorpus, AtLeastTenKernelsPerArch) {
  for (const auto &arch : kAllArchs) {
    auto n = filesWithExt(kCorpus / arch, ".hsaco").size();
    if (n == 0 && std::find(kRequiredArchs.begin(), kRequiredArchs.end(), arch) == kRequiredArchs.end())
      continue;  // optional arch not built
    EXPECT_GE(n, 10u) << arch;
  }
}

TEST(TritonCorpus, CodeObjectsMatchMetadataAndLaunchSpecs) {
  size_t checked = 0;
  for (const auto &arch : kAllArchs) {
    for (const auto &hsaco : filesWithExt(kCorpus / arch, ".hsaco")) {
      SCOPED_TRACE(hsaco.string());
      const std::string stem = hsaco.stem().string();
      auto facts = readCodeObject(hsaco);
      ASSERT_TRUE(facts);
      EXPECT_EQ(facts->machine, llvm::ELF::EM_AMDGPU);
      EXPECT_EQ(facts->machine, 224);
      EXPECT_EQ(facts->type, llvm::ELF::ET_DYN);

      // Triton's metadata.
      fs::path jsonPath = hsaco;
      jsonPath.replace_extension(".json");
      ASSERT_TRUE(fs::exists(jsonPath));
      auto md = nlohmann::json::parse(readFile(jsonPath));
      const std::string name = md.at("name").get<std::string>();
      EXPECT_EQ(name, stem);
      EXPECT_TRUE(facts->functions.count(name)) << "no function symbol " << name;
      EXPECT_TRUE(facts->objects.count(name + ".kd")) << "no kernel descriptor " << name << ".kd";
      ASSERT_EQ(facts->metadataKernels.size(), 1u);
      EXPECT_EQ(facts->metadataKernels[0], name);
      EXPECT_EQ(md.at("arch").get<std::string>(), arch);
      EXPECT_FALSE(md.contains("hash"));

      // Launch spec.
      const fs::path launchPath = kCorpus / "launch" / (name + ".yaml");
      ASSERT_TRUE(fs::exists(launchPath)) << launchPath;
      YAML::Node spec = YAML::LoadFile(launchPath.string());
      EXPECT_EQ(spec["kernel"].as<std::string>(), name);
      ASSERT_EQ(spec["grid"].size(), 3u);
      ASSERT_EQ(spec["block"].size(), 3u);
      EXPECT_EQ(spec["block"][0].as<int>(), md.at("num_warps").get<int>() * 64);
      if (spec["dynamic_lds"].IsMap())
        EXPECT_EQ(spec["dynamic_lds"][arch].as<int>(), md.at("shared").get<int>());
      else
        EXPECT_EQ(spec["dynamic_lds"].as<int>(), md.at("shared").get<int>());

      std::vector<KernelArg> explicitArgs;
      for (const auto &a : facts->args)
        if (a.valueKind.rfind("hidden_", 0) != 0) explicitArgs.push_back(a);
      const YAML::Node args = spec["args"];
      ASSERT_EQ(args.size(), explicitArgs.size()) << "launch args vs code-object args";
      size_t trailing = 0;
      for (size_t i = 0; i < args.size(); ++i) {
        SCOPED_TRACE("arg " + std::to_string(i));
        const YAML::Node a = args[i];
        const KernelArg &k = explicitArgs[i];
        if (a["pointer"]) {
          ++trailing;
          EXPECT_TRUE(a["pointer"].IsNull());
          EXPECT_EQ(k.valueKind, "global_buffer");
          EXPECT_EQ(k.size, 8u);
          continue;
        }
        EXPECT_EQ(trailing, 0u) << "{pointer: null} entries must come last";
        if (a["buffer"]) {
          EXPECT_EQ(k.valueKind, "global_buffer");
          EXPECT_EQ(k.size, 8u);
          EXPECT_GT(a["count"].as<long>(), 0);
          EXPECT_LE(a["count"].as<long>(), 65536);
        } else {
          ASSERT_TRUE(a["value"]) << "arg is neither buffer, value nor pointer";
          EXPECT_EQ(k.valueKind, "by_value");
          const std::string t = a["type"].as<std::string>();
          EXPECT_EQ(k.size, (t == "i64" || t == "u64" || t == "f64") ? 8u : 4u) << t;
        }
      }
      EXPECT_EQ(trailing, 2u) << "Triton's two hidden scratch pointers";
      ++checked;
    }
  }
  EXPECT_GE(checked, 20u);
}

TEST(TritonCorpus, EveryLaunchSpecHasCodeObjects) {
  auto specs = filesWithExt(kCorpus / "launch", ".yaml");
  EXPECT_GE(specs.size(), 10u);
  for (const auto &spec : specs) {
    bool any = false;
    for (const auto &arch : kAllArchs) any |= fs::exists(kCorpus / arch / (spec.stem().string() + ".hsaco"));
    EXPECT_TRUE(any) << spec;
  }
}

TEST(TritonCorpus, NoBuildMachinePaths) {
  std::vector<fs::path> files;
  for (const auto &dir : {"gfx90a", "gfx942", "gfx950", "launch"})
    for (const auto &ext : {".hsaco", ".json", ".yaml"})
      for (auto &p : filesWithExt(kCorpus / dir, ext)) files.push_back(p);
  if (fs::exists(kCorpus / "manifest.json")) files.push_back(kCorpus / "manifest.json");
  EXPECT_GE(files.size(), 40u);
  for (const auto &p : files) {
    const std::string data = readFile(p);
    for (const auto &leak : kLeaks) EXPECT_EQ(data.find(leak), std::string::npos) << p << " contains " << leak;
  }
}

}  // namespace
