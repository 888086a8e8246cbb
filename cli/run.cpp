// asmevo run FILE --kernel K --launch SPEC.yaml [--out DIR] [--inputs-out DIR] [--threads N] [--schedule S] [--lds-races] [--json]
#include "cli/run.h"

#include <filesystem>
#include <thread>
#include <fmt/format.h>
#include <iostream>
#include <nlohmann/json.hpp>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/executor.h"
#include "emu/launch_spec.h"
#include "emu/npy.h"
#include "emu/program.h"
#include "program/decoder.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::cli {

int run_run(const RunOptions& o) {
  emu::LaunchSpec spec = emu::load_launch_spec(o.launch);
  std::string kname = o.kernel.empty() ? spec.kernel : o.kernel;
  if (!o.kernel.empty() && o.kernel != spec.kernel)
    throw Error("--kernel " + o.kernel + " but the launch spec is for " + spec.kernel, o.launch);
  auto co = codeobj::CodeObject::parse(read_file_bytes(o.file), o.file);
  const codeobj::Kernel* k = co.kernel(kname);
  if (!k) {
    std::string names;
    for (const auto& kk : co.kernels()) names += (names.empty() ? "" : ", ") + kk.name;
    throw Error("no kernel named " + kname, o.file, "kernels in this file: " + names);
  }
  program::Decoder decoder(co.target());
  auto prog = emu::Program::build(co, *k, decoder);
  emu::RunOptions ro;
  ro.threads = o.threads;
  ro.schedule = o.schedule == "reverse"       ? emu::WaveSchedule::Reverse
                : o.schedule == "interleaved" ? emu::WaveSchedule::Interleaved
                                              : emu::WaveSchedule::InOrder;
  ro.lds_races = o.lds_races;
  unsigned slots = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  auto launch = emu::prepare_launch(co, *k, spec, slots);
  // Every buffer argument as `<name>.npy` (`arg<i>.npy` when unnamed) in `dir`; returns the paths.
  auto write_buffers = [&](const std::string& dir) {
    std::filesystem::create_directories(dir);
    nlohmann::json paths = nlohmann::json::array();
    for (const auto& b : launch->buffers) {
      std::string name = b.name.empty() ? "arg" + std::to_string(b.arg_index) : b.name;
      std::string path = (std::filesystem::path(dir) / (name + ".npy")).string();
      auto bytes = launch->contents(b);
      emu::write_npy(path, b.dtype, bytes.data(), b.bytes);
      paths.push_back(path);
    }
    return paths;
  };
  nlohmann::json inputs = nlohmann::json::array();
  if (!o.inputs_out.empty()) inputs = write_buffers(o.inputs_out);  // the buffers as the kernel will see them
  emu::RunResult rr = emu::run_launch(*launch, *prog, ro);
  for (const auto& b : launch->buffers)
    if (auto off = launch->first_broken_guard(b))
      throw Error(fmt::format("the kernel wrote outside buffer {}: the guard byte at offset {} from its start changed", b.label(), *off),
                  o.launch, "check the buffer's count in the launch spec, or the kernel's address arithmetic", kExitFailure);
  nlohmann::json files = write_buffers(o.out.empty() ? "." : o.out);
  // Accesses the launch allows without stopping (a buffer's guard zone, LDS past the allocation): the
  // kernel's over-reads, which a user must know about before trusting the outputs.
  nlohmann::json oob = nlohmann::json::array();
  for (const auto& a : launch->mem.out_of_bounds())
    oob.push_back({{"region", a.region}, {"pc", a.pc}, {"instruction", a.inst}, {"write", a.write},
                   {"lowest", a.lowest}, {"highest", a.highest}, {"lane_accesses", a.count}});
  const auto& st = rr.stats;
  double rate = rr.wall_seconds > 0 ? st.total() / rr.wall_seconds : 0;
  if (o.json) {
    nlohmann::json j = {{"schema", "asmevo.run/1"},
                        {"emulated", true},
                        {"kernel", kname},
                        {"file", o.file},
                        {"target", co.target().str()},
                        {"workgroups", st.workgroups},
                        {"waves", st.waves},
                        {"instructions",
                         {{"scalar", st.by_category[0]},
                          {"vector", st.by_category[1]},
                          {"memory", st.by_category[2]},
                          {"mfma", st.by_category[3]},
                          {"control", st.by_category[4]},
                          {"total", st.total()}}},
                        {"lane_instructions", st.lane_ops},
                        {"wall_seconds", rr.wall_seconds},
                        {"threads", rr.threads},
                        {"schedule", emu::schedule_name(ro.schedule)},
                        {"wave_instructions_per_second", rate},
                        {"out_of_bounds", oob},
                        {"outputs", files}};
    if (!o.inputs_out.empty()) j["inputs"] = inputs;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("emulated {} on {} ({} workgroups, {} waves, {} threads)\n", kname, co.target().str(),
                             st.workgroups, st.waves, rr.threads);
    std::cout << fmt::format("  instructions: {} scalar, {} vector, {} memory, {} MFMA, {} control ({} total, {} lane-ops)\n",
                             st.by_category[0], st.by_category[1], st.by_category[2], st.by_category[3], st.by_category[4],
                             st.total(), st.lane_ops);
    std::cout << fmt::format("  wall time {:.3f} s, {:.3g} wave-instructions/s, {:.3g} lane-instructions/s\n", rr.wall_seconds,
                             rate, rr.wall_seconds > 0 ? st.lane_ops / rr.wall_seconds : 0);
    for (const auto& a : launch->mem.out_of_bounds())
      std::cout << fmt::format("  out of bounds (not stopped): {} of bytes [{}, {}) from the start of {}, {} lane accesses, at 0x{:x} {}\n",
                               a.write ? "write" : "read", a.lowest, a.highest, a.region, a.count, a.pc, a.inst);
    for (const auto& f : inputs) std::cout << "  wrote input " << f.get<std::string>() << "\n";
    for (const auto& f : files) std::cout << "  wrote " << f.get<std::string>() << "\n";
  }
  return kExitOk;
}

}  // namespace asmevo::cli
