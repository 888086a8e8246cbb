#include "verify/spec_draft.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "support/error.h"

namespace asmevo::verify {
namespace {

using codeobj::KernelArg;
using codeobj::KernelMetadata;

// ---- YAML text -------------------------------------------------------------------------------

// Names go into flow mappings ({name: x, ...}), so anything beyond identifier characters, and
// words YAML reads as booleans or null, is double-quoted.
std::string yaml_scalar(const std::string& s) {
  static const std::set<std::string> reserved{"null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"};
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  bool plain = !s.empty() && !reserved.count(lower) && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') &&
               std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '$'; });
  if (plain) return s;
  std::string q = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') q += '\\', q += static_cast<char>(c);
    else if (c < 0x20) q += fmt::format("\\x{:02x}", c);
    else q += static_cast<char>(c);
  }
  return q + "\"";
}

// Metadata strings end up in comments: one line each.
std::string one_line(std::string s) {
  std::replace_if(s.begin(), s.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return s;
}

// ---- Element types from .type_name -----------------------------------------------------------

struct ScalarType {
  const char* dtype;  // launch spec name
  unsigned size;      // bytes
};

// C, C++, HIP and OpenCL spellings of the scalar types the launch spec has, after qualifiers and
// "std::" are removed. On AMDGPU `long` is 64 bits and plain `char` is signed.
const std::map<std::string, ScalarType>& scalar_types() {
  static const std::map<std::string, ScalarType> m{
      {"float", {"f32", 4}}, {"double", {"f64", 8}},
      {"half", {"f16", 2}}, {"_Float16", {"f16", 2}}, {"__half", {"f16", 2}}, {"__fp16", {"f16", 2}},
      {"__hip_bfloat16", {"bf16", 2}}, {"hip_bfloat16", {"bf16", 2}}, {"__bf16", {"bf16", 2}},
      {"bfloat16", {"bf16", 2}}, {"bfloat16_t", {"bf16", 2}},
      {"int", {"i32", 4}}, {"signed int", {"i32", 4}}, {"signed", {"i32", 4}}, {"int32_t", {"i32", 4}},
      {"unsigned int", {"u32", 4}}, {"unsigned", {"u32", 4}}, {"uint", {"u32", 4}}, {"uint32_t", {"u32", 4}},
      {"long", {"i64", 8}}, {"long int", {"i64", 8}}, {"signed long", {"i64", 8}}, {"long long", {"i64", 8}},
      {"long long int", {"i64", 8}}, {"int64_t", {"i64", 8}}, {"ptrdiff_t", {"i64", 8}}, {"intptr_t", {"i64", 8}},
      {"ssize_t", {"i64", 8}},
      {"unsigned long", {"u64", 8}}, {"unsigned long int", {"u64", 8}}, {"ulong", {"u64", 8}},
      {"unsigned long long", {"u64", 8}}, {"unsigned long long int", {"u64", 8}}, {"uint64_t", {"u64", 8}},
      {"size_t", {"u64", 8}}, {"uintptr_t", {"u64", 8}},
      {"short", {"i16", 2}}, {"short int", {"i16", 2}}, {"signed short", {"i16", 2}}, {"int16_t", {"i16", 2}},
      {"unsigned short", {"u16", 2}}, {"unsigned short int", {"u16", 2}}, {"ushort", {"u16", 2}}, {"uint16_t", {"u16", 2}},
      {"char", {"i8", 1}}, {"signed char", {"i8", 1}}, {"int8_t", {"i8", 1}},
      {"unsigned char", {"u8", 1}}, {"uchar", {"u8", 1}}, {"uint8_t", {"u8", 1}}, {"bool", {"u8", 1}}, {"_Bool", {"u8", 1}},
      {"__hip_fp8_e4m3_fnuz", {"fp8e4m3fnuz", 1}}, {"__hip_fp8_e5m2_fnuz", {"fp8e5m2fnuz", 1}},
      {"__hip_fp8_e4m3", {"fp8e4m3fn", 1}}, {"__hip_fp8_e5m2", {"fp8e5m2", 1}},
  };
  return m;
}

// The launch spec's value types (a subset of the buffer types: no fp8).
bool is_value_type(const std::string& dtype) { return dtype.rfind("fp8", 0) != 0; }

struct ParsedTypeName {
  std::string base;        // "unsigned int", "float4", ...
  unsigned pointer_depth = 0;
};

ParsedTypeName parse_type_name(const std::string& type_name) {
  static const std::set<std::string> qualifiers{"const", "volatile", "restrict", "__restrict", "__restrict__", "struct"};
  ParsedTypeName t;
  std::string word;
  std::vector<std::string> words;
  auto flush = [&] {
    if (word.rfind("std::", 0) == 0) word = word.substr(5);
    if (!word.empty() && !qualifiers.count(word)) words.push_back(word);
    word.clear();
  };
  for (char c : type_name) {
    if (c == '*') flush(), ++t.pointer_depth;
    else if (std::isspace(static_cast<unsigned char>(c))) flush();
    else word += c;
  }
  flush();
  for (const auto& w : words) t.base += (t.base.empty() ? "" : " ") + w;
  return t;
}

// The element type of a scalar or of an OpenCL/HIP vector type ("float4": f32, 4 lanes).
struct ElementType {
  ScalarType scalar;
  unsigned lanes = 1;
};

std::optional<ElementType> element_type(const std::string& base) {
  const auto& m = scalar_types();
  if (auto it = m.find(base); it != m.end()) return ElementType{it->second, 1};
  // Vector types: OpenCL's "float4" / "uchar16" and HIP's typedefs of the same names.
  for (unsigned lanes : {16u, 8u, 4u, 3u, 2u}) {
    std::string suffix = std::to_string(lanes);
    if (base.size() > suffix.size() && base.compare(base.size() - suffix.size(), suffix.size(), suffix) == 0) {
      std::string scalar = base.substr(0, base.size() - suffix.size());
      static const std::set<std::string> vector_scalars{"char", "uchar", "short", "ushort", "int", "uint",
                                                        "long", "ulong", "half", "float", "double"};
      if (vector_scalars.count(scalar)) return ElementType{m.at(scalar), lanes};
    }
  }
  return std::nullopt;
}

bool is_float_dtype(const std::string& dtype) { return dtype[0] == 'f' || dtype[0] == 'b'; }

std::string init_for(const std::string& dtype, const std::string& base_type) {
  if (base_type == "bool" || base_type == "_Bool") return "{ints: [0, 1]}";
  return is_float_dtype(dtype) ? "{normal: [0, 1]}" : "{ints: [0, 100]}";
}

// ---- Buffer direction --------------------------------------------------------------------------

enum class Direction { Input, Output, InOut, Unknown };

struct DirectionFinding {
  Direction direction = Direction::Unknown;
  std::string reason;  // the metadata fact it comes from
};

// .actual_access is what the compiler proved about the code (LLVM emits it for noalias pointers
// only, e.g. `const T* __restrict__`); .access, .is_const and the constant address space are what
// the source declared.
DirectionFinding buffer_direction(const KernelArg& a) {
  if (a.actual_access == "read_only") return {Direction::Input, ".actual_access: read_only"};
  if (a.actual_access == "write_only") return {Direction::Output, ".actual_access: write_only"};
  if (a.actual_access == "read_write") return {Direction::InOut, ".actual_access: read_write"};
  if (a.access == "read_only") return {Direction::Input, ".access: read_only"};
  if (a.access == "write_only") return {Direction::Output, ".access: write_only"};
  if (a.is_const) return {Direction::Input, ".is_const: true"};
  if (a.address_space == "constant") return {Direction::Input, ".address_space: constant"};
  return {};
}

// ---- Dynamic LDS -------------------------------------------------------------------------------

// Code object v5+ implicit arguments start at the explicit ones' end rounded up to 8 bytes, and
// hidden_dynamic_lds_size sits 120 bytes in (AMDGPUUsage, "Code Object V5 Metadata").
constexpr uint64_t kDynamicLdsSizeSlotEnd = 124;

struct DynamicLdsFinding {
  enum { Used, NotUsed, Unknown } state = Unknown;
  std::string reason;
};

DynamicLdsFinding dynamic_lds_finding(const KernelFacts& f) {
  const KernelMetadata& md = f.metadata;
  uint64_t explicit_end = 0;
  bool any_hidden = false;
  for (const auto& a : md.args) {
    if (a.value_kind == "dynamic_shared_pointer")
      return {DynamicLdsFinding::Used, "the kernel has a dynamic_shared_pointer argument"};
    if (a.value_kind == "hidden_dynamic_lds_size")
      return {DynamicLdsFinding::Used, "the metadata lists hidden_dynamic_lds_size, which LLVM emits only for kernels using dynamic LDS"};
    if (a.is_hidden()) any_hidden = true;
    else explicit_end = std::max(explicit_end, a.offset + a.size);
  }
  uint64_t implicit_start = (explicit_end + 7) / 8 * 8;
  if (f.code_object_version >= 5 && any_hidden && md.kernarg_segment_size >= implicit_start + kDynamicLdsSizeSlotEnd)
    return {DynamicLdsFinding::NotUsed, "code object v5+ with implicit arguments but no hidden_dynamic_lds_size: no dynamic LDS"};
  if (f.code_object_version < 5)
    return {DynamicLdsFinding::Unknown, fmt::format("code object v{} metadata has no hidden_dynamic_lds_size, so it cannot say "
                                                    "whether the kernel uses dynamic LDS (extern __shared__)", f.code_object_version)};
  return {DynamicLdsFinding::Unknown, "the kernel has no implicit arguments, so the metadata cannot say whether it uses dynamic "
                                      "LDS; Triton kernels do (pass Triton's `shared` from its compile metadata)"};
}

// ---- One argument ------------------------------------------------------------------------------

std::string describe_arg(const KernelArg& a, size_t index) {
  std::string s = fmt::format("arg {}: offset {}, size {}, {}", index, a.offset, a.size, a.value_kind);
  if (!a.address_space.empty()) s += ", address space " + a.address_space;
  s += a.type_name.empty() ? ", no .type_name" : ", .type_name '" + one_line(a.type_name) + "'";
  if (a.name.empty()) s += ", no .name";
  if (!a.access.empty()) s += ", .access " + a.access;
  if (!a.actual_access.empty()) s += ", .actual_access " + a.actual_access;
  if (a.is_const) s += ", const";
  if (a.is_restrict) s += ", restrict";
  if (a.is_volatile) s += ", volatile";
  if (a.pointee_align) s += fmt::format(", pointee align {}", *a.pointee_align);
  return s;
}

struct ArgDraft {
  std::vector<std::string> notes;  // comment lines before the entry
  std::string entry;               // the YAML flow mapping
};

ArgDraft draft_buffer(const KernelArg& a, const std::string& name) {
  ArgDraft d;
  ParsedTypeName t = parse_type_name(a.type_name);
  std::optional<ElementType> elem;
  if (t.pointer_depth == 1) elem = element_type(t.base);
  std::string dtype = kFill;
  if (elem) {
    dtype = elem->scalar.dtype;
    if (elem->lanes > 1)
      d.notes.push_back(fmt::format("elements are {} ({} x {}): count counts {} elements, {} per {}", t.base, elem->lanes,
                                    dtype, dtype, elem->lanes, t.base));
  } else if (a.type_name.empty()) {
    d.notes.push_back("element type unknown: the metadata has no .type_name");
  } else {
    d.notes.push_back("element type unknown ('" + one_line(a.type_name) + "' is not a pointer to a type the launch spec has)");
  }
  DirectionFinding dir = buffer_direction(a);
  std::string init = elem ? init_for(dtype, t.base) : "{normal: [0, 1]}";
  std::string head = fmt::format("{{name: {}, buffer: {}, count: {}", name, dtype, kFill);
  switch (dir.direction) {
    case Direction::Input:
      d.notes.push_back("input (" + dir.reason + "): must stay unchanged");
      d.entry = fmt::format("{}, init: {}}}", head, init);
      break;
    case Direction::Output:
      d.notes.push_back("output (" + dir.reason + "): poisoned before the run, compared after; compare exact can be relaxed "
                        "to {ulp: N} or {rtol: r, atol: a} for floats");
      d.entry = head + ", output: true, compare: exact}";
      break;
    case Direction::InOut:
      d.notes.push_back("inout (" + dir.reason + "): initialised, compared after");
      d.entry = fmt::format("{}, inout: true, init: {}, compare: exact}}", head, init);
      break;
    case Direction::Unknown:
      d.notes.push_back("direction unknown from metadata: add output: true or inout: true if the kernel writes it");
      if (!elem) d.notes.push_back("for an integer type (indices, counts) use init: {ints: [lo, hi]}");
      d.entry = fmt::format("{}, init: {}}}", head, init);
      break;
  }
  return d;
}

ArgDraft draft_value(const KernelArg& a, const std::string& name) {
  ArgDraft d;
  ParsedTypeName t = parse_type_name(a.type_name);
  std::optional<ElementType> elem;
  if (t.pointer_depth == 0 && !a.type_name.empty()) elem = element_type(t.base);
  if (elem && elem->lanes == 1 && elem->scalar.size == a.size && is_value_type(elem->scalar.dtype)) {
    d.entry = fmt::format("{{name: {}, value: {}, type: {}}}", name, kFill, elem->scalar.dtype);
    return d;
  }
  if (!a.type_name.empty() && !elem) {
    d.notes.push_back("'" + one_line(a.type_name) + "' is a struct or a type the launch spec does not support: value "
                      "arguments must be one scalar (i8..u64, f16, bf16, f32, f64)");
    d.entry = fmt::format("{{name: {}, value: {}, type: {}}}", name, kFill, kFill);
    return d;
  }
  static const std::map<uint64_t, const char*> by_size{{1, "i8"}, {2, "i16"}, {4, "i32"}, {8, "i64"}};
  auto it = by_size.find(a.size);
  if (it == by_size.end() || (elem && elem->lanes > 1)) {
    d.notes.push_back(fmt::format("{} bytes by value: a struct or vector, which the launch spec does not support (value "
                                  "arguments are one scalar of 1, 2, 4 or 8 bytes; padding is {{value: 0, type: pad}})", a.size));
    d.entry = fmt::format("{{name: {}, value: {}, type: {}}}", name, kFill, kFill);
    return d;
  }
  if (elem)  // the type name contradicts the size the kernel reads: trust the size
    d.notes.push_back(fmt::format("'{}' has {} bytes but the argument {}: type guessed from the size",
                                  one_line(a.type_name), elem->scalar.size, a.size));
  else
    d.notes.push_back(fmt::format("type guessed from the size ({} bytes); could also be {}", a.size,
                                  a.size == 4 ? "u32 or f32" : a.size == 8 ? "u64, f64 or a pointer passed by value"
                                             : a.size == 2 ? "u16, f16 or bf16" : "u8 or bool"));
  d.entry = fmt::format("{{name: {}, value: {}, type: {}}}", name, kFill, it->second);
  return d;
}

ArgDraft draft_arg(const KernelArg& a, const std::string& name) {
  if (a.value_kind == "global_buffer") return draft_buffer(a, name);
  if (a.value_kind == "by_value") return draft_value(a, name);
  ArgDraft d;
  if (a.value_kind == "dynamic_shared_pointer")
    d.notes.push_back("an LDS pointer (OpenCL `local`): the launch spec cannot allocate LDS per argument, so a kernel "
                      "with one cannot be launched by AsmEvo yet");
  else
    d.notes.push_back("value_kind " + a.value_kind + " is not supported by the launch spec");
  d.entry = fmt::format("{{name: {}, pointer: {}}}", name, kFill);
  return d;
}

// Triton 3.x appends two pointers to every kernel (global scratch, profile scratch) and emits no
// .language, names or type names; a spec usually passes them as null.
bool looks_like_triton_scratch(const KernelMetadata& md, const std::vector<const KernelArg*>& explicit_args, size_t i) {
  if (!md.language.empty() || explicit_args.size() < 2 || i + 2 < explicit_args.size()) return false;
  for (size_t j = explicit_args.size() - 2; j < explicit_args.size(); ++j)
    if (explicit_args[j]->value_kind != "global_buffer" || !explicit_args[j]->name.empty() || !explicit_args[j]->type_name.empty())
      return false;
  return true;
}

std::string dims(const std::array<uint64_t, 3>& d) { return fmt::format("[{}, {}, {}]", d[0], d[1], d[2]); }

}  // namespace

