// The LDS race check (emu/lds_races.h, RunOptions::lds_races, `asmevo run --lds-races`) and the wave
// schedules it explains: two waves of one workgroup (block 128) exchange a dword per lane through LDS.
// Without an s_barrier between the write and the other wave's read the result depends on the
// schedule (as on hardware, on timing) and the check names both instructions; with the barrier it
// stays silent and every schedule agrees. DS atomics from several waves are not a race, nor are stores of
// one value to one byte by several waves (the byte ends the same in either order).
#include <gtest/gtest.h>

#include <cstring>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "tests/emu/emu_test_util.h"

namespace asmevo::emu::test {
namespace {

// Runs `body` with 2 waves; returns v10 of each of the 128 lanes.
std::vector<uint32_t> run_two_waves(const std::string& body, WaveSchedule schedule, bool lds_races) {
  auto co = codeobj::CodeObject::parse(assemble_kernel("gfx942", body, 1), "lds-races");
  const codeobj::Kernel* k = co.kernel("k");
  program::Decoder dec(co.target());
  auto prog = Program::build(co, *k, dec);
  auto spec = parse_launch_spec_text("kernel: k\ngrid: [1, 1, 1]\nblock: [128, 1, 1]\nargs:\n  - {name: out, buffer: u32, count: 128}\n",
                                     "lds-races");
  auto launch = prepare_launch(co, *k, spec, 1);
  RunOptions ro;
  ro.schedule = schedule;
  ro.lds_races = lds_races;
  run_launch(*launch, *prog, ro);
  auto b = launch->contents(launch->buffers[0]);
  std::vector<uint32_t> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

std::string race_error(const std::string& body, WaveSchedule schedule = WaveSchedule::InOrder) {
  try {
    run_two_waves(body, schedule, true);
  } catch (const Error& e) {
    return e.format();
  }
  return "(no error)";
}

// Lane t writes t at LDS 4t, then reads the slot of lane t ^ 64 (the other wave) into v10.
std::string exchange(bool barrier) {
  return std::string(R"(
  v_lshlrev_b32_e32 v1, 2, v0
  ds_write_b32 v1, v0
  v_xor_b32_e32 v2, 64, v0
  v_lshlrev_b32_e32 v2, 2, v2
)") + (barrier ? "  s_waitcnt lgkmcnt(0)\n  s_barrier\n" : "") + R"(
  ds_read_b32 v10, v2
  s_waitcnt lgkmcnt(0)
)";
}

TEST(EmuLdsRaces, MissingBarrierIsNamedAndScheduleDependent) {
  // In order, wave 0 writes and reads before wave 1 runs: wave 1's write is the second access of the pair.
  std::string err = race_error(exchange(false));
  EXPECT_NE(err.find("wave 1, pc 0x"), std::string::npos) << err;
  EXPECT_NE(err.find("ds_write_b32 v1, v0: LDS race (write-after-read)"), std::string::npos) << err;
  EXPECT_NE(err.find("wave 0 read it with 'ds_read_b32 v10, v2'"), std::string::npos) << err;
  // Interleaved, both write first: wave 0's read of wave 1's slot is the second access.
  err = race_error(exchange(false), WaveSchedule::Interleaved);
  EXPECT_NE(err.find("ds_read_b32 v10, v2: LDS race (read-after-write)"), std::string::npos) << err;
  EXPECT_NE(err.find("wave 1 wrote it with 'ds_write_b32 v1, v0'"), std::string::npos) << err;
  // In order, wave 0 reads before wave 1 has written (LDS starts as zeros); interleaved, after.
  auto in_order = run_two_waves(exchange(false), WaveSchedule::InOrder, false);
  auto interleaved = run_two_waves(exchange(false), WaveSchedule::Interleaved, false);
  EXPECT_EQ(in_order[0], 0u);
  EXPECT_EQ(interleaved[0], 64u);
}

TEST(EmuLdsRaces, AWriteAfterReadNamesTheOtherWavesOwnRead) {
  // Both waves read LDS 0, each with its own instruction; then wave 1 writes it. Wave 1 is the last
  // reader, so the report must name wave 0's read (v10), not wave 1's own (v11).
  const std::string body = R"(
  v_mov_b32_e32 v1, 0
  v_readfirstlane_b32 s2, v0
  s_cmp_ge_u32 s2, 64
  s_cbranch_scc1 .Lwave1
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
  s_branch .Ldone
.Lwave1:
  ds_read_b32 v11, v1
  s_waitcnt lgkmcnt(0)
  ds_write_b32 v1, v0
  s_waitcnt lgkmcnt(0)
.Ldone:
)";
  std::string err = race_error(body);
  EXPECT_NE(err.find("ds_write_b32 v1, v0: LDS race (write-after-read)"), std::string::npos) << err;
  EXPECT_NE(err.find("wave 0 read it with 'ds_read_b32 v10, v1'"), std::string::npos) << err;
}

TEST(EmuLdsRaces, BarrierOrdersTheExchange) {
  for (auto s : {WaveSchedule::InOrder, WaveSchedule::Reverse, WaveSchedule::Interleaved}) {
    auto out = run_two_waves(exchange(true), s, true);
    for (unsigned t = 0; t < 128; ++t) ASSERT_EQ(out[t], t ^ 64u) << schedule_name(s) << " lane " << t;
  }
}

TEST(EmuLdsRaces, AtomicsFromSeveralWavesAreNotARace) {
  // Every lane of both waves adds 1 at LDS 0; after the barrier each lane reads the count.
  const std::string body = R"(
  v_mov_b32_e32 v1, 0
  v_mov_b32_e32 v2, 1
  ds_add_u32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
)";
  auto out = run_two_waves(body, WaveSchedule::InOrder, true);
  for (unsigned t = 0; t < 128; ++t) ASSERT_EQ(out[t], 128u) << "lane " << t;
}

// Every lane of both waves stores `value(lane)` at LDS [0, 4) with no barrier, then (after one) reads it.
std::string store_to_one_slot(const std::string& value) {
  return R"(
  v_mov_b32_e32 v1, 0
)" + value + R"(
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  s_barrier
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
)";
}

