// The code-object model's specification: targets, kernel descriptors, metadata, resources,
// containers, and the refusal of malformed input.
#include <gtest/gtest.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>

#include <cstring>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "support/error.h"
#include "support/file_io.h"

using namespace asmevo;
using namespace asmevo::codeobj;

namespace {

std::vector<uint8_t> fixture(const std::string& arch) {
  return read_file_bytes(std::string(FIXTURE_DIR) + "/fixture_" + arch + ".co");
}

// Expects `fn` to throw asmevo::Error whose text contains `needle`.
template <class F>
void expect_error(F fn, const std::string& needle) {
  try {
    fn();
    FAIL() << "expected an error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(e.format().find(needle), std::string::npos) << e.format();
    EXPECT_EQ(e.exit_code(), kExitBadInput);
  }
}

void put_u64(std::vector<uint8_t>& b, uint64_t v) {
  for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

std::vector<uint8_t> make_bundle(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& entries) {
  std::vector<uint8_t> b;
  const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
  b.insert(b.end(), magic, magic + 24);
  put_u64(b, entries.size());
  uint64_t header = 24 + 8;
  for (const auto& [id, data] : entries) header += 24 + id.size();
  uint64_t off = header;
  for (const auto& [id, data] : entries) {
    put_u64(b, off);
    put_u64(b, data.size());
    put_u64(b, id.size());
    b.insert(b.end(), id.begin(), id.end());
    off += data.size();
  }
  for (const auto& e : entries) b.insert(b.end(), e.second.begin(), e.second.end());
  return b;
}

}  // namespace

TEST(Target, DecodesEflagsOfV4PlusObjects) {
  using namespace llvm::ELF;
  auto t = target_from_eflags(EF_AMDGPU_MACH_AMDGCN_GFX942 | EF_AMDGPU_FEATURE_SRAMECC_ON_V4 | EF_AMDGPU_FEATURE_XNACK_OFF_V4,
                              ELFABIVERSION_AMDGPU_HSA_V5);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->processor, "gfx942");
  EXPECT_EQ(t->arch, Arch::gfx942);
  EXPECT_EQ(t->str(), "gfx942:sramecc+:xnack-");
  EXPECT_EQ(t->full(), "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-");
  EXPECT_EQ(t->mc_features(), "-xnack,+sramecc");

  auto any = target_from_eflags(EF_AMDGPU_MACH_AMDGCN_GFX90A | EF_AMDGPU_FEATURE_XNACK_ANY_V4 | EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                                ELFABIVERSION_AMDGPU_HSA_V4);
  ASSERT_TRUE(any);
  EXPECT_EQ(any->str(), "gfx90a");
  EXPECT_EQ(any->xnack, FeatureSetting::Any);

  auto generic = target_from_eflags(EF_AMDGPU_MACH_AMDGCN_GFX9_4_GENERIC | (1u << EF_AMDGPU_GENERIC_VERSION_OFFSET),
                                    ELFABIVERSION_AMDGPU_HSA_V6);
  ASSERT_TRUE(generic);
  EXPECT_EQ(generic->processor, "gfx9-4-generic");
  EXPECT_EQ(generic->arch, Arch::Other);
  EXPECT_EQ(generic->generic_version, 1u);

  EXPECT_FALSE(target_from_eflags(0x7f, ELFABIVERSION_AMDGPU_HSA_V5));
}

TEST(Target, ParsesTargetIdStrings) {
  auto t = parse_target_id("amdgcn-amd-amdhsa--gfx950:xnack+");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->arch, Arch::gfx950);
  EXPECT_EQ(t->xnack, FeatureSetting::On);
  EXPECT_EQ(t->sramecc, FeatureSetting::Any);
  EXPECT_FALSE(parse_target_id("gfx1100"));
  EXPECT_FALSE(parse_target_id("gfx942:bogus+"));
}