std::string draft_launch_spec(const KernelFacts& f) {
  const KernelMetadata& md = f.metadata;
  std::vector<const KernelArg*> explicit_args, hidden_args;
  for (const auto& a : md.args) (a.is_hidden() ? hidden_args : explicit_args).push_back(&a);

  std::ostringstream o;
  o << "# DRAFT launch spec for kernel " << one_line(md.name) << ", written by `asmevo spec` from the metadata of\n"
    << "#   " << one_line(f.origin) << " (" << f.target << ", code object v" << f.code_object_version << ").\n"
    << "# Replace every FILL: the launch spec parser rejects a spec that still holds one. Check the\n"
    << "# element types, counts and directions below against the kernel's source.\n"
    << "#   buffer types: f32 f16 bf16 f64 i8 u8 i16 u16 i32 u32 i64 u64 fp8e4m3fnuz fp8e5m2fnuz fp8e4m3fn fp8e5m2;\n"
    << "#   value types: the same without fp8; count: elements of the buffer the launch touches.\n"
    << "# Known from the code object:\n"
    << fmt::format("#   kernarg segment {} bytes (align {}), {} explicit and {} hidden arguments\n", md.kernarg_segment_size,
                   md.kernarg_segment_align, explicit_args.size(), hidden_args.size())
    << fmt::format("#   static LDS (KD group_segment_fixed_size) {} bytes; private segment {} bytes per work-item\n",
                   f.static_lds_bytes, f.private_segment_bytes)
    << fmt::format("#   wavefront size {}; max_flat_workgroup_size {}; reqd_workgroup_size {}\n", md.wavefront_size,
                   md.max_flat_workgroup_size, md.reqd_workgroup_size ? dims(*md.reqd_workgroup_size) : "none")
    << "#   language " << (md.language.empty() ? "not recorded" : one_line(md.language)) << "\n";

  // A key with its trailing comment, the comments aligned in one column.
  auto keyed = [&o](const std::string& key_value, const std::string& comment) {
    o << key_value << std::string(key_value.size() < 27 ? 27 - key_value.size() : 1, ' ') << "# " << comment << "\n";
  };
  o << "kernel: " << yaml_scalar(md.name) << "\n";
  keyed(fmt::format("grid: [{}, 1, 1]", kFill), "workgroups in x, y, z: from the problem size (y, z: 1 unless the kernel uses them)");
  if (md.reqd_workgroup_size) {
    keyed("block: " + dims(*md.reqd_workgroup_size), "the kernel's reqd_workgroup_size");
  } else {
    // Absent max_flat_workgroup_size means the default limit of 1024.
    uint64_t limit = md.max_flat_workgroup_size ? md.max_flat_workgroup_size : 1024;
    keyed(fmt::format("block: [{}, 1, 1]", std::min<uint64_t>(256, limit)),
          fmt::format("work-items per workgroup: min(256, max_flat_workgroup_size {}); use what the host launches with", limit));
  }
  DynamicLdsFinding lds = dynamic_lds_finding(f);
  if (lds.state == DynamicLdsFinding::NotUsed) {
    keyed("dynamic_lds: 0", lds.reason);
  } else {
    o << "# dynamic LDS: " << lds.reason << ".\n";
    keyed(fmt::format("dynamic_lds: {}", kFill), "bytes of dynamic LDS the launch passes (0 if none)");
  }
  o << "seed: 1\n";
  keyed("inputs: 3", "random input sets");
  keyed("special: true", "also input sets with edge values (+-0, +-Inf, NaN, denormals, extremes)");

  o << "args:\n";
  if (explicit_args.empty()) o << "  []\n";
  for (size_t i = 0; i < explicit_args.size(); ++i) {
    const KernelArg& a = *explicit_args[i];
    std::string name = yaml_scalar(a.name.empty() ? "arg" + std::to_string(i) : a.name);
    ArgDraft d = draft_arg(a, name);
    if (looks_like_triton_scratch(md, explicit_args, i))
      d.notes.push_back("probably one of the two scratch pointers Triton appends (global, profile): then {name: " + name +
                        ", pointer: null}");
    o << "  # " << describe_arg(a, i) << "\n";
    for (const auto& n : d.notes) o << "  #   " << n << "\n";
    o << "  - " << d.entry << "\n";
  }
  if (!hidden_args.empty()) {
    o << "# hidden arguments (filled by AsmEvo), not listed in args:\n";
    for (const KernelArg* a : hidden_args)
      o << fmt::format("#   offset {}, size {}: {}\n", a->offset, a->size, a->value_kind);
  }
  return o.str();
}

