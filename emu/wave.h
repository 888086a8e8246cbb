// The architectural state of one wave64: scalar registers (hardware SSRC numbering, so vcc, exec,
// m0, ttmp and flat_scratch live in the same array), SCC, the unified VGPR/AGPR file stored
// register-major (v[reg][lane], so lane loops are contiguous), MODE/STATUS, the PC (an index into
// the pre-decoded program) and the outstanding memory operations (emu/waitcnt.h).
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "emu/inst.h"
#include "emu/waitcnt.h"

namespace asmevo::emu {

inline constexpr unsigned kWaveSize = 64;

struct alignas(64) VReg {
  uint32_t lane[kWaveSize];
  uint32_t& operator[](unsigned l) { return lane[l]; }
  uint32_t operator[](unsigned l) const { return lane[l]; }
};

// dst[l] = src[l] for every lane l set in `mask`, other lanes unchanged (dst and src distinct). Full
// and empty masks, the common cases, skip the per-lane select.
inline void masked_store(uint32_t* dst, const uint32_t* src, uint64_t mask) {
  if (mask == ~0ull) std::memcpy(dst, src, sizeof(uint32_t) * kWaveSize);
  else if (mask)
    for (unsigned l = 0; l < kWaveSize; ++l) dst[l] = (mask >> l & 1) ? src[l] : dst[l];
}

// MODE register fields the emulator reads (ISA "MODE": FP_ROUND bits 3:0, FP_DENORM bits 7:4,
// DX10_CLAMP bit 8, IEEE bit 9). Only round-to-nearest-even is implemented; anything else stops.
struct ModeReg {
  uint32_t bits = 0;
  unsigned round32() const { return bits & 3; }
  unsigned round16_64() const { return (bits >> 2) & 3; }
  unsigned denorm32() const { return (bits >> 4) & 3; }     // 0: flush in+out, 3: keep all
  unsigned denorm16_64() const { return (bits >> 6) & 3; }
  bool dx10_clamp() const { return bits >> 8 & 1; }
  bool ieee() const { return bits >> 9 & 1; }
};

struct Wave {
  std::array<uint32_t, kNumScalarRegs> s{};
  bool scc = false;
  std::unique_ptr<VReg[]> vstore;
  unsigned vstore_capacity = 0;  // registers in vstore (kept across waves run in this Wave object)
  VReg* v = nullptr;        // v[0 .. num_vregs): the unified VGPR/AGPR file of this wave
  unsigned num_vregs = 0;   // allocated registers per lane (VGPRs + AGPRs)
  unsigned accum_offset = 0;  // first AGPR in the unified file (gfx90a+)
  ModeReg mode;
  uint32_t status = 0;
  bool flush_f32 = false;   // mode.denorm32() == 0, cached
  bool vskip = false;       // STATUS.VSKIP (s_setvskip): vector instructions are skipped (emu/semantics/vskip.cpp)

  uint32_t pc = 0;          // index into Program::insts
  bool done = false;
  bool at_barrier = false;
  unsigned id_in_group = 0; // wave index inside its workgroup
  uint64_t instructions = 0;

  WaitcntState wc;

  // A zeroed register file of n registers; the storage is reused when a previous wave's was big enough.
  void allocate_vregs(unsigned n) {
    const unsigned need = n ? n : 1;
    if (!vstore || need > vstore_capacity) vstore.reset(new VReg[need]), vstore_capacity = need;
    num_vregs = n;
    std::memset(vstore.get(), 0, sizeof(VReg) * need);
    v = vstore.get();
  }

  uint64_t sreg64(unsigned i) const { return s[i] | (static_cast<uint64_t>(s[i + 1]) << 32); }
  void set_sreg64(unsigned i, uint64_t x) {
    s[i] = static_cast<uint32_t>(x);
    s[i + 1] = static_cast<uint32_t>(x >> 32);
  }
  uint64_t exec() const { return sreg64(kExecLo); }
  void set_exec(uint64_t x) { set_sreg64(kExecLo, x); }
  uint64_t vcc() const { return sreg64(kVccLo); }
  void set_vcc(uint64_t x) { set_sreg64(kVccLo, x); }
};

}  // namespace asmevo::emu