TEST(KernelDescriptor, DecodeEncodeIsIdentityAndFieldsAreAddressable) {
  std::array<uint8_t, 64> raw{};
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>(i * 37 + 11);
  auto kd = KernelDescriptor::decode(raw);
  EXPECT_EQ(kd.encode(), raw);

  KernelDescriptor z;
  z.set("compute_pgm_rsrc2.user_sgpr_count", 6);
  z.set("compute_pgm_rsrc1.granulated_workitem_vgpr_count", 3);
  z.set("compute_pgm_rsrc3.accum_offset", 5);
  z.set("kernarg_preload.length", 2);
  z.set("kernarg_preload.offset", 1);
  EXPECT_EQ(z.user_sgpr_count(), 6u);
  EXPECT_EQ(z.compute_pgm_rsrc2, 6u << 1);
  EXPECT_EQ(z.compute_pgm_rsrc1, 3u);
  EXPECT_EQ(z.compute_pgm_rsrc3, 5u);
  EXPECT_EQ(z.kernarg_preload, 2u | (1u << 7));
  EXPECT_EQ(KernelDescriptor::decode(z.encode()), z);
  expect_error([&] { z.set("compute_pgm_rsrc2.user_sgpr_count", 32); }, "does not fit");
  expect_error([&] { z.get("no.such.field"); }, "unknown kernel-descriptor field");
  EXPECT_TRUE(z.reserved_violations(Arch::gfx942).empty());
  z.reserved1[3] = 1;
  ASSERT_EQ(z.reserved_violations(Arch::gfx942).size(), 1u);
}

TEST(Resources, AllocationAndOccupancyFollowTheGranules) {
  const ArchParams& a = *arch_params(Arch::gfx942);
  KernelDescriptor kd;
  // 7 VGPR blocks of 8 = 64 unified VGPRs; accum_offset 7 -> 32 arch VGPRs, so 32 AGPRs.
  kd.set("compute_pgm_rsrc1.granulated_workitem_vgpr_count", 7);
  kd.set("compute_pgm_rsrc3.accum_offset", 7);
  // SGPR field in units of 8: 4 -> 40 SGPRs, allocated in granules of 16 -> 48.
  kd.set("compute_pgm_rsrc1.granulated_wavefront_sgpr_count", 4);
  kd.group_segment_fixed_size = 16384;
  Resources r = derive_resources(a, kd, nullptr);
  EXPECT_EQ(r.vgprs_allocated, 64u);
  EXPECT_EQ(r.arch_vgprs, 32u);
  EXPECT_EQ(r.agprs, 32u);
  EXPECT_EQ(r.sgprs_allocated, 48u);
  // 512/64 = 8 waves by VGPRs; 800/48 = 16 -> capped at 8; LDS: 65536/16384 = 4 workgroups of
  // 16 waves (1024 lanes) = 64 waves per CU -> 16 per SIMD -> capped at 8.
  EXPECT_EQ(r.occupancy.by_vgprs, 8u);
  EXPECT_EQ(r.occupancy.by_sgprs, 8u);
  EXPECT_EQ(r.occupancy.waves_per_simd, 8u);

  Occupancy heavy = compute_occupancy(a, 256, 48, 0, 256);
  EXPECT_EQ(heavy.by_vgprs, 2u);
  EXPECT_EQ(heavy.waves_per_simd, 2u);
  EXPECT_EQ(heavy.limiter, "vgprs");
  // 40 KiB of LDS per 256-lane workgroup: one workgroup (4 waves) per CU -> 1 wave per SIMD.
  Occupancy lds = compute_occupancy(a, 32, 32, 40 * 1024, 256);
  EXPECT_EQ(lds.by_lds, 1u);
  EXPECT_EQ(lds.limiter, "lds");
  EXPECT_EQ(lds.workgroups_per_cu, 1u);
  // gfx950 has 160 KiB: the same kernel fits 4 workgroups (1280-byte granule).
  Occupancy lds950 = compute_occupancy(*arch_params(Arch::gfx950), 32, 32, 40 * 1024, 256);
  EXPECT_EQ(lds950.workgroups_per_cu, 4u);
}

