#include "codeobj/metadata.h"

#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/BinaryFormat/MsgPackReader.h>

#include <algorithm>
#include <cstdio>

#include "support/error.h"
#include "support/text.h"

namespace asmevo::codeobj {
namespace {

namespace mp = llvm::msgpack;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw Error(what, where, "the AMDGPU metadata note is malformed; rebuild the code object");
}

const mp::DocNode* lookup(mp::MapDocNode& map, const char* key) {
  auto it = map.find(key);
  return it == map.end() ? nullptr : &it->second;
}

uint64_t as_uint(const mp::DocNode& n, const std::string& where, const char* key) {
  if (n.getKind() == mp::Type::UInt) return n.getUInt();
  if (n.getKind() == mp::Type::Int && n.getInt() >= 0) return static_cast<uint64_t>(n.getInt());
  bad(where, std::string("key '") + key + "' must be a non-negative integer");
}

std::string as_string(const mp::DocNode& n, const std::string& where, const char* key) {
  if (n.getKind() != mp::Type::String) bad(where, std::string("key '") + key + "' must be a string");
  return n.getString().str();
}

bool as_bool(const mp::DocNode& n, const std::string& where, const char* key) {
  if (n.getKind() != mp::Type::Boolean) bad(where, std::string("key '") + key + "' must be a boolean");
  return n.getBool();
}

uint64_t req_uint(mp::MapDocNode& m, const char* key, const std::string& where) {
  const auto* n = lookup(m, key);
  if (!n) bad(where, std::string("required key '") + key + "' is missing");
  return as_uint(*n, where, key);
}

std::optional<uint64_t> opt_uint(mp::MapDocNode& m, const char* key, const std::string& where) {
  const auto* n = lookup(m, key);
  if (!n) return std::nullopt;
  return as_uint(*n, where, key);
}

std::string opt_string(mp::MapDocNode& m, const char* key, const std::string& where) {
  const auto* n = lookup(m, key);
  return n ? as_string(*n, where, key) : std::string();
}

bool opt_bool(mp::MapDocNode& m, const char* key, const std::string& where) {
  const auto* n = lookup(m, key);
  return n ? as_bool(*n, where, key) : false;
}

std::optional<std::array<uint64_t, 3>> opt_dim3(mp::MapDocNode& m, const char* key, const std::string& where) {
  auto* n = const_cast<mp::DocNode*>(lookup(m, key));
  if (!n) return std::nullopt;
  if (n->getKind() != mp::Type::Array || n->getArray().size() != 3)
    bad(where, std::string("key '") + key + "' must be an array of 3 integers");
  std::array<uint64_t, 3> out{};
  for (size_t i = 0; i < 3; ++i) out[i] = as_uint(n->getArray()[i], where, key);
  return out;
}

KernelArg parse_arg(mp::DocNode& node, const std::string& where) {
  if (node.getKind() != mp::Type::Map) bad(where, "argument entry is not a map");
  auto& m = node.getMap();
  KernelArg a;
  a.name = opt_string(m, ".name", where);
  a.type_name = opt_string(m, ".type_name", where);
  a.offset = req_uint(m, ".offset", where);
  a.size = req_uint(m, ".size", where);
  const auto* vk = lookup(m, ".value_kind");
  if (!vk) bad(where, "required key '.value_kind' is missing");
  a.value_kind = as_string(*vk, where, ".value_kind");
  a.address_space = opt_string(m, ".address_space", where);
  a.access = opt_string(m, ".access", where);
  a.actual_access = opt_string(m, ".actual_access", where);
  a.pointee_align = opt_uint(m, ".pointee_align", where);
  a.is_const = opt_bool(m, ".is_const", where);
  a.is_restrict = opt_bool(m, ".is_restrict", where);
  a.is_volatile = opt_bool(m, ".is_volatile", where);
  a.is_pipe = opt_bool(m, ".is_pipe", where);
  return a;
}

KernelMetadata parse_kernel(mp::DocNode& node, const std::string& where0) {
  if (node.getKind() != mp::Type::Map) bad(where0, "kernel entry is not a map");
  auto& m = node.getMap();
  KernelMetadata k;
  const auto* name = lookup(m, ".name");
  if (!name) bad(where0, "kernel entry without '.name'");
  k.name = as_string(*name, where0, ".name");
  const std::string where = where0 + ": kernel '" + k.name + "'";
  const auto* sym = lookup(m, ".symbol");
  if (!sym) bad(where, "required key '.symbol' is missing");
  k.symbol = as_string(*sym, where, ".symbol");
  if (auto* args = const_cast<mp::DocNode*>(lookup(m, ".args"))) {
    if (args->getKind() != mp::Type::Array) bad(where, "'.args' is not an array");
    auto& arr = args->getArray();
    for (size_t i = 0; i < arr.size(); ++i) k.args.push_back(parse_arg(arr[i], where + ": arg " + std::to_string(i)));
  }
  k.group_segment_fixed_size = req_uint(m, ".group_segment_fixed_size", where);
  k.private_segment_fixed_size = req_uint(m, ".private_segment_fixed_size", where);
  k.kernarg_segment_size = req_uint(m, ".kernarg_segment_size", where);
  k.kernarg_segment_align = req_uint(m, ".kernarg_segment_align", where);
  k.wavefront_size = req_uint(m, ".wavefront_size", where);
  k.sgpr_count = req_uint(m, ".sgpr_count", where);
  k.vgpr_count = req_uint(m, ".vgpr_count", where);
  k.max_flat_workgroup_size = req_uint(m, ".max_flat_workgroup_size", where);
  k.agpr_count = opt_uint(m, ".agpr_count", where);
  k.sgpr_spill_count = opt_uint(m, ".sgpr_spill_count", where);
  k.vgpr_spill_count = opt_uint(m, ".vgpr_spill_count", where);
  k.uniform_work_group_size = opt_uint(m, ".uniform_work_group_size", where).value_or(0) != 0;
  k.uses_dynamic_stack = opt_bool(m, ".uses_dynamic_stack", where);
  k.reqd_workgroup_size = opt_dim3(m, ".reqd_workgroup_size", where);
  k.workgroup_size_hint = opt_dim3(m, ".workgroup_size_hint", where);
  k.language = opt_string(m, ".language", where);
  // An explicit argument beyond .kernarg_segment_size is an inconsistency, not a reason to refuse the
  // object: the HIP runtime loads such objects (AITer ships some), so it is reported as a warning by
  // derive_resources (codeobj/resources.h) and the emulator's kernarg segment covers every argument.
  for (const auto& a : k.args)
    if (a.offset + a.size < a.offset) bad(where, "argument at offset " + std::to_string(a.offset) + " has an impossible size");
  return k;
}

// LLVM's Document reader aborts (llvm_unreachable) on map keys that are arrays, maps or
// extensions, and our JSON conversion recurses; so the raw msgpack is checked first: a
// single top-level object, scalar map keys, no extension types, nesting at most kMaxDepth.
constexpr size_t kMaxDepth = 32;

void validate_msgpack(llvm::StringRef blob, const std::string& where) {
  mp::Reader reader(blob);
  struct Frame {
    uint64_t remaining;  // items still to read in this container (maps count keys and values)
    bool is_map;
  };
  std::vector<Frame> stack;
  bool done = false;
  while (true) {
    mp::Object obj;
    auto more = reader.read(obj);
    if (!more) bad(where, "invalid msgpack: " + llvm::toString(more.takeError()));
    if (!*more) break;
    if (done) bad(where, "trailing data after the metadata map");
    bool is_key = !stack.empty() && stack.back().is_map && stack.back().remaining % 2 == 0;
    if (!stack.empty()) --stack.back().remaining;
    switch (obj.Kind) {
      case mp::Type::Array:
      case mp::Type::Map:
        if (is_key) bad(where, "a map key is an array or map");
        if (stack.size() >= kMaxDepth) bad(where, "metadata nests deeper than " + std::to_string(kMaxDepth) + " levels");
        stack.push_back({obj.Kind == mp::Type::Map ? uint64_t(obj.Length) * 2 : uint64_t(obj.Length), obj.Kind == mp::Type::Map});
        break;
      case mp::Type::Extension: bad(where, "msgpack extension types are not used by AMDGPU metadata");
      default: break;
    }
    while (!stack.empty() && stack.back().remaining == 0) stack.pop_back();
    if (stack.empty()) done = true;
  }
  if (!done) bad(where, "the metadata msgpack is truncated");
}

nlohmann::json node_to_json(const mp::DocNode& n) {
  switch (n.getKind()) {
    case mp::Type::Nil: return nullptr;
    case mp::Type::Int: return n.getInt();
    case mp::Type::UInt: return n.getUInt();
    case mp::Type::Boolean: return n.getBool();
    case mp::Type::Float: return n.getFloat();
    case mp::Type::String: return sanitize_utf8(n.getString());
    case mp::Type::Binary: {
      std::string hex;
      char buf[3];
      for (char c : n.getBinary().getBuffer()) {
        std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(c));
        hex += buf;
      }
      return hex;
    }
    case mp::Type::Array: {
      auto j = nlohmann::json::array();
      for (auto& e : const_cast<mp::DocNode&>(n).getArray()) j.push_back(node_to_json(e));
      return j;
    }
    case mp::Type::Map: {
      auto j = nlohmann::json::object();
      for (auto& [k, v] : const_cast<mp::DocNode&>(n).getMap()) {
        std::string key = k.getKind() == mp::Type::String ? sanitize_utf8(k.getString()) : node_to_json(k).dump();
        j[key] = node_to_json(v);
      }
      return j;
    }
    default: return nullptr;
  }
}

}  // namespace

