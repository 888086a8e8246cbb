// Format buffer loads and stores: buffer_load/store_format_{x,xy,xyz,xyzw} (+ d16, d16_hi) take the element
// format from the V#, tbuffer_load/store_format_* (+ d16) from the instruction's DFMT/NFMT fields. Addressing
// and range checking are the MUBUF rules (buffer_addr.h, sources in mubuf.cpp).
//
// Sources: the Vega/CDNA ISA "Buffer Resource" table (DST_SEL_X/Y/Z/W word3[11:0], NUM_FORMAT [14:12],
// DATA_FORMAT [18:15]) and the data/number format tables as CLRX restates them (doc/GcnMemHandling.md
// "MUBUF/MTBUF format conversion"); LLVM's BUF_DATA_FORMAT_* / BUF_NUM_FORMAT_* names (gfx9: number format 6
// is reserved); MTBUF word 0: DFMT [22:19], NFMT [25:23] (the instruction's raw bytes).
//
//   Data formats (components from the lowest bit; the name lists them from the top): 8, 16, 8_8, 32, 16_16,
//   10_11_11 (X 11, Y 11, Z 10 bits), 11_11_10 (X 10, Y 11, Z 11), 10_10_10_2 (X 2, Y,Z,W 10), 2_10_10_10
//   (X,Y,Z 10, W 2), 8_8_8_8, 32_32, 16_16_16_16, 32_32_32, 32_32_32_32. 0 (invalid) and 15 stop the run.
//   Load, per n-bit component x (sx: x sign-extended): UNORM x / (2^n - 1); SNORM max(sx / (2^(n-1) - 1), -1);
//   USCALED x; SSCALED sx (as f32); UINT x; SINT sx; FLOAT: n = 32 the bits, 16 f16, 11/10 the unsigned
//   packed floats (5-bit exponent, 6/5-bit mantissa). Components the format lacks read (0, 0, 0, 1) (1.0 for
//   the float formats). buffer_load_format_* then applies the V#'s DST_SEL (0: 0, 1: one, 4-7: X-W);
//   tbuffer_* uses the identity. An element not wholly in range reads 0 (format ops are range-checked all or nothing).
//   D16 loads convert each component to 16 bits (f16 round-to-nearest-even for the float formats; integer
//   formats of at most 16 bits) and pack two per VGPR (d16_x: low half, d16_hi_x: high half, the other half
//   kept; d16_xyz: the third in the low half of the second VGPR).
//   Store, from f32 (or f16 for d16) / integer VGPRs: UNORM round(clamp(v, 0, 1) * (2^n - 1)); SNORM
//   round(clamp(v, -1, 1) * (2^(n-1) - 1)) (NaN -> 0, round to nearest even); UINT/SINT the low n bits;
//   FLOAT 32 / 16 bits. The instruction must supply every component of the format (extra ones are ignored).
// Stops the run (unsupported): invalid/reserved formats, number format 6, FLOAT with 8-, 2- or 10-bit fields
// of the 10_10_10_2 kinds, USCALED/SSCALED stores (the tables list them as read-only), packed-float stores,
// d16 with integer components wider than 16 bits, a store with fewer components than its format, and
// buffer_*_format with ADD_TID_ENABLE (the V#'s DATA_FORMAT field then holds stride bits). Choices that need
// hardware confirmation (docs/emulator.md): the UNORM/SNORM rounding, integer-store truncation, DST_SEL on
// loads only, the (0, 0, 0, 1) defaults.
#include <bit>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <string>

#include "emu/alu.h"
#include "emu/semantics/buffer_addr.h"
#include "program/instruction.h"