TEST(Metadata, ParsesV3LayoutAndRejectsMissingKeys) {
  llvm::msgpack::Document doc;
  auto root = doc.getRoot().getMap(true);
  auto ver = doc.getArrayNode();
  ver.push_back(doc.getNode(uint64_t(1)));
  ver.push_back(doc.getNode(uint64_t(0)));
  root["amdhsa.version"] = ver;
  auto kernels = doc.getArrayNode();
  auto k = doc.getMapNode();
  k[".name"] = "axpy";
  k[".symbol"] = "axpy.kd";
  for (const char* key : {".group_segment_fixed_size", ".private_segment_fixed_size"}) k[key] = doc.getNode(uint64_t(0));
  k[".kernarg_segment_size"] = doc.getNode(uint64_t(24));
  k[".kernarg_segment_align"] = doc.getNode(uint64_t(8));
  k[".wavefront_size"] = doc.getNode(uint64_t(64));
  k[".sgpr_count"] = doc.getNode(uint64_t(12));
  k[".vgpr_count"] = doc.getNode(uint64_t(5));
  k[".max_flat_workgroup_size"] = doc.getNode(uint64_t(256));
  auto args = doc.getArrayNode();
  auto a0 = doc.getMapNode();
  a0[".offset"] = doc.getNode(uint64_t(0));
  a0[".size"] = doc.getNode(uint64_t(8));
  a0[".value_kind"] = "global_buffer";
  a0[".address_space"] = "global";
  a0[".name"] = "x";
  args.push_back(a0);
  auto a1 = doc.getMapNode();
  a1[".offset"] = doc.getNode(uint64_t(8));
  a1[".size"] = doc.getNode(uint64_t(8));
  a1[".value_kind"] = "hidden_global_offset_x";
  args.push_back(a1);
  k[".args"] = args;
  kernels.push_back(k);
  root["amdhsa.kernels"] = kernels;
  std::string blob;
  doc.writeToBlob(blob);

  auto md = Metadata::parse(std::vector<uint8_t>(blob.begin(), blob.end()), "test");
  EXPECT_EQ(md.version()[0], 1u);
  EXPECT_EQ(md.version()[1], 0u);
  ASSERT_EQ(md.kernels().size(), 1u);
  const auto& km = md.kernels()[0];
  EXPECT_EQ(km.name, "axpy");
  EXPECT_EQ(km.explicit_arg_count(), 1u);
  EXPECT_TRUE(km.args[1].is_hidden());
  EXPECT_EQ(md.encode(), std::vector<uint8_t>(blob.begin(), blob.end()));
  EXPECT_EQ(md.to_json()["amdhsa.kernels"][0][".name"], "axpy");

  Metadata copy = md;
  copy.set_kernel_uint("axpy", ".vgpr_count", 9);
  EXPECT_EQ(copy.kernels()[0].vgpr_count, 9u);
  EXPECT_EQ(md.kernels()[0].vgpr_count, 5u);
  // A copy of an edited document whose encoding changed length (a count past the positive fixint
  // range takes more bytes) must stand on its own bytes: this used to leave its strings pointing
  // into the original note ("no kernel named axpy" or garbage).
  copy.set_kernel_uint("axpy", ".vgpr_count", 201);
  Metadata again = copy;
  ASSERT_NE(again.kernel("axpy"), nullptr);
  EXPECT_EQ(again.kernels()[0].vgpr_count, 201u);
  again.set_kernel_uint("axpy", ".vgpr_count", 8);
  EXPECT_EQ(Metadata(again).kernels()[0].name, "axpy");
  EXPECT_EQ(again.original_blob(), std::vector<uint8_t>(blob.begin(), blob.end())) << "copies report the note they came from";

  k.getMap().erase(doc.getNode(".vgpr_count"));
  std::string blob2;
  doc.writeToBlob(blob2);
  expect_error([&] { Metadata::parse(std::vector<uint8_t>(blob2.begin(), blob2.end()), "test"); },
               "required key '.vgpr_count' is missing");
  expect_error([&] { Metadata::parse(std::vector<uint8_t>{0xc1, 0x00}, "test"); }, "invalid msgpack");
}

// Found by the fuzzer: LLVM's msgpack Document aborts on non-scalar map keys, so the reader
// must refuse them (and absurd nesting, and truncation) before handing the blob to LLVM.
TEST(Metadata, HostileMsgpackShapesAreRefused) {
  // {[1]: 2}: a map whose key is an array.
  expect_error([&] { Metadata::parse(std::vector<uint8_t>{0x81, 0x91, 0x01, 0x02}, "t"); }, "map key is an array or map");
  // 40 nested arrays.
  std::vector<uint8_t> deep(40, 0x91);
  deep.push_back(0x01);
  expect_error([&] { Metadata::parse(deep, "t"); }, "nests deeper");
  // A map that promises two entries but holds one.
  expect_error([&] { Metadata::parse(std::vector<uint8_t>{0x82, 0xa1, 'a', 0x01}, "t"); }, "truncated");
  // Two top-level objects.
  expect_error([&] { Metadata::parse(std::vector<uint8_t>{0x80, 0x80}, "t"); }, "trailing data");
  // An extension object.
  expect_error([&] { Metadata::parse(std::vector<uint8_t>{0x81, 0xa1, 'a', 0xd4, 0x01, 0x00}, "t"); }, "extension");
}