SpecDraft draft_launch_spec_for_file(std::span<const uint8_t> file_bytes, const std::string& file_name,
                                     const std::string& kernel) {
  auto embedded = codeobj::extract_code_objects(file_bytes, file_name);
  std::vector<codeobj::CodeObject> objects;
  for (auto& e : embedded) objects.push_back(codeobj::CodeObject::parse(std::move(e.bytes), e.origin));

  std::vector<std::string> names;  // distinct kernel names, in file order
  for (const auto& co : objects)
    for (const auto& k : co.kernels())
      if (std::find(names.begin(), names.end(), k.name) == names.end()) names.push_back(k.name);
  std::string listing;
  for (const auto& n : names) listing += (listing.empty() ? "" : ", ") + n;

  if (names.empty()) throw Error("the file holds no kernels", file_name, "give a code object with at least one kernel");
  std::string wanted = kernel;
  if (wanted.empty()) {
    if (names.size() > 1)
      throw Error(fmt::format("the file holds {} kernels; say which one to draft a spec for", names.size()), file_name,
                  "pass --kernel NAME with one of: " + listing);
    wanted = names.front();
  }
  for (const auto& co : objects) {
    const codeobj::Kernel* k = co.kernel(wanted);
    if (!k) continue;
    const KernelMetadata* md = co.kernel_metadata(*k);
    if (!md)
      throw Error("kernel '" + wanted + "' has no entry in the code object's metadata, so its arguments are unknown",
                  co.elf().name(), "a spec can only be drafted from a code object with AMDGPU metadata (code object v3+)");
    KernelFacts facts;
    facts.metadata = *md;
    facts.static_lds_bytes = k->kd.group_segment_fixed_size;
    facts.private_segment_bytes = k->kd.private_segment_fixed_size;
    facts.code_object_version = co.version();
    facts.target = co.target().full();
    facts.origin = co.elf().name();
    return {wanted, facts.origin, draft_launch_spec(facts)};
  }
  throw Error("no kernel named '" + wanted + "'", file_name, "pass --kernel NAME with one of: " + listing);
}

}  // namespace asmevo::verify
