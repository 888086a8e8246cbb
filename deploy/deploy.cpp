#include "deploy/deploy.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>

#include "codeobj/code_object.h"
#include "rebuild/abi_diff.h"
#include "search/store.h"
#include "support/content_hash.h"
#include "support/error.h"
#include "support/file_io.h"

namespace fs = std::filesystem;

namespace asmevo::deploy {
namespace {

struct Optimized {
  std::vector<uint8_t> code;
  std::string kernel;
  double speedup = 0;
};

// The store's final, re-verified candidates by the content hash of the object they replace.
std::map<std::string, std::vector<Optimized>> optimized_objects(const std::string& path) {
  search::Store store(path, search::Store::Access::kReadOnly);
  std::map<std::string, std::vector<Optimized>> out;
  for (const auto& k : store.kernels()) {
    auto f = store.final_result(k.id);
    if (!f || !f->candidate || f->verdict != "EQUIVALENT") continue;
    for (auto& a : store.accepted(k.id))
      if (a.candidate == *f->candidate) out[k.k0_sha].push_back({std::move(a.code), k.kernel, f->speedup});
  }
  return out;
}

void require_new_output(const std::string& out) {
  if (fs::exists(out) && !fs::is_empty(out))
    throw Error("output folder " + out + " exists and is not empty", "-o", "choose a new folder: deploy never overwrites");
}

// The replacement for `bytes`, checked; empty with `note` set when there is none or it is refused.
std::vector<uint8_t> replacement(const std::map<std::string, std::vector<Optimized>>& opt, const std::vector<uint8_t>& bytes,
                                 const std::string& where, Deployed& d, bool aiter) {
  d.hash = content_hash(bytes);
  auto it = opt.find(d.hash);
  if (it == opt.end()) return d.note = "no optimized counterpart in the store", std::vector<uint8_t>{};
  if (it->second.size() > 1)
    return d.note = fmt::format("{} kernels of this object were optimized separately; chain the optimize runs (one's output is the "
                                "next one's input) and deploy the last", it->second.size()),
           std::vector<uint8_t>{};
  const Optimized& o = it->second.front();
  d.kernel = o.kernel;
  d.speedup = o.speedup;
  auto a = codeobj::CodeObject::parse(bytes, where);
  auto b = codeobj::CodeObject::parse(o.code, "optimized " + o.kernel);
  auto diff = rebuild::abi_diff(a, b);
  if (!diff.compatible()) return d.note = "refused: " + diff.to_text(where, "optimized"), std::vector<uint8_t>{};
  if (aiter) {
    if (a.target().str() != b.target().str() || a.elf().flags() != b.elf().flags())
      return d.note = "refused: target ID changed (" + a.target().str() + " -> " + b.target().str() + ")", std::vector<uint8_t>{};
    for (const auto& k : a.kernels()) {
      const codeobj::Kernel* kb = b.kernel(k.name);
      for (const char* field : {"compute_pgm_rsrc1.enable_ieee_mode", "compute_pgm_rsrc1.enable_dx10_clamp"})
        if (!kb || kb->kd.get(field) != k.kd.get(field))
          return d.note = fmt::format("refused: kernel {} changes {}", k.name, field), std::vector<uint8_t>{};
    }
  }
  return o.code;
}

}  // namespace

DeployResult deploy_triton(const std::string& dir, const std::string& store, const std::string& out) {
  if (!fs::is_directory(dir)) throw Error("no folder " + dir, "deploy triton", "give a Triton cache or dump folder");
  auto opt = optimized_objects(store);
  require_new_output(out);
  DeployResult r;
  // A cache entry holds <name>.json beside <name>.hsaco; a dump entry holds IR files instead.
  bool cache = false, dump = false;
  std::vector<fs::path> hsacos;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".hsaco") {
      hsacos.push_back(e.path());
      (fs::exists(fs::path(e.path()).replace_extension(".json")) ? cache : dump) = true;
    }
  if (cache && dump) throw Error("the folder mixes a Triton cache and a dump", dir, "deploy one of them at a time");
  if (hsacos.empty()) throw Error("no .hsaco files under " + dir, dir, "point at TRITON_CACHE_DIR or TRITON_DUMP_DIR");
  r.layout = cache ? "cache" : "override";
  if (cache) fs::copy(dir, out, fs::copy_options::recursive);
  for (const auto& p : hsacos) {
    Deployed d;
    d.source = p.string();
    auto bytes = read_file_bytes(p.string());
    auto code = replacement(opt, bytes, p.string(), d, false);
    if (!code.empty()) {
      fs::path rel = fs::relative(p, dir);
      fs::path dst = fs::path(out) / rel;
      fs::create_directories(dst.parent_path());
      write_file_atomic(dst.string(), code);
      d.written = dst.string();
    }
    r.items.push_back(std::move(d));
  }
  r.environment = cache ? "TRITON_CACHE_DIR=" + out + "  (a copy of the cache with the optimized .hsaco files in place)"
                        : "TRITON_KERNEL_OVERRIDE=1 TRITON_OVERRIDE_DIR=" + out;
  return r;
}

DeployResult deploy_aiter(const std::string& hsa_dir, const std::string& store, const std::string& out) {
  if (!fs::is_directory(hsa_dir)) throw Error("no folder " + hsa_dir, "deploy aiter", "give AITer's hsa/ folder (aiter/hsa)");
  auto opt = optimized_objects(store);
  require_new_output(out);
  fs::copy(hsa_dir, out, fs::copy_options::recursive);
  DeployResult r;
  r.layout = "aiter";
  for (const auto& e : fs::recursive_directory_iterator(hsa_dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".co") continue;
    Deployed d;
    d.source = e.path().string();
    auto code = replacement(opt, read_file_bytes(d.source), d.source, d, true);
    if (!code.empty()) {
      fs::path dst = fs::path(out) / fs::relative(e.path(), hsa_dir);
      write_file_atomic(dst.string(), code);
      d.written = dst.string();
    }
    r.items.push_back(std::move(d));
  }
  r.environment = "AITER_ASM_DIR=" + out + "/  (set it after `import aiter`, which resets it; before the first kernel loads: modules are cached per process)";
  return r;
}

std::string DeployResult::text() const {
  std::string t;
  size_t n = 0;
  for (const auto& d : items) {
    if (!d.written.empty()) {
      ++n;
      t += fmt::format("deployed  {} -> {}  ({}, {:.3f}x MODELED)\n", d.source, d.written, d.kernel, d.speedup);
    } else {
      t += fmt::format("kept      {}: {}\n", d.source, d.note);
    }
  }
  t += fmt::format("{} of {} code objects replaced ({} layout). Use: {}\n", n, items.size(), layout, environment);
  return t;
}

}  // namespace asmevo::deploy