class FixtureObject : public ::testing::TestWithParam<std::string> {};

TEST_P(FixtureObject, KernelsDescriptorsAndResourcesAreRecovered) {
  const std::string arch = GetParam();
  auto co = CodeObject::parse(fixture(arch), "fixture_" + arch);
  EXPECT_EQ(co.target().processor, arch);
  EXPECT_EQ(co.version(), 5u);
  ASSERT_TRUE(co.metadata());
  EXPECT_EQ(co.metadata()->version()[0], 1u);
  ASSERT_EQ(co.kernels().size(), 2u);
  const Kernel* sum = co.kernel("fixture_block_sum");
  const Kernel* scale = co.kernel("fixture_scale");
  ASSERT_TRUE(sum && scale);
  EXPECT_EQ(sum->kd.group_segment_fixed_size, 1024u);  // 256 floats of __shared__
  EXPECT_EQ(co.kernel_metadata(*sum)->max_flat_workgroup_size, 256u);
  EXPECT_EQ(co.kernel_metadata(*scale)->explicit_arg_count(), 3u);
  EXPECT_EQ(sum->code_address % 256, 0u);
  EXPECT_GT(sum->code_size, 16u);
  ASSERT_TRUE(sum->resources);
  EXPECT_TRUE(sum->resources->inconsistencies.empty()) << sum->resources->inconsistencies[0];
  EXPECT_GE(sum->resources->vgprs_allocated, sum->resources->md_vgpr_count);
  EXPECT_TRUE(sum->kd.reserved_violations(co.target().arch).empty());
  // The noinline helper is a device function, not a kernel.
  bool has_helper = false;
  for (const auto& f : co.device_functions()) has_helper |= f.name.find("scale_of") != std::string::npos;
  EXPECT_TRUE(has_helper);
  // The last instruction of a kernel is s_endpgm (0xBF810000).
  auto code = co.code_bytes(*sum);
  ASSERT_GE(code.size(), 4u);
  uint32_t last;
  std::memcpy(&last, code.data() + code.size() - 4, 4);
  EXPECT_EQ(last, 0xBF810000u);
}

TEST_P(FixtureObject, InPlaceWritesReproduceOrChangeOnlyWhatWasEdited) {
  auto bytes = fixture(GetParam());
  auto co = CodeObject::parse(bytes, "fixture");
  EXPECT_EQ(co.write(), bytes);
  const Kernel& k = *co.kernel("fixture_scale");
  KernelDescriptor kd = k.kd;
  co.write_kernel_descriptor(k.name, kd);
  co.write_metadata(*co.metadata());
  EXPECT_EQ(co.write(), bytes);  // unedited KD and metadata re-encode to the same bytes
  kd.private_segment_fixed_size = 64;
  co.write_kernel_descriptor(k.name, kd);
  auto out = co.write();
  size_t differing = 0;
  for (size_t i = 0; i < out.size(); ++i) differing += out[i] != bytes[i];
  EXPECT_EQ(differing, 1u);
  auto re = CodeObject::parse(out, "edited");
  EXPECT_EQ(re.kernel("fixture_scale")->kd.private_segment_fixed_size, 64u);
}

INSTANTIATE_TEST_SUITE_P(AllArchs, FixtureObject, ::testing::Values("gfx90a", "gfx942", "gfx950"));

