// Decode throughput (instructions/s) of program::Decoder on a large .text, against LLVM's bare
// MCDisassembler + MCInstPrinter on the same bytes, which bounds what the model can reach.
#include "program/decoder.h"

#include <benchmark/benchmark.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdlib>
#include <stdexcept>

namespace {

using asmevo::program::Decoder;

struct Text {
  std::string target;  // processor to decode for (the default object is gfx942)
  uint64_t address = 0;
  std::vector<uint8_t> bytes;
};

const Text& text() {
  static const Text t = [] {
    const char* env = std::getenv("ASMEVO_BENCH_CODE_OBJECT");
    std::string path = env ? env : ASMEVO_BENCH_CODE_OBJECT_DEFAULT;
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) throw std::runtime_error("cannot read " + path);
    auto obj = llvm::cantFail(llvm::object::ObjectFile::createObjectFile((*buf)->getMemBufferRef()));
    for (const auto& sec : obj->sections()) {
      if (llvm::cantFail(sec.getName()) != ".text") continue;
      llvm::StringRef c = llvm::cantFail(sec.getContents());
      return Text{"gfx942", sec.getAddress(), std::vector<uint8_t>(c.begin(), c.end())};
    }
    throw std::runtime_error("no .text in " + path);
  }();
  return t;
}

const Decoder& decoder() {
  static const Decoder d(*asmevo::codeobj::parse_target_id(text().target));
  return d;
}

// The whole model: decode, print, operands, defs/uses, class, flags.
void BM_DecodeRange(benchmark::State& state) {
  const Text& t = text();
  size_t n = 0;
  for (auto _ : state) {
    auto insts = decoder().decode_range(t.bytes, t.address);
    n = insts.size();
    benchmark::DoNotOptimize(insts.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(n) * state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(t.bytes.size()) * state.iterations());
  state.counters["instructions"] = static_cast<double>(n);
}
BENCHMARK(BM_DecodeRange)->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(1)->Threads(2);

// decode_one per instruction (one pool lease each) instead of one lease per range.
void BM_DecodeOneByOne(benchmark::State& state) {
  const Text& t = text();
  std::span<const uint8_t> all(t.bytes);
  size_t n = 0;
  for (auto _ : state) {
    n = 0;
    for (size_t off = 0; off < all.size(); ++n) {
      auto inst = decoder().decode_one(all.subspan(off), t.address + off);
      off += inst.size;
      benchmark::DoNotOptimize(inst.cls);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(n) * state.iterations());
}
BENCHMARK(BM_DecodeOneByOne)->Unit(benchmark::kMillisecond);

// Baseline: LLVM alone (getInstruction + printInst into a reused string), no model.
void BM_LlvmOnly(benchmark::State& state) {
  asmevo::program::initialize_llvm_amdgpu();
  llvm::Triple tt("amdgcn-amd-amdhsa");
  std::string err;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(tt, err);
  llvm::MCTargetOptions opts;
  std::unique_ptr<llvm::MCRegisterInfo> mri(target->createMCRegInfo(tt));
  std::unique_ptr<llvm::MCAsmInfo> mai(target->createMCAsmInfo(*mri, tt, opts));
  std::unique_ptr<llvm::MCInstrInfo> mii(target->createMCInstrInfo());
  std::unique_ptr<llvm::MCSubtargetInfo> sti(target->createMCSubtargetInfo(tt, "gfx942", ""));
  llvm::MCContext ctx(tt, mai.get(), mri.get(), sti.get());
  std::unique_ptr<llvm::MCDisassembler> dis(target->createMCDisassembler(*sti, ctx));
  std::unique_ptr<llvm::MCInstPrinter> printer(target->createMCInstPrinter(tt, 0, *mai, *mii, *mri));
  const Text& t = text();
  llvm::ArrayRef<uint8_t> all(t.bytes);
  std::string s;
  size_t n = 0;
  for (auto _ : state) {
    n = 0;
    for (uint64_t off = 0, size = 0; off < all.size(); off += size, ++n) {
      llvm::MCInst mi;
      if (dis->getInstruction(mi, size, all.slice(off), t.address + off, llvm::nulls()) ==
          llvm::MCDisassembler::Fail)
        size = 4;
      s.clear();
      llvm::raw_string_ostream os(s);
      printer->printInst(&mi, t.address + off, "", *sti, os);
      benchmark::DoNotOptimize(s.data());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(n) * state.iterations());
}
BENCHMARK(BM_LlvmOnly)->Unit(benchmark::kMillisecond);

// Creating a Decoder once the process-wide LLVM objects exist (one per code object in inspect).
void BM_ConstructDecoder(benchmark::State& state) {
  decoder();
  auto target = *asmevo::codeobj::parse_target_id("gfx90a");
  for (auto _ : state) {
    Decoder d(target);
    benchmark::DoNotOptimize(&d);
  }
}
BENCHMARK(BM_ConstructDecoder)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
