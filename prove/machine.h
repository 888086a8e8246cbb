// The symbolic machine one window runs on: a wave's registers and memory as Z3 terms. Registers
// start as free variables named after the register ("s12", "v3.l17", "scc", "mem"): the K0 and K1
// windows read the SAME live-in variables because Z3 identifies constants by name, so only what a
// window writes differs between the two machines.
#pragma once
#include <fmt/format.h>
#include <z3++.h>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "emu/inst.h"

namespace asmevo::prove {

inline constexpr unsigned kLanes = 64;

// Thrown by a unit for what the prover does not model (the verdict becomes UNKNOWN with `what`).
struct Unsupported {
  std::string what;
};

class Machine {
 public:
  explicit Machine(z3::context& c) : c_(c), scc_(c.bool_const("scc")) {}
  z3::context& ctx() const { return c_; }

  z3::expr sgpr(unsigned i);  // 32-bit
  void set_sgpr(unsigned i, const z3::expr& v);
  z3::expr sgpr64(unsigned i) { return z3::concat(sgpr(i + 1), sgpr(i)); }
  void set_sgpr64(unsigned i, const z3::expr& v) { set_sgpr(i, v.extract(31, 0)), set_sgpr(i + 1, v.extract(63, 32)); }
  z3::expr vgpr(unsigned reg, unsigned lane);
  void set_vgpr(unsigned reg, unsigned lane, const z3::expr& v);
  z3::expr scc() const { return scc_; }
  void set_scc(const z3::expr& v) { scc_ = v, scc_written_ = true; }
  z3::expr exec64() { return sgpr64(emu::kExecLo); }
  z3::expr exec_bit(unsigned lane) { return sgpr(emu::kExecLo + lane / 32).extract(lane % 32, lane % 32) == c_.bv_val(1, 1); }
  // Memory: per space, the live-in memory is an array from 64-bit byte addresses to bytes ("mem",
  // "lds"); the window's stores are a list of guarded byte writes on top of it, so a read is a
  // chain of address comparisons (bit-vectors only) ending in one select of the live-in array.
  enum Space : unsigned { Global, Lds, kSpaces };
  z3::expr load_byte(const z3::expr& address, Space space = Global);
  void store_byte(const z3::expr& guard, const z3::expr& address, const z3::expr& byte, Space space = Global) {
    writes_.push_back({guard, address, byte, space});
    global_after_barrier |= space == Global && !barrier_memory_.empty();
    ++writes_in_[space];
    mem_written_ = true;
    space_written_[space] = true;
  }
  bool space_written(Space s) const { return space_written_[s]; }
  // The cost bound: a load of `bytes` bytes (all its running lanes together) is about to be built through every earlier
  // byte write of its space, `bytes x writes` links (an address compare and an ite each). Throws
  // Unsupported (UNKNOWN) BEFORE building when the window's total would pass `max_memory_links`:
  // Z3 spends minutes building and freeing such chains, outside the solver's timeout.
  void reserve_load(unsigned bytes, Space space);
  uint64_t memory_links() const { return *memory_links_; }
  uint64_t max_memory_links = UINT64_MAX;
  // s_barrier (docs/prove.md "Barriers"): an ordering point of the memory effects. It records
  // each space's memory as this wave sees it there (one byte at the symbolic address both windows'
  // comparisons use), then forgets the window's writes of the spaces other waves may have written
  // meanwhile: their bytes after the k-th barrier are a free array ("lds.b1", "mem.b1") that both
  // windows share, so a load or store moved across a barrier reads or leaves a different memory.
  // `havoc_global` false keeps global memory (a run in which no other wave writes it).
  void barrier();
  bool havoc_global = true;
  bool global_after_barrier = false;  // a global load or store followed a barrier (so havoc_global matters)
  // The memory at each barrier this path passed: [k][space], the byte at compared_address(space).
  const std::vector<std::vector<z3::expr>>& barrier_memory() const { return barrier_memory_; }
  z3::expr compared_address(Space s) const { return c_.bv_const(s == Lds ? "lds_address" : "address", 64); }
  // The workgroup's LDS allocation in bytes (a free variable both windows share): an LDS dword at
  // or past it reads 0 and is not written (emu/semantics/ds.cpp).
  z3::expr lds_size() const { return c_.bv_const("lds_size", 64); }

  // Concrete live-in values instead of free variables (tests: terms then simplify to numerals).
  void preset_sgpr(unsigned i, uint32_t v) { s_.insert_or_assign(i, c_.bv_val(v, 32)); }
  void preset_vgpr(unsigned reg, const uint32_t* lanes) {
    std::vector<z3::expr> l;
    for (unsigned i = 0; i < kLanes; ++i) l.push_back(c_.bv_val(lanes[i], 32));
    v_.insert_or_assign(reg, std::move(l));
  }
  void preset_scc(bool v) { scc_ = c_.bool_val(v); }
  void free_vgpr_lane(unsigned reg, unsigned lane) {
    vgpr(reg, lane);
    v_.at(reg)[lane] = c_.bv_const(fmt::format("v{}.l{}", reg, lane).c_str(), 32);
  }

  const std::set<unsigned>& sgprs_written() const { return s_written_; }
  const std::set<unsigned>& vgprs_written() const { return v_written_; }
  bool scc_written() const { return scc_written_; }
  bool memory_written() const { return mem_written_; }
  bool used_uninterpreted = false;  // a unit was modeled as an uninterpreted function (or NaN bits were)
  bool flush_f32 = false;           // MODE's FP_DENORM for f32 is 0: f32 denormal inputs and results flush to ±0
  unsigned round_mode = 0;          // MODE's FP_ROUND (only 0, round to nearest even, is modeled: as the emulator)
  uint32_t mode_bits = 0xf0;        // the whole MODE (the emulator's units read it when they evaluate constants)
  bool touched_memory = false;      // a load or store ran

 private:
  z3::context& c_;
  std::map<unsigned, z3::expr> s_;
  std::map<unsigned, std::vector<z3::expr>> v_;
  z3::expr scc_;
  struct ByteWrite {
    z3::expr guard, address, byte;
    Space space;
  };
  bool space_written_[kSpaces] = {};
  uint64_t writes_in_[kSpaces] = {};
  // Shared by the copies run_paths makes at branches: the bound is on the whole window's terms.
  std::shared_ptr<uint64_t> memory_links_ = std::make_shared<uint64_t>(0);
  std::vector<ByteWrite> writes_;
  unsigned epoch_[kSpaces] = {};  // barriers that forgot this space's bytes (its live-in array's name)
  std::vector<std::vector<z3::expr>> barrier_memory_;
  std::set<unsigned> s_written_, v_written_;
  bool scc_written_ = false, mem_written_ = false;
};

// Whether step() models the instruction (a unit the prover reads, no cross-lane form).
bool supported(const emu::ExecInst& in);
// Runs one pre-decoded instruction on the machine; throws Unsupported.
void step(Machine& m, const emu::ExecInst& in);
// A branch's condition on the machine (s_cbranch_scc0/scc1/vccz/vccnz/execz/execnz; true for
// s_branch), the condition the emulator's units in emu/semantics/sopp.cpp test; nullopt when the
// instruction is no branch the prover follows.
std::optional<z3::expr> branch_condition(Machine& m, const emu::ExecInst& in);

}  // namespace asmevo::prove