namespace asmevo::emu::sem {
namespace {

struct DataFormat {
  const char* name;
  uint8_t bytes = 0, ncomp = 0;
  uint8_t bits[4] = {};
};
// Indexed by DATA_FORMAT (BUF_DATA_FORMAT_*).
constexpr DataFormat kDataFormats[16] = {
    {"INVALID"},           {"8", 1, 1, {8}},          {"16", 2, 1, {16}},
    {"8_8", 2, 2, {8, 8}}, {"32", 4, 1, {32}},        {"16_16", 4, 2, {16, 16}},
    {"10_11_11", 4, 3, {11, 11, 10}},                 {"11_11_10", 4, 3, {10, 11, 11}},
    {"10_10_10_2", 4, 4, {2, 10, 10, 10}},            {"2_10_10_10", 4, 4, {10, 10, 10, 2}},
    {"8_8_8_8", 4, 4, {8, 8, 8, 8}},                  {"32_32", 8, 2, {32, 32}},
    {"16_16_16_16", 8, 4, {16, 16, 16, 16}},          {"32_32_32", 12, 3, {32, 32, 32}},
    {"32_32_32_32", 16, 4, {32, 32, 32, 32}},         {"RESERVED_15"}};
enum Nfmt : uint8_t { kUnorm, kSnorm, kUscaled, kSscaled, kUint, kSint, kReserved6, kFloat };
constexpr const char* kNfmtNames[8] = {"UNORM", "SNORM", "USCALED", "SSCALED", "UINT", "SINT", "RESERVED_6", "FLOAT"};

struct Format {
  const DataFormat* df = nullptr;
  Nfmt nfmt = kUnorm;
  uint32_t dst_sel = 0;  // 4 x 3 bits; identity (4, 5, 6, 7) for tbuffer
  bool is_int() const { return nfmt == kUint || nfmt == kSint; }
};

enum class Src : uint8_t { Resource, Instruction };

[[noreturn]] void refuse(ExecContext& ctx, const Wave& w, const ExecInst& in, const std::string& why) {
  fail(ctx, w, in, why + " (format buffer access)", -1, 0, "see emu/semantics/mubuf_format.cpp for what is implemented",
       kExitBadInput);
}

Format format_of(ExecContext& ctx, const Wave& w, const ExecInst& in, const buffer::Rsrc& rs, Src src, bool store,
                 bool d16, unsigned given) {
  unsigned dfmt, nfmt;
  Format f;
  if (src == Src::Resource) {
    if (rs.add_tid) refuse(ctx, w, in, "a V# with ADD_TID_ENABLE (its DATA_FORMAT field holds stride bits)");
    dfmt = (rs.word3 >> 15) & 0xf, nfmt = (rs.word3 >> 12) & 7, f.dst_sel = rs.word3 & 0xfff;
  } else {
    uint32_t w0 = 0;
    std::memcpy(&w0, in.raw->bytes.data(), 4);
    dfmt = (w0 >> 19) & 0xf, nfmt = (w0 >> 23) & 7, f.dst_sel = 4 | 5 << 3 | 6 << 6 | 7 << 9;
  }
  f.df = &kDataFormats[dfmt];
  f.nfmt = static_cast<Nfmt>(nfmt);
  const std::string name = fmt::format("[BUF_DATA_FORMAT_{}, BUF_NUM_FORMAT_{}]", f.df->name, kNfmtNames[nfmt]);
  if (f.df->ncomp == 0) refuse(ctx, w, in, "data format " + name + " is invalid");
  if (f.nfmt == kReserved6) refuse(ctx, w, in, "number format " + name + " is reserved on gfx9");
  for (unsigned c = 0; c < f.df->ncomp; ++c) {
    const unsigned n = f.df->bits[c];
    if (f.nfmt == kFloat && n != 32 && n != 16 && n != 11 && n != (dfmt == 6 || dfmt == 7 ? 10 : 0))
      refuse(ctx, w, in, fmt::format("FLOAT with {}-bit components ({})", n, name));
    if (d16 && f.is_int() && n > 16) refuse(ctx, w, in, "a d16 access to " + std::to_string(n) + "-bit integers " + name);
    if (store && f.nfmt == kFloat && n < 16) refuse(ctx, w, in, "a store of packed floats " + name);
  }
  if (store && (f.nfmt == kUscaled || f.nfmt == kSscaled)) refuse(ctx, w, in, "a store with the read-only number format " + name);
  if (store && given < f.df->ncomp)
    refuse(ctx, w, in, fmt::format("a store of {} component(s) to the {}-component format {}", given, f.df->ncomp, name));
  return f;
}

inline uint32_t f32_bits(float x) { return std::bit_cast<uint32_t>(x); }
inline int64_t sext(uint64_t x, unsigned n) { return static_cast<int64_t>(x << (64 - n)) >> (64 - n); }

// Unsigned packed float (no sign; 5-bit exponent, bias 15, m-bit mantissa) -> f32.
float unsigned_float(uint32_t x, unsigned mbits) {
  const unsigned e = x >> mbits, m = x & ((1u << mbits) - 1);
  if (e == 31) return m ? std::nanf("") : INFINITY;
  if (e == 0) return std::ldexp(static_cast<float>(m), -14 - static_cast<int>(mbits));
  return std::ldexp(1.0f + static_cast<float>(m) / static_cast<float>(1u << mbits), static_cast<int>(e) - 15);
}

// The 32-bit register value of one n-bit component.
uint32_t decode(uint32_t x, unsigned n, Nfmt f) {
  const double umax = std::ldexp(1.0, static_cast<int>(n)) - 1, smax = std::ldexp(1.0, static_cast<int>(n) - 1) - 1;
  switch (f) {
    case kUnorm: return f32_bits(static_cast<float>(x / umax));
    case kSnorm: return f32_bits(static_cast<float>(std::fmax(static_cast<double>(sext(x, n)) / smax, -1.0)));
    case kUscaled: return f32_bits(static_cast<float>(x));
    case kSscaled: return f32_bits(static_cast<float>(sext(x, n)));
    case kUint: return x;
    case kSint: return static_cast<uint32_t>(sext(x, n));
    case kFloat:
      if (n == 32) return x;
      if (n == 16) return f32_bits(static_cast<float>(std::bit_cast<f16>(static_cast<uint16_t>(x))));
      return f32_bits(unsigned_float(x, n - 5));
    default: return 0;
  }
}

// The n-bit field of one component from its register value (f32 bits, or an integer).
uint32_t encode(uint32_t v, unsigned n, Nfmt f) {
  const uint32_t mask = n == 32 ? ~0u : (1u << n) - 1;
  const float x = std::bit_cast<float>(v);
  auto scaled = [&](double lo, double scale) {
    double c = std::isnan(x) ? 0.0 : std::fmin(std::fmax(static_cast<double>(x), lo), 1.0);
    return static_cast<uint32_t>(static_cast<int64_t>(std::nearbyint(c * scale))) & mask;  // FE_TONEAREST
  };
  switch (f) {
    case kUnorm: return scaled(0.0, std::ldexp(1.0, static_cast<int>(n)) - 1);
    case kSnorm: return scaled(-1.0, std::ldexp(1.0, static_cast<int>(n) - 1) - 1);
    case kUint:
    case kSint: return v & mask;
    case kFloat: return n == 32 ? v : std::bit_cast<uint16_t>(static_cast<f16>(x));
    default: return 0;
  }
}

uint32_t one(const Format& f) { return f.is_int() ? 1u : f32_bits(1.0f); }

// Element bytes of lane l, range-checked as a whole (ISA "Range Checking": format loads and stores are "all or
// nothing"), then addressed dword by dword (swizzle); out of range, it reads 0 or is not written.
bool element_in_range(const Wave& w, const buffer::Addressing& a, unsigned l, const DataFormat& df) {
  uint64_t addr;
  return a.component(w, l, 0, df.bytes, addr);
}
void read_element(ExecContext& ctx, const Wave& w, const ExecInst& in, const buffer::Addressing& a, unsigned l,
                  const DataFormat& df, uint8_t* buf) {
  std::memset(buf, 0, 16);
  if (!element_in_range(w, a, l, df)) return;
  for (unsigned o = 0; o < df.bytes; o += 4) {
    uint64_t addr;
    const unsigned size = df.bytes < 4 ? df.bytes : 4;
    if (a.component(w, l, o, size, addr)) std::memcpy(buf + o, access(ctx, w, in, addr, size, false, static_cast<int>(l)), size);
  }
}
void write_element(ExecContext& ctx, const Wave& w, const ExecInst& in, const buffer::Addressing& a, unsigned l,
                   const DataFormat& df, const uint8_t* buf) {
  if (!element_in_range(w, a, l, df)) return;
  for (unsigned o = 0; o < df.bytes; o += 4) {
    uint64_t addr;
    const unsigned size = df.bytes < 4 ? df.bytes : 4;
    if (a.component(w, l, o, size, addr)) std::memcpy(access(ctx, w, in, addr, size, true, static_cast<int>(l)), buf + o, size);
  }
}

uint32_t get_bits(const uint8_t* buf, unsigned at, unsigned n) {
  uint64_t v = 0;
  std::memcpy(&v, buf + at / 8, (at % 8 + n + 7) / 8);
  return static_cast<uint32_t>((v >> (at % 8)) & (n == 32 ? 0xffffffffull : (1ull << n) - 1));
}
void put_bits(uint8_t* buf, unsigned at, unsigned n, uint32_t x) {
  uint64_t v = 0;
  const unsigned len = (at % 8 + n + 7) / 8;
  std::memcpy(&v, buf + at / 8, len);
  const uint64_t m = (n == 32 ? 0xffffffffull : (1ull << n) - 1) << (at % 8);
  v = (v & ~m) | ((static_cast<uint64_t>(x) << (at % 8)) & m);
  std::memcpy(buf + at / 8, &v, len);
}

// Half (0 low, 1 high) of the 16-bit lane value's place: component c of a d16 access starting in half `first`.
struct D16Slot {
  unsigned reg, half;
};
D16Slot d16_slot(unsigned c, unsigned first) { return {(c + first) / 2, (c + first) % 2}; }

// vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N] [format:...]
template <Src S, unsigned N, bool D16, bool Hi = false> void load(ExecContext& ctx, Wave& w, const ExecInst& in) {
  buffer::refuse_unmodelled(ctx, w, in);
  const Operand& vdata = in.dst[0];
  buffer::Addressing a = buffer::addressing(w, in, in.src[0], in.src[1], in.src[2]);
  const Format f = format_of(ctx, w, in, a.rs, S, false, D16, N);
  constexpr unsigned regs = D16 ? (N + (Hi ? 1 : 0) + 1) / 2 : N;
  const uint64_t exec = w.exec();
  PendingWrite pw;
  pw.file = 0;
  pw.reg = vdata.index;
  pw.count = regs;
  pw.lanes = exec;
  pw.data.assign(regs * kWaveSize, 0);
  for (unsigned r = 0; r < regs; ++r) std::memcpy(&pw.data[r * kWaveSize], w.v[vdata.index + r].lane, 4 * kWaveSize);
  uint8_t buf[16];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    read_element(ctx, w, in, a, l, *f.df, buf);
    uint32_t comp[4] = {0, 0, 0, one(f)};
    for (unsigned c = 0, at = 0; c < f.df->ncomp; at += f.df->bits[c], ++c) comp[c] = decode(get_bits(buf, at, f.df->bits[c]), f.df->bits[c], f.nfmt);
    for (unsigned c = 0; c < N; ++c) {
      const unsigned sel = (f.dst_sel >> (3 * c)) & 7;
      if (sel == 2 || sel == 3) refuse(ctx, w, in, fmt::format("DST_SEL {} (reserved) in the V#", sel));
      uint32_t v = sel == 0 ? 0u : sel == 1 ? one(f) : comp[sel - 4];
      if constexpr (D16) {
        const uint32_t h = f.is_int() ? (v & 0xffffu) : std::bit_cast<uint16_t>(static_cast<f16>(std::bit_cast<float>(v)));
        const D16Slot s = d16_slot(c, Hi ? 1 : 0);
        uint32_t& dst = pw.data[s.reg * kWaveSize + l];
        dst = s.half ? (dst & 0xffffu) | (h << 16) : (dst & 0xffff0000u) | h;
      } else {
        pw.data[c * kWaveSize + l] = v;
      }
    }
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  op.writes.push_back(std::move(pw));
  w.wc.issue(std::move(op));
}

// vdata, vaddr|off, srsrc, soffset [offen] [idxen] [offset:N] [format:...]
template <Src S, unsigned N, bool D16, bool Hi = false> void store(ExecContext& ctx, Wave& w, const ExecInst& in) {
  buffer::refuse_unmodelled(ctx, w, in);
  const Operand& vdata = in.src[0];
  buffer::Addressing a = buffer::addressing(w, in, in.src[1], in.src[2], in.src[3]);
  const Format f = format_of(ctx, w, in, a.rs, S, true, D16, N);
  const uint64_t exec = w.exec();
  uint8_t buf[16];
  for (unsigned l = 0; l < kWaveSize; ++l) {
    if (!(exec >> l & 1)) continue;
    std::memset(buf, 0, sizeof buf);
    for (unsigned c = 0, at = 0; c < f.df->ncomp; at += f.df->bits[c], ++c) {
      uint32_t v;
      if constexpr (D16) {
        const D16Slot s = d16_slot(c, Hi ? 1 : 0);
        const uint32_t h = (w.v[vdata.index + s.reg][l] >> (16 * s.half)) & 0xffffu;
        v = f.is_int() ? h : f32_bits(static_cast<float>(std::bit_cast<f16>(static_cast<uint16_t>(h))));
      } else {
        v = w.v[vdata.index + c][l];
      }
      put_bits(buf, at, f.df->bits[c], encode(v, f.df->bits[c], f.nfmt));
    }
    write_element(ctx, w, in, a, l, *f.df, buf);
  }
  PendingOp op;
  op.counters = kVm;
  op.inst = &in;
  w.wc.issue(std::move(op));
}

}  // namespace

void register_mubuf_format(Registry& r) {
  static constexpr const char* kComps[5] = {"", "x", "xy", "xyz", "xyzw"};
  auto reg = [&](const std::string& prefix, const char* kind, unsigned n, ExecFn ld, ExecFn st) {
    custom(r, (prefix + "_load_format_" + kind + kComps[n]).c_str(), ld, Category::Memory, {Ty::Any},
           {Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
    custom(r, (prefix + "_store_format_" + kind + kComps[n]).c_str(), st, Category::Memory, {},
           {Ty::Any, Ty::Any, Ty::Any, Ty::Any}, kVariadic, kVm);
  };
  reg("buffer", "", 1, load<Src::Resource, 1, false>, store<Src::Resource, 1, false>);
  reg("buffer", "", 2, load<Src::Resource, 2, false>, store<Src::Resource, 2, false>);
  reg("buffer", "", 3, load<Src::Resource, 3, false>, store<Src::Resource, 3, false>);
  reg("buffer", "", 4, load<Src::Resource, 4, false>, store<Src::Resource, 4, false>);
  reg("buffer", "d16_", 1, load<Src::Resource, 1, true>, store<Src::Resource, 1, true>);
  reg("buffer", "d16_", 2, load<Src::Resource, 2, true>, store<Src::Resource, 2, true>);
  reg("buffer", "d16_", 3, load<Src::Resource, 3, true>, store<Src::Resource, 3, true>);
  reg("buffer", "d16_", 4, load<Src::Resource, 4, true>, store<Src::Resource, 4, true>);
  reg("buffer", "d16_hi_", 1, load<Src::Resource, 1, true, true>, store<Src::Resource, 1, true, true>);
  reg("tbuffer", "", 1, load<Src::Instruction, 1, false>, store<Src::Instruction, 1, false>);
  reg("tbuffer", "", 2, load<Src::Instruction, 2, false>, store<Src::Instruction, 2, false>);
  reg("tbuffer", "", 3, load<Src::Instruction, 3, false>, store<Src::Instruction, 3, false>);
  reg("tbuffer", "", 4, load<Src::Instruction, 4, false>, store<Src::Instruction, 4, false>);
  reg("tbuffer", "d16_", 1, load<Src::Instruction, 1, true>, store<Src::Instruction, 1, true>);
  reg("tbuffer", "d16_", 2, load<Src::Instruction, 2, true>, store<Src::Instruction, 2, true>);
  reg("tbuffer", "d16_", 3, load<Src::Instruction, 3, true>, store<Src::Instruction, 3, true>);
  reg("tbuffer", "d16_", 4, load<Src::Instruction, 4, true>, store<Src::Instruction, 4, true>);
}

}  // namespace asmevo::emu::sem