size_t KernelMetadata::explicit_arg_count() const {
  size_t n = 0;
  for (const auto& a : args) n += !a.is_hidden();
  return n;
}

uint64_t KernelMetadata::kernarg_extent() const {
  uint64_t end = kernarg_segment_size;
  for (const auto& a : args) end = std::max(end, a.offset + a.size);
  return end;
}

std::vector<std::string> kernarg_layout_warnings(const KernelMetadata& k) {
  std::vector<std::string> out;
  uint64_t first = 0, last = 0;
  size_t count = 0;
  std::string names;
  auto flush = [&] {
    if (!count) return;
    out.push_back(std::to_string(count) + " explicit argument(s) (" + names + ") at kernarg bytes " + std::to_string(first) +
                  ".." + std::to_string(last - 1) + " lie beyond .kernarg_segment_size " +
                  std::to_string(k.kernarg_segment_size) +
                  "; AsmEvo's dispatch writes every listed argument, but a loader "
                  "that copies only .kernarg_segment_size bytes leaves them undefined for a kernel that reads them");
    count = 0, names.clear();
  };
  for (const auto& a : k.args) {
    if (a.is_hidden() || a.offset + a.size <= k.kernarg_segment_size) continue;
    if (!count) first = a.offset;
    last = std::max(last, a.offset + a.size);
    std::string n = a.name.empty() ? "unnamed" : a.name;
    if (names.find(n) == std::string::npos) names += (names.empty() ? "" : ", ") + n;
    ++count;
  }
  flush();
  return out;
}

