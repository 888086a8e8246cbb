#include "emu/lds_races.h"

#include <fmt/format.h>

#include "emu/context.h"
#include "emu/program.h"
#include "emu/wave.h"

namespace asmevo::emu {

namespace {
std::string describe(const ExecContext& ctx, uint32_t index) {
  const ExecInst& in = ctx.program->insts()[index];
  return fmt::format("'{}' at 0x{:x}", in.raw ? in.raw->text : std::string("?"), in.raw ? in.raw->address : in.address);
}
}  // namespace

void LdsRaceTracker::reset(uint32_t bytes) {
  bytes_.assign(bytes, Byte{});
  epoch_ = 0;
}

void LdsRaceTracker::access(const ExecContext& ctx, const Wave& w, const ExecInst& in, uint64_t addr, unsigned size,
                            bool write) {
  const unsigned me = w.id_in_group;
  if (me >= 16) fail(ctx, w, in, "the LDS race check tracks at most 16 waves per workgroup");
  const uint32_t index = static_cast<uint32_t>(&in - ctx.program->insts().data());
  const uint32_t now = epoch_ + 1;
  for (uint64_t a = addr; a < addr + size && a < bytes_.size(); ++a) {
    Byte& b = bytes_[a];
    const char* kind = nullptr;
    std::string other;
    if (b.write_epoch == now && b.writer != me) {
      kind = write ? "write-after-write" : "read-after-write";
      other = fmt::format("wave {} wrote it with {}", b.writer, describe(ctx, b.write_pc));
    } else if (write && b.read_epoch == now && (b.readers & ~(1u << me))) {
      // readers holds another wave, so when the last reader is this wave the earlier one is that other wave.
      const bool last_is_other = b.reader != me;
      kind = "write-after-read";
      other = fmt::format("wave {} read it with {}", last_is_other ? b.reader : b.earlier_reader,
                          describe(ctx, last_is_other ? b.read_pc : b.earlier_read_pc));
    }
    if (kind)
      fail(ctx, w, in,
           fmt::format("LDS race ({}): this wave {} LDS byte {}, and {}, with no s_barrier between them: on hardware "
                       "the result depends on which wave gets there first",
                       kind, write ? "writes" : "reads", a, other),
           -1, 0, "order the two accesses with an s_barrier (a kernel that relies on timing here is racy)");
    if (write) {
      b.write_epoch = now, b.writer = static_cast<uint8_t>(me), b.write_pc = index;
    } else {
      if (b.read_epoch != now) b.read_epoch = now, b.readers = 0;
      else if (b.reader != me) b.earlier_reader = b.reader, b.earlier_read_pc = b.read_pc;
      b.readers |= static_cast<uint16_t>(1u << me), b.reader = static_cast<uint8_t>(me), b.read_pc = index;
    }
  }
}

}  // namespace asmevo::emu
