#include "emu/dispatch.h"

#include <algorithm>
#include <cstring>
#include <fmt/format.h>

#include "emu/program.h"
#include "emu/wave.h"
#include "support/error.h"

namespace asmevo::emu {
namespace {

// Buffers larger than this are filled on first touch (when their contents fill by chunk); smaller
// ones at once, as the per-access page check would cost more than it saves.
constexpr uint64_t kLazyFillBytes = 1 << 20;

void put(std::vector<uint8_t>& b, uint64_t off, uint64_t v, uint64_t size) {
  for (uint64_t i = 0; i < size && off + i < b.size(); ++i) b[off + i] = static_cast<uint8_t>(v >> (8 * i));
}

}  // namespace

std::array<uint32_t, 3> Launch::group_size(const std::array<uint32_t, 3>& wg) const {
  std::array<uint32_t, 3> s;
  for (int d = 0; d < 3; ++d) s[d] = std::min(block[d], grid_items[d] - wg[d] * block[d]);
  return s;
}

namespace {

// The buffer's region as it is (lazily filled parts not made).
std::span<uint8_t> region_as_is(const DeviceMemory& mem, const BufferArg& b) {
  if (b.bytes == 0 && b.guard == 0) return {};  // an empty region: nothing to find
  const DeviceMemory::Region* r = mem.find(b.address - b.guard);
  if (!r) throw Error("buffer " + b.label() + " is not mapped", {}, {}, kExitInternal);
  return {r->host, b.bytes + 2 * b.guard};
}

}  // namespace

std::span<uint8_t> Launch::guarded_region(const BufferArg& b) const {
  mem.materialize(b.address, b.bytes);
  return region_as_is(mem, b);
}
std::span<uint8_t> Launch::contents(const BufferArg& b) const { return guarded_region(b).subspan(b.guard, b.bytes); }
std::span<uint8_t> Launch::guard_before(const BufferArg& b) const { return region_as_is(mem, b).subspan(0, b.guard); }
std::span<uint8_t> Launch::guard_after(const BufferArg& b) const { return region_as_is(mem, b).subspan(b.guard + b.bytes, b.guard); }
std::optional<int64_t> Launch::first_broken_guard(const BufferArg& b) const {
  auto before = guard_before(b), after = guard_after(b);
  for (uint64_t i = 0; i < b.guard; ++i)
    if (before[i] != guard_canary(i, b.guard_salt)) return static_cast<int64_t>(i) - static_cast<int64_t>(b.guard);
  for (uint64_t i = 0; i < b.guard; ++i)
    if (after[i] != guard_canary(b.guard + i, b.guard_salt)) return static_cast<int64_t>(b.bytes + i);
  return std::nullopt;
}

namespace {

// Checks the shape against the kernel and the processor and fills the Launch's shape fields;
// `grid` counts workgroups.
std::unique_ptr<Launch> begin_launch(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                     const std::array<uint32_t, 3>& grid, const std::array<uint32_t, 3>& block,
                                     uint32_t dynamic_lds, const std::string& at) {
  auto L = std::make_unique<Launch>();
  L->co = &co;
  L->kernel = &kernel;
  L->md = co.kernel_metadata(kernel);
  const auto& kd = kernel.kd;
  if (!L->md) throw Error("kernel " + kernel.name + " has no metadata; the emulator needs its argument layout", co.elf().name());
  const auto* arch = codeobj::arch_params(co.target().arch);
  if (!arch) throw Error("the emulator models gfx90a, gfx942 and gfx950 only, not " + co.target().str(), co.elf().name());
  if (kd.get("kernel_code_properties.enable_wavefront_size32"))
    throw Error("wave32 kernels are not supported (gfx9 is wave64)", kernel.name);
  if (kd.get("compute_pgm_rsrc1.float_round_mode_32") || kd.get("compute_pgm_rsrc1.float_round_mode_16_64"))
    throw Error("kernel descriptor selects a rounding mode other than round-to-nearest-even; the emulator implements RNE only",
                kernel.name);
  // Denormal modes (AMDGPUUsage FLOAT_DENORM_MODE_*): f32 "flush in and out" (0) and "keep" (3) are
  // implemented; flushing only inputs or only outputs, and any f16/f64 flushing, are not.
  if (unsigned m = kd.get("compute_pgm_rsrc1.float_denorm_mode_32"); m != 0 && m != 3)
    throw Error("kernel descriptor selects f32 denormal mode " + std::to_string(m) +
                    " (flush only inputs or only outputs); the emulator implements modes 0 (flush) and 3 (keep)",
                kernel.name);
  if (unsigned m = kd.get("compute_pgm_rsrc1.float_denorm_mode_16_64"); m != 3)
    throw Error("kernel descriptor flushes f16/f64 denormals (mode " + std::to_string(m) + "); the emulator keeps them (mode 3) only",
                kernel.name);

  // Shape.
  unsigned wg_items = 1;
  for (int d = 0; d < 3; ++d) {
    L->block[d] = block[d];
    L->grid_items[d] = grid[d] * block[d];
    L->num_groups[d] = grid[d];
    wg_items *= block[d];
  }
  if (wg_items > arch->max_workgroup_size)
    throw Error(fmt::format("block has {} work-items; at most {} are allowed", wg_items, arch->max_workgroup_size), at);
  if (L->md->max_flat_workgroup_size && wg_items > L->md->max_flat_workgroup_size)
    throw Error(fmt::format("block has {} work-items but the kernel's .max_flat_workgroup_size is {}", wg_items,
                            L->md->max_flat_workgroup_size),
                at);
  if (L->md->reqd_workgroup_size) {
    auto r = *L->md->reqd_workgroup_size;
    if (r[0] != block[0] || r[1] != block[1] || r[2] != block[2])
      throw Error(fmt::format("block must be [{}, {}, {}] (.reqd_workgroup_size)", r[0], r[1], r[2]), at);
  }
  L->waves_per_group = (wg_items + 63) / 64;
  L->dynamic_lds = dynamic_lds;
  L->lds_bytes = kd.group_segment_fixed_size + dynamic_lds;
  if (L->lds_bytes > arch->lds_bytes_per_cu)
    throw Error(fmt::format("the workgroup needs {} bytes of LDS ({} static + {} dynamic); {} has {}", L->lds_bytes,
                            kd.group_segment_fixed_size, dynamic_lds, arch->name, arch->lds_bytes_per_cu),
                at);
  return L;
}

// The code object's loadable segments (code, read-only data, globals) at kCodeBase + vaddr.
void map_code_object(DeviceMemory& mem, const codeobj::CodeObject& co) {
  for (const auto& seg : co.elf().segments()) {
    if (seg.type != 1 /*PT_LOAD*/ || seg.mem_size == 0) continue;
    std::span<const uint8_t> init;
    const auto& img = co.elf().image();
    if (seg.offset < img.size()) init = std::span<const uint8_t>(img).subspan(seg.offset, std::min<uint64_t>(seg.file_size, img.size() - seg.offset));
    mem.map_at(kCodeBase + seg.vaddr, seg.mem_size, init, fmt::format("code object segment 0x{:x}", seg.vaddr), (seg.flags & 2) != 0);
  }
}

// The AQL packet, queue and scratch, the hidden arguments into `kernarg` (explicit ones already in
// place), and the kernarg segment itself.
void finish_launch(Launch* L, const codeobj::Kernel& kernel, std::vector<uint8_t>& kernarg, unsigned scratch_slots,
                   bool straddle_4g = false) {
  DeviceMemory& mem = L->mem;
  const auto& kd = kernel.kd;
  // AQL packet (hsa_kernel_dispatch_packet_t), queue, scratch.
  L->queue_addr = mem.allocate(256, "queue (amd_queue_t, zeroed)", 64, false);
  L->packet_addr = mem.allocate(64, "AQL dispatch packet", 64, false);
  L->scratch_per_lane = kd.private_segment_fixed_size;
  L->scratch_slots = std::max(1u, scratch_slots);
  L->scratch_slot_bytes = static_cast<uint64_t>(L->scratch_per_lane) * 64 * L->waves_per_group;
  if (L->scratch_slot_bytes)
    L->scratch_addr = mem.allocate(L->scratch_slot_bytes * L->scratch_slots, "scratch", 256);
  {
    std::vector<uint8_t> p(64, 0);
    unsigned dims = L->grid_items[2] > 1 ? 3 : L->grid_items[1] > 1 ? 2 : 1;
    put(p, 0, 2 /*HSA_PACKET_TYPE_KERNEL_DISPATCH*/, 2);
    put(p, 2, dims, 2);
    for (int d = 0; d < 3; ++d) put(p, 4 + 2 * d, L->block[d], 2);
    for (int d = 0; d < 3; ++d) put(p, 12 + 4 * d, L->grid_items[d], 4);
    put(p, 24, L->scratch_per_lane, 4);
    put(p, 28, L->lds_bytes, 4);
    put(p, 32, kCodeBase + kernel.kd_address, 8);
    // kernarg address filled below
    // Straddling: the segment starts 16 bytes below a 4 GiB boundary (the 16-byte alignment AQL
    // requires of kernarg_address), so a pointer to any argument past the first 16 bytes carries
    // into the high word (the middle, as for buffers, would leave the explicit arguments below it).
    // The boundary lies between the code object and the first allocation (DeviceMemory::next_).
    constexpr uint64_t kKernargBoundary = 0x0000'6800'0000'0000ull;
    L->kernarg_addr = straddle_4g ? mem.map_at(kKernargBoundary - 16, kernarg.size(), {}, "kernarg segment", false).base
                                  : mem.allocate(kernarg.size(), "kernarg segment", 64, false);
    put(p, 40, L->kernarg_addr, 8);
    std::memcpy(mem.bytes(L->packet_addr).data(), p.data(), 64);
  }
  // Hidden arguments (code object v4/v5: AMDGPUUsage "Kernel Argument Metadata Map").
  bool uniform_required = L->md->uniform_work_group_size;
  for (const auto& m : L->md->args) {
    if (!m.is_hidden()) continue;
    const std::string& k = m.value_kind;
    auto dim = [&](const char* prefix) -> int {
      if (k.rfind(prefix, 0) != 0) return -1;
      char c = k.back();
      return c == 'x' ? 0 : c == 'y' ? 1 : c == 'z' ? 2 : -1;
    };
    uint64_t v = 0;
    if (int d = dim("hidden_block_count_"); d >= 0) v = L->num_groups[d];
    else if (int d2 = dim("hidden_group_size_"); d2 >= 0) v = L->block[d2];
    else if (int d3 = dim("hidden_remainder_"); d3 >= 0) v = L->grid_items[d3] % L->block[d3];
    else if (dim("hidden_global_offset_") >= 0) v = 0;
    else if (k == "hidden_grid_dims") v = (L->grid_items[2] > 1) ? 3 : (L->grid_items[1] > 1) ? 2 : 1;
    else if (k == "hidden_dynamic_lds_size") v = L->dynamic_lds;
    else if (k == "hidden_private_base") v = DeviceMemory::kPrivateAperture >> 32;
    else if (k == "hidden_shared_base") v = DeviceMemory::kSharedAperture >> 32;
    else if (k == "hidden_queue_ptr") v = L->queue_addr;
    // hidden_printf_buffer, hidden_hostcall_buffer, hidden_default_queue, hidden_completion_action,
    // hidden_multigrid_sync_arg, hidden_heap_v1, hidden_none: null (a kernel that uses them faults).
    put(kernarg, m.offset, v, m.size);
  }
  (void)uniform_required;  // grid from the spec is whole workgroups: always uniform
  std::memcpy(mem.bytes(L->kernarg_addr).data(), kernarg.data(), kernarg.size());
}

}  // namespace

std::unique_ptr<Launch> prepare_launch(const codeobj::CodeObject& co, const codeobj::Kernel& kernel,
                                       const LaunchSpec& spec, unsigned scratch_slots, bool straddle_4g,
                                       std::shared_ptr<InputChunks> inputs) {
  const std::string at = spec.path;
  auto L = begin_launch(co, kernel, spec.grid, spec.block, spec.dynamic_lds, at);
  DeviceMemory& mem = L->mem;
  const auto& kd = kernel.kd;
  map_code_object(mem, co);
  mem.straddle_4g_boundaries(straddle_4g);  // after the code object, which sits at its fixed address
  // Explicit arguments.
  std::vector<const codeobj::KernelArg*> explicit_args;
  for (const auto& a : L->md->args)
    if (!a.is_hidden()) explicit_args.push_back(&a);
  if (explicit_args.size() != spec.args.size())
    throw Error(fmt::format("the spec lists {} arguments but kernel {} has {}", spec.args.size(), kernel.name, explicit_args.size()),
                at + ":" + std::to_string(spec.args_line), "list one entry per kernel parameter, in order");
  uint64_t ksize = std::max<uint64_t>({kd.kernarg_size, L->md->kernarg_extent(), 1});  // every listed argument (codeobj/metadata.h)
  std::shared_ptr<const LaunchSpec> shared_spec;  // what lazily filled buffers are made from
  std::vector<uint8_t> kernarg((ksize + 255) / 256 * 256, 0);
  for (size_t i = 0; i < spec.args.size(); ++i) {
    const ArgSpec& s = spec.args[i];
    const codeobj::KernelArg& m = *explicit_args[i];
    std::string where = at + ":" + std::to_string(s.line);
    std::string label = s.name.empty() ? "arg" + std::to_string(i) : s.name;
    bool is_ptr = m.value_kind == "global_buffer" || m.value_kind == "dynamic_shared_pointer";
    if (s.kind == ArgSpec::Buffer) {
      if (!is_ptr || m.size != 8)
        throw Error(fmt::format("argument {} ({}) is a buffer in the spec but a {} of {} bytes in the kernel", i, label,
                                m.value_kind, m.size),
                    where);
      BufferArg b{i, s.name, s.dtype, 0, s.count * dtype_size(s.dtype), s.guard, guard_salt(spec, i)};
      b.address = mem.allocate_guarded(b.bytes, b.guard, "argument " + std::to_string(i) + " (" + label + ")", s.align);
      if (b.bytes > kLazyFillBytes && buffer_fills_by_chunk(spec, i)) {
        // Made on first touch, chunk by chunk, with the bytes make_buffer gives (a sampled timing run
        // touches a small part of a large launch's inputs); zeros need no filling at all.
        if (!(s.init.kind == InitSpec::Zeros && s.direction != ArgSpec::Output)) {
          if (!shared_spec) shared_spec = std::make_shared<const LaunchSpec>(spec);
          mem.fill_lazily(b.address, b.bytes, kInitChunkBytes, [run = shared_spec, i, inputs](uint64_t chunk, std::span<uint8_t> out) {
            if (inputs) inputs->fill(*run, i, chunk, out);
            else fill_chunk(*run, i, chunk, out);
          });
        }
      } else {
        auto bytes = make_buffer(spec, i);
        auto view = L->contents(b);
        std::memcpy(view.data(), bytes.data(), bytes.size());
      }
      auto before = L->guard_before(b), after = L->guard_after(b);
      for (uint64_t g = 0; g < b.guard; ++g) before[g] = guard_canary(g, b.guard_salt), after[g] = guard_canary(b.guard + g, b.guard_salt);
      put(kernarg, m.offset, b.address, 8);
      L->buffers.push_back(b);
    } else if (s.kind == ArgSpec::NullPointer) {
      if (!is_ptr) throw Error(fmt::format("argument {} ({}) is a pointer in the spec but {} in the kernel", i, label, m.value_kind), where);
      put(kernarg, m.offset, 0, 8);
    } else if (s.dtype == "pad") {  // zero bytes of the argument's size: the segment starts zeroed
      if (m.value_kind != "by_value")
        throw Error(fmt::format("argument {} ({}) is a pad in the spec but a {} in the kernel", i, label, m.value_kind), where);
    } else {
      if (m.value_kind != "by_value" || m.size != dtype_size(s.dtype))
        throw Error(fmt::format("argument {} ({}) is a {} value ({} bytes) in the spec but a {} of {} bytes in the kernel", i, label,
                                s.dtype, dtype_size(s.dtype), m.value_kind, m.size),
                    where);
      put(kernarg, m.offset, scalar_bits(spec, i), m.size);
    }
  }
  finish_launch(L.get(), kernel, kernarg, scratch_slots, straddle_4g);
  return L;
}

std::unique_ptr<Launch> prepare_raw_launch(const codeobj::CodeObject& co, const codeobj::Kernel& kernel, const RawLaunch& raw,
                                           unsigned scratch_slots) {
  const std::string at = "launch of " + kernel.name;
  auto L = begin_launch(co, kernel, raw.grid, raw.block, raw.dynamic_lds, at);
  for (const auto& r : raw.memory) L->mem.map_external(r.base, r.size, r.host, r.name, r.writable);
  if (raw.map_code_object) map_code_object(L->mem, co);
  uint64_t ksize = std::max<uint64_t>({kernel.kd.kernarg_size, L->md->kernarg_segment_size, 1});
  std::vector<uint8_t> kernarg((ksize + 255) / 256 * 256, 0);
  uint64_t explicit_end = 0;
  for (const auto& a : L->md->args)
    if (!a.is_hidden()) explicit_end = std::max(explicit_end, a.offset + a.size);
  if (raw.explicit_kernarg.size() < explicit_end)
    throw Error(fmt::format("{} bytes of explicit arguments given; kernel {} needs {}", raw.explicit_kernarg.size(), kernel.name,
                            explicit_end),
                at);
  std::memcpy(kernarg.data(), raw.explicit_kernarg.data(), std::min<uint64_t>(explicit_end, kernarg.size()));
  finish_launch(L.get(), kernel, kernarg, scratch_slots);
  return L;
}

uint32_t initial_mode_bits(const codeobj::KernelDescriptor& kd) {
  return kd.get("compute_pgm_rsrc1.float_round_mode_32") | kd.get("compute_pgm_rsrc1.float_round_mode_16_64") << 2 |
         kd.get("compute_pgm_rsrc1.float_denorm_mode_32") << 4 | kd.get("compute_pgm_rsrc1.float_denorm_mode_16_64") << 6 |
         kd.get("compute_pgm_rsrc1.enable_dx10_clamp") << 8 | kd.get("compute_pgm_rsrc1.enable_ieee_mode") << 9 |
         kd.get("compute_pgm_rsrc1.fp16_ovfl") << 23;  // MODE.FP16_OVFL (s_getreg reads it back)
}

std::vector<uint64_t> sample_workgroups(const std::array<uint32_t, 3>& g, unsigned spread) {
  const uint64_t total = static_cast<uint64_t>(g[0]) * g[1] * g[2];
  std::vector<uint64_t> ids;
  if (total <= spread + 8) {
    for (uint64_t i = 0; i < total; ++i) ids.push_back(i);
    return ids;
  }
  for (unsigned corner = 0; corner < 8; ++corner) {
    const uint64_t x = corner & 1 ? g[0] - 1 : 0, y = corner & 2 ? g[1] - 1 : 0, z = corner & 4 ? g[2] - 1 : 0;
    ids.push_back(x + g[0] * (y + static_cast<uint64_t>(g[1]) * z));
  }
  for (unsigned k = 0; k < spread; ++k) ids.push_back(spread > 1 ? (total - 1) * k / (spread - 1) : 0);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::string workgroup_text(const std::array<uint32_t, 3>& g, uint64_t id) {
  return fmt::format("({},{},{})", id % g[0], id / g[0] % g[1], id / (static_cast<uint64_t>(g[0]) * g[1]));
}

WaveSetup wave_setup(const Launch& L) {
  const auto& kd = L.kernel->kd;
  WaveSetup ws;
  ws.mode_bits = initial_mode_bits(kd);
  ws.private_segment_buffer = kd.get("kernel_code_properties.enable_sgpr_private_segment_buffer");
  ws.dispatch_ptr = kd.get("kernel_code_properties.enable_sgpr_dispatch_ptr");
  ws.queue_ptr = kd.get("kernel_code_properties.enable_sgpr_queue_ptr");
  ws.kernarg_segment_ptr = kd.get("kernel_code_properties.enable_sgpr_kernarg_segment_ptr");
  ws.dispatch_id = kd.get("kernel_code_properties.enable_sgpr_dispatch_id");
  ws.flat_scratch_init = kd.get("kernel_code_properties.enable_sgpr_flat_scratch_init");
  ws.private_segment_size = kd.get("kernel_code_properties.enable_sgpr_private_segment_size");
  ws.kernarg_preload_length = kd.kernarg_preload_length();
  ws.kernarg_preload_offset = kd.kernarg_preload_offset();
  ws.user_sgpr_count = kd.user_sgpr_count();
  ws.workgroup_id[0] = kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_x");
  ws.workgroup_id[1] = kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_y");
  ws.workgroup_id[2] = kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_id_z");
  ws.workgroup_info = kd.get("compute_pgm_rsrc2.enable_sgpr_workgroup_info");
  ws.private_segment = kd.get("compute_pgm_rsrc2.enable_private_segment");
  ws.workitem_id_vgprs = kd.workitem_id_vgprs();
  return ws;
}

void init_wave(const Launch& L, const WaveSetup& ws, const Program& prog, Wave& w, const std::array<uint32_t, 3>& wg,
               unsigned wave_index, unsigned slot) {
  w.allocate_vregs(prog.num_vregs());
  w.accum_offset = prog.accum_offset();
  w.id_in_group = wave_index;
  w.pc = prog.entry_index(ws.preload_firmware);
  w.mode.bits = ws.mode_bits;
  w.flush_f32 = w.mode.denorm32() == 0;
  uint64_t slot_base = L.scratch_addr + slot * L.scratch_slot_bytes;
  uint64_t wave_offset = static_cast<uint64_t>(wave_index) * 64 * L.scratch_per_lane;
  unsigned s = 0;
  auto put64 = [&](uint64_t v) { w.set_sreg64(s, v), s += 2; };
  if (ws.private_segment_buffer) {
    // V#: base, stride 0, swizzle on, num_records max, add_tid, index_stride 64, element size 4.
    w.s[s++] = static_cast<uint32_t>(slot_base);
    w.s[s++] = (static_cast<uint32_t>(slot_base >> 32) & 0xffff) | (1u << 31);  // word1[31]: SWIZZLE_ENABLE
    w.s[s++] = 0xffffffffu;
    w.s[s++] = (1u << 23) | (3u << 21) | (1u << 19) | 0x00027000u;
  }
  if (ws.dispatch_ptr) put64(L.packet_addr);
  if (ws.queue_ptr) put64(L.queue_addr);
  if (ws.kernarg_segment_ptr) put64(L.kernarg_addr);
  if (ws.dispatch_id) put64(0);
  if (ws.flat_scratch_init) put64(slot_base);
  if (ws.private_segment_size) w.s[s++] = L.scratch_per_lane;
  if (unsigned n = ws.kernarg_preload_length) {
    const uint8_t* ka = L.mem.translate(L.kernarg_addr, 4);
    unsigned off = ws.kernarg_preload_offset;
    for (unsigned i = 0; i < n; ++i) {
      if (ws.preload_firmware) std::memcpy(&w.s[s], ka + 4 * (off + i), 4);
      ++s;  // without preloading firmware these SGPRs hold nothing: the prologue loads them
    }
  }
  if (s != ws.user_sgpr_count)
    throw Error(fmt::format("the kernel descriptor enables {} user SGPRs but user_sgpr_count is {}", s, ws.user_sgpr_count),
                L.kernel->name);
  if (ws.workgroup_id[0]) w.s[s++] = wg[0];
  if (ws.workgroup_id[1]) w.s[s++] = wg[1];
  if (ws.workgroup_id[2]) w.s[s++] = wg[2];
  if (ws.workgroup_info) w.s[s++] = L.lds_bytes;  // LDS size for the workgroup
  if (ws.private_segment) w.s[s++] = static_cast<uint32_t>(wave_offset);
  w.set_sreg64(kFlatScratchLo, slot_base + wave_offset);  // architected flat scratch (gfx942/gfx950)
  // Work-item IDs of this wave's lanes, in the workgroup's actual (possibly partial) shape.
  auto gs = L.group_size(wg);
  unsigned count = gs[0] * gs[1] * gs[2];
  unsigned ids = ws.workitem_id_vgprs;  // 0: X, 1: X and Y, 2: X, Y and Z
  uint64_t exec = 0;
  bool packed = prog.arch() != codeobj::Arch::Other;  // gfx90a+: X | Y << 10 | Z << 20 in v0
  for (unsigned l = 0; l < 64; ++l) {
    unsigned id = wave_index * 64 + l;
    if (id >= count) continue;
    exec |= 1ull << l;
    unsigned x = id % gs[0], y = (id / gs[0]) % gs[1], z = id / (gs[0] * gs[1]);
    if (ids < 1) y = 0;
    if (ids < 2) z = 0;
    if (packed) w.v[0][l] = x | y << 10 | z << 20;
    else {
      w.v[0][l] = x;
      if (ids >= 1 && w.num_vregs > 1) w.v[1][l] = y;
      if (ids >= 2 && w.num_vregs > 2) w.v[2][l] = z;
    }
  }
  w.set_exec(exec);
}

}  // namespace asmevo::emu
