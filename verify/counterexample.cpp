#include "verify/counterexample.h"

#include <cctype>
#include <filesystem>
#include <fmt/format.h>
#include <system_error>

#include "emu/npy.h"
#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::verify {
namespace {

uint64_t fnv1a(uint64_t h, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

std::string file_stem(const std::string& label) {
  std::string s;
  for (char c : label) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return s.empty() ? "buffer" : s;
}

std::string yaml_string(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

}  // namespace

std::string concrete_spec_yaml(const emu::LaunchSpec& run, const std::vector<std::string>& input_files, const std::string& comment) {
  std::string y;
  for (size_t start = 0; start < comment.size();) {
    size_t end = comment.find('\n', start);
    if (end == std::string::npos) end = comment.size();
    y += "# " + comment.substr(start, end - start) + "\n";
    start = end + 1;
  }
  y += "kernel: " + run.kernel + "\n";
  y += fmt::format("grid: [{}, {}, {}]\nblock: [{}, {}, {}]\n", run.grid[0], run.grid[1], run.grid[2], run.block[0], run.block[1],
                   run.block[2]);
  y += fmt::format("dynamic_lds: {}\nseed: {}\npoison: 0x{:02x}\nargs:\n", run.dynamic_lds, run.seed, run.poison);
  for (size_t i = 0; i < run.args.size(); ++i) {
    const emu::ArgSpec& a = run.args[i];
    std::string name = a.name.empty() ? "" : "name: " + yaml_string(a.name) + ", ";
    if (a.kind == emu::ArgSpec::NullPointer) {
      y += "  - {" + name + "pointer: null}\n";
    } else if (a.kind == emu::ArgSpec::Value) {
      y += "  - {" + name + "value: " + yaml_string(a.value) + ", type: " + a.dtype + "}\n";
    } else {
      std::string e = fmt::format("  - {{{}buffer: {}, count: {}", name, a.dtype, a.count);
      if (a.direction == emu::ArgSpec::Output) e += ", output: true";
      if (a.direction == emu::ArgSpec::InOut) e += ", inout: true";
      if (a.direction != emu::ArgSpec::Output) {
        if (i < input_files.size() && !input_files[i].empty()) e += ", init: {file: " + yaml_string(input_files[i]) + "}";
        else if (a.init.kind == emu::InitSpec::Zeros) e += ", init: zeros";
        else throw Error("internal: a concrete run without an input file for buffer " + std::to_string(i), {}, {}, kExitInternal);
      }
      if (a.compared()) e += ", compare: " + a.compare.str();
      e += fmt::format(", guard: {}, align: {}, special: false}}\n", a.guard, a.align);
      y += e;
    }
  }
  return y;
}

std::string save_counterexample(const std::string& dir, const Reference& ref, size_t run_index, const RunOutcome& candidate) {
  const emu::LaunchSpec& run = ref.runs().at(run_index);
  const RunOutcome& k0 = ref.outcomes().at(run_index);
  std::vector<std::string> files(run.args.size());
  for (const auto& b : k0.buffers)
    if (b.direction != emu::ArgSpec::Output) files[b.arg_index] = "inputs/" + file_stem(b.label) + ".npy";
  std::string spec = concrete_spec_yaml(
      run, files,
      fmt::format("Counterexample saved by asmevo verify: {} of {} exposed a difference.\n"
                  "Reuse: asmevo verify K0 K1 --launch <this file>  (or --regressions <its parent folder>)",
                  run.label, run.path));
  uint64_t h = fnv1a(0xcbf29ce484222325ull, spec.data(), spec.size());
  for (const auto& b : k0.buffers) h = fnv1a(h, b.before.data(), b.before.size());
  namespace fs = std::filesystem;
  const fs::path final_dir = fs::path(dir) / fmt::format("{}-{:016x}", file_stem(run.kernel), h);
  if (fs::exists(final_dir)) return final_dir.string();
  const fs::path tmp = fs::path(dir) / fmt::format(".tmp-{}-{:016x}", file_stem(run.kernel), h);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp / "inputs", ec);
  fs::create_directories(tmp / "expected", ec);
  fs::create_directories(tmp / "candidate", ec);
  if (ec) throw Error("cannot create " + tmp.string() + ": " + ec.message(), dir, "choose a writable --counterexamples folder");
  for (size_t i = 0; i < k0.buffers.size(); ++i) {
    const BufferResult& b = k0.buffers[i];
    const std::string stem = file_stem(b.label) + ".npy";
    if (b.direction != emu::ArgSpec::Output) emu::write_npy((tmp / "inputs" / stem).string(), b.dtype, b.before.data(), b.before.size());
    if (b.direction != emu::ArgSpec::Input) {
      emu::write_npy((tmp / "expected" / stem).string(), b.dtype, b.after.data(), b.after.size());
      const auto& c = candidate.buffers.at(i).after;
      emu::write_npy((tmp / "candidate" / stem).string(), b.dtype, c.data(), c.size());
    }
  }
  write_file_atomic((tmp / "spec.yaml").string(), spec);
  fs::rename(tmp, final_dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    if (!fs::exists(final_dir)) throw Error("cannot move the counterexample into " + final_dir.string(), dir);
  }
  return final_dir.string();
}

}  // namespace asmevo::verify