TEST(Containers, OffloadBundleEntriesAreExtracted) {
  auto co942 = fixture("gfx942");
  auto co90a = fixture("gfx90a");
  auto bundle = make_bundle({{"host-x86_64-unknown-linux-gnu", {}},
                             {"hipv4-amdgcn-amd-amdhsa--gfx942", co942},
                             {"hipv4-amdgcn-amd-amdhsa--gfx90a", co90a}});
  EXPECT_EQ(detect_container(bundle, "b"), ContainerKind::OffloadBundle);
  auto objs = extract_code_objects(bundle, "b");
  ASSERT_EQ(objs.size(), 2u);
  EXPECT_EQ(objs[0].bundle_id, "hipv4-amdgcn-amd-amdhsa--gfx942");
  EXPECT_EQ(objs[0].bytes, co942);
  EXPECT_EQ(objs[1].bytes, co90a);
}

TEST(Containers, MalformedBundlesAreRefused) {
  auto co = fixture("gfx942");
  auto bundle = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx942", co}});
  auto truncated = bundle;
  truncated.resize(bundle.size() - 100);
  expect_error([&] { extract_code_objects(truncated, "t"); }, "lies outside the bundle");
  auto huge = bundle;
  huge[24] = 0xff;
  huge[31] = 0x7f;  // entry count 0x7f000000000000ff
  expect_error([&] { extract_code_objects(huge, "h"); }, "more than fit");
  auto not_elf = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx942", std::vector<uint8_t>(64, 0x41)}});
  expect_error([&] { extract_code_objects(not_elf, "n"); }, "not an AMDGPU ELF");
  std::vector<uint8_t> ccob = {'C', 'C', 'O', 'B', 1, 0, 0, 0};
  expect_error([&] { extract_code_objects(ccob, "c"); }, "compressed offload bundles");
  expect_error([&] { extract_code_objects(std::vector<uint8_t>{'h', 'i'}, "x"); }, "unrecognized magic");
}

TEST(Malformed, TruncatedAndCorruptObjectsGiveClearErrors) {
  auto good = fixture("gfx942");
  auto truncated = good;
  truncated.resize(good.size() / 2);
  expect_error([&] { CodeObject::parse(truncated, "trunc.co"); }, "trunc.co");

  auto header_only = good;
  header_only.resize(40);
  expect_error([&] { CodeObject::parse(header_only, "hdr.co"); }, "truncated ELF header");

  auto wrong_machine = good;
  wrong_machine[18] = 62;  // EM_X86_64
  wrong_machine[19] = 0;
  expect_error([&] { CodeObject::parse(wrong_machine, "x86.co"); }, "not AMDGPU");

  auto bad_abi = good;
  bad_abi[8] = 9;
  expect_error([&] { CodeObject::parse(bad_abi, "abi.co"); }, "ABI version 9 is unsupported");

  auto bad_mach = good;
  bad_mach[48] = 0x7e;  // e_flags low byte: unknown EF_AMDGPU_MACH
  expect_error([&] { CodeObject::parse(bad_mach, "mach.co"); }, "unknown AMDGPU processor");

  // Corrupt the kernel descriptor's code entry offset.
  auto co = CodeObject::parse(good, "ok");
  const Kernel& k = co.kernels()[0];
  KernelDescriptor kd = k.kd;
  kd.kernel_code_entry_byte_offset += 4;
  co.write_kernel_descriptor(k.name, kd);
  expect_error([&] { CodeObject::parse(co.write(), "kd.co"); }, "not 256-byte aligned");
  kd.kernel_code_entry_byte_offset = 1 << 30;
  co.write_kernel_descriptor(k.name, kd);
  expect_error([&] { CodeObject::parse(co.write(), "kd2.co"); }, "not inside an executable section");

  // Corrupt the metadata note's msgpack.
  auto broken_md = good;
  ElfFile elf = ElfFile::parse(good, "ok");
  const ElfNote* md_note = nullptr;
  for (const auto& n : elf.notes())
    if (n.type == llvm::ELF::NT_AMDGPU_METADATA) md_note = &n;
  ASSERT_TRUE(md_note);
  broken_md[md_note->desc_offset] = 0xc1;  // a reserved msgpack byte
  expect_error([&] { CodeObject::parse(broken_md, "md.co"); }, "metadata");
}

TEST(Malformed, HostElfWithoutFatbinIsRefused) {
  auto host = read_file_bytes("/proc/self/exe");
  EXPECT_EQ(detect_container(host, "self"), ContainerKind::HostElf);
  expect_error([&] { extract_code_objects(host, "self"); }, "no .hip_fatbin section");
}
