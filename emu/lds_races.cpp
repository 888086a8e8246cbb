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
                            const uint8_t* data) {
  const unsigned me = w.id_in_group;
  if (me >= 16) fail(ctx, w, in, "the LDS race check tracks at most 16 waves per workgroup");
  const bool write = data != nullptr;
  const uint16_t me_bit = static_cast<uint16_t>(1u << me);
  const uint32_t index = static_cast<uint32_t>(&in - ctx.program->insts().data());
  const uint32_t now = epoch_ + 1;
  for (uint64_t a = addr; a < addr + size && a < bytes_.size(); ++a) {
    Byte& b = bytes_[a];
    // Whether this store changes the byte (ctx.lds holds it until the caller stores).
    const bool changes = write && (a >= ctx.lds_size || ctx.lds[a] != data[a - addr]);
    const char* kind = nullptr;
    std::string other;
    if (!write && b.write_epoch == now && b.writer != me) {
      // The last writer may be any of several that stored the same value; a reader that is not the
      // last writer may see the byte before it.
      kind = "read-after-write";
      other = fmt::format("wave {} wrote it with {}", b.writer, describe(ctx, b.write_pc));
    } else if (write && b.write_epoch == now && (b.writers & ~me_bit) && (changes || b.rewritten)) {
      // Another wave wrote it in this epoch, and not every write stored one value: the order decides.
      const bool last_is_other = b.writer != me;
      kind = "write-after-write";
      other = fmt::format("wave {} wrote it with {}", last_is_other ? b.writer : b.earlier_writer,
                          describe(ctx, last_is_other ? b.write_pc : b.earlier_write_pc));
    } else if (write && b.read_epoch == now && (b.readers & ~me_bit)) {
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
      if (b.write_epoch != now) b.write_epoch = now, b.writers = 0, b.rewritten = false;
      else b.rewritten = b.rewritten || changes;
      if (b.writer != me) b.earlier_writer = b.writer, b.earlier_write_pc = b.write_pc;
      b.writers |= me_bit, b.writer = static_cast<uint8_t>(me), b.write_pc = index;
    } else {
      if (b.read_epoch != now) b.read_epoch = now, b.readers = 0;
      else if (b.reader != me) b.earlier_reader = b.reader, b.earlier_read_pc = b.read_pc;
      b.readers |= me_bit, b.reader = static_cast<uint8_t>(me), b.read_pc = index;
    }
  }
}

}  // namespace asmevo::emu