Metadata::Metadata() : doc_(std::make_unique<mp::Document>()) {}
Metadata::~Metadata() = default;
Metadata::Metadata(Metadata&&) noexcept = default;
Metadata& Metadata::operator=(Metadata&&) noexcept = default;
Metadata::Metadata(const Metadata& o) : Metadata() { *this = o; }
Metadata& Metadata::operator=(const Metadata& o) {
  if (this == &o) return *this;
  // A msgpack Document points into its backing bytes, so copies go through the encoding; the copy
  // reports its original's note bytes as original_blob() (its document lives in its own backing_).
  Metadata fresh = parse(o.encode(), "metadata copy");
  fresh.blob_ = o.blob_;
  *this = std::move(fresh);
  return *this;
}

Metadata Metadata::parse(std::span<const uint8_t> blob, const std::string& where) {
  Metadata md;
  md.blob_.assign(blob.begin(), blob.end());
  md.backing_ = md.blob_;
  llvm::StringRef ref(reinterpret_cast<const char*>(md.backing_.data()), md.backing_.size());
  validate_msgpack(ref, where);
  // Strings in the Document point into backing_, which md owns and never changes afterwards (a
  // moved vector keeps its buffer).
  if (!md.doc_->readFromBlob(ref, /*Multi=*/false))
    bad(where, "the metadata note is not valid msgpack");
  md.refresh(where);
  return md;
}

void Metadata::refresh(const std::string& where) {
  auto& root = doc_->getRoot();
  if (root.getKind() != mp::Type::Map) bad(where, "metadata root is not a map");
  auto& m = root.getMap();
  auto* ver = const_cast<mp::DocNode*>(lookup(m, "amdhsa.version"));
  if (!ver) bad(where, "required key 'amdhsa.version' is missing");
  if (ver->getKind() != mp::Type::Array || ver->getArray().size() != 2)
    bad(where, "'amdhsa.version' must be [major, minor]");
  version_ = {as_uint(ver->getArray()[0], where, "amdhsa.version"), as_uint(ver->getArray()[1], where, "amdhsa.version")};
  target_ = opt_string(m, "amdhsa.target", where);
  kernels_.clear();
  if (auto* ks = const_cast<mp::DocNode*>(lookup(m, "amdhsa.kernels"))) {
    if (ks->getKind() != mp::Type::Array) bad(where, "'amdhsa.kernels' is not an array");
    auto& arr = ks->getArray();
    for (size_t i = 0; i < arr.size(); ++i) kernels_.push_back(parse_kernel(arr[i], where + ": kernel " + std::to_string(i)));
  }
}

const KernelMetadata* Metadata::kernel(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name || k.symbol == name) return &k;
  return nullptr;
}

void Metadata::set_kernel_uint(const std::string& kernel_name, const std::string& key, uint64_t value) {
  auto& arr = doc_->getRoot().getMap()["amdhsa.kernels"].getArray();
  for (auto& node : arr) {
    auto& m = node.getMap();
    if (m[".name"].getString() == kernel_name) {
      m[doc_->getNode(key, /*Copy=*/true)] = doc_->getNode(value);
      refresh("metadata");
      return;
    }
  }
  throw Error("no kernel named '" + kernel_name + "' in the metadata");
}

std::vector<uint8_t> Metadata::encode() const {
  std::string out;
  doc_->writeToBlob(out);
  return std::vector<uint8_t>(out.begin(), out.end());
}

nlohmann::json Metadata::to_json() const { return node_to_json(doc_->getRoot()); }

}  // namespace asmevo::codeobj