TEST(EmuLdsRaces, StoresOfOneValueByTwoWavesAreNotARace) {
  // Triton's output staging: every wave stores the same result to the same slot.
  for (auto s : {WaveSchedule::InOrder, WaveSchedule::Reverse, WaveSchedule::Interleaved}) {
    auto out = run_two_waves(store_to_one_slot("  v_mov_b32_e32 v2, 7"), s, true);
    for (unsigned t = 0; t < 128; ++t) ASSERT_EQ(out[t], 7u) << schedule_name(s) << " lane " << t;
  }
  // Different values (the wave id): the last wave decides, so it is a race.
  std::string err = race_error(store_to_one_slot("  v_lshrrev_b32_e32 v2, 6, v0"));
  EXPECT_NE(err.find("wave 1, pc 0x"), std::string::npos) << err;
  EXPECT_NE(err.find("ds_write_b32 v1, v2: LDS race (write-after-write)"), std::string::npos) << err;
  EXPECT_NE(err.find("wave 0 wrote it with 'ds_write_b32 v1, v2'"), std::string::npos) << err;
}

TEST(EmuLdsRaces, OneValueStoredTwiceStillRacesWithAnotherValueOrAReader) {
  // Both waves store 7 at LDS 0; then wave 0 (not the last writer in order) reads it with no barrier:
  // it may run before wave 1's store, so that is still a read-after-write race, however equal.
  const std::string reread = R"(
  v_mov_b32_e32 v1, 0
  v_mov_b32_e32 v2, 7
  ds_write_b32 v1, v2
  s_waitcnt lgkmcnt(0)
  ds_read_b32 v10, v1
  s_waitcnt lgkmcnt(0)
)";
  std::string err = race_error(reread, WaveSchedule::Interleaved);
  EXPECT_NE(err.find("ds_read_b32 v10, v1: LDS race (read-after-write)"), std::string::npos) << err;
  // Wave 1 stores 7 twice, then 8, after wave 0 stored 7: the third store changes what the order decides.
  const std::string rewrite = R"(
  v_mov_b32_e32 v1, 0
  v_mov_b32_e32 v2, 7
  ds_write_b32 v1, v2
  v_readfirstlane_b32 s2, v0
  s_cmp_ge_u32 s2, 64
  s_cbranch_scc0 .Ldone
  ds_write_b32 v1, v2
  v_mov_b32_e32 v3, 8
  ds_write_b32 v1, v3
.Ldone:
  s_waitcnt lgkmcnt(0)
)";
  err = race_error(rewrite);
  EXPECT_NE(err.find("ds_write_b32 v1, v3: LDS race (write-after-write)"), std::string::npos) << err;
  EXPECT_NE(err.find("wave 0 wrote it with 'ds_write_b32 v1, v2'"), std::string::npos) << err;
}

}  // namespace
}  // namespace asmevo::emu::test
