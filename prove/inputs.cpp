#include "prove/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "prove/launch_facts.h"
#include "verify/aimed.h"

namespace asmevo::prove {

ContextProof prove_in_context(verify::Backend& backend, const verify::LoadedKernel& k0, const program::Program& parent,
                              const std::string& kernel, const std::vector<Change>& changes, const emu::LaunchSpec& base,
                              ProofOptions options) {
  ContextProof out;
  if (changes.empty()) return out.note = "empty edit", out;
  size_t first = changes[0].first;
  for (const Change& c : changes) first = std::min(first, c.first);
  // The window's entry: its first instruction line.
  std::optional<uint64_t> pc;
  for (size_t i = first; i < parent.text_line_count() && !pc; ++i) {
    const program::Line& l = parent.text_line(i);
    if (l.is_instruction()) pc = l.address;
  }
  if (!pc) return out.note = "the window has no instruction", out;
  verify::ObservedState st = verify::observe_at(backend, k0, base, *pc);
  if (!st.reached) return out.note = fmt::format("the original never reached 0x{:x} in the observed workgroups", *pc), out;
  LiveInState ctx;
  ctx.s = st.s;
  ctx.scc = st.scc;
  ctx.v = st.v;
  for (const auto& [where, origin] : st.origins) ctx.free.insert(where);
  // Scalar arguments: an SGPR that holds a by-value kernarg dword at the window (a launch fact
  // with a range) is free within the admitted values; the model's value becomes the argument's.
  std::map<unsigned, size_t> scalar_arg;  // SGPR -> explicit argument index
  if (options.launch) {
    options.facts = launch_facts(parent, kernel, first, *options.launch);
    const codeobj::KernelMetadata* md = parent.metadata() ? parent.metadata()->kernel(kernel) : nullptr;
    for (const RegisterFact& f : options.facts) {
      if (f.vector || f.kernarg_offset < 0 || f.min == f.max || !md) continue;
      size_t index = 0;
      for (const codeobj::KernelArg& a : md->args) {
        if (a.is_hidden()) continue;
        if (a.value_kind == "by_value" && a.size == 4 && a.offset == static_cast<uint64_t>(f.kernarg_offset) && index < base.args.size() &&
            base.args[index].kind == emu::ArgSpec::Value && base.args[index].vary)
          scalar_arg[f.reg] = index, ctx.free_sgprs.insert(f.reg);
        ++index;
      }
    }
  }
  if (ctx.free.empty() && ctx.free_sgprs.empty())
    return out.note = "no live-in register of the window derives from an input element or a varied scalar argument", out;
  options.context = &ctx;
  options.extend_to_block_end = true;
  out.proof = prove_edit(parent, kernel, changes, options, /*use_liveness=*/true);
  if (out.proof.live_in.empty())
    return out.note = std::string("no counterexample in the original's context (") + verdict_name(out.proof.verdict) + ")", out;
  std::vector<std::tuple<size_t, uint64_t, double>> elements;
  std::set<std::pair<size_t, uint64_t>> seen;
  for (const LiveInValue& v : out.proof.live_in) {
    if (!v.vector) continue;
    auto x = st.element_value(v.reg, v.lane, v.value);
    if (!x) continue;
    const verify::ElementOrigin& o = st.origins.at({v.reg, v.lane});
    if (!seen.insert({o.arg, o.element}).second) continue;  // the first lane's value for an element
    elements.emplace_back(o.arg, o.element, *x);
  }
  out.elements = elements.size();
  // Scalar arguments the model moved, kept only inside the argument's `vary:` range (where every
  // buffer is large enough).
  std::vector<std::pair<size_t, int64_t>> scalars;
  for (const LiveInValue& v : out.proof.live_in) {
    auto it = v.vector ? scalar_arg.end() : scalar_arg.find(v.reg);
    if (it == scalar_arg.end() || v.value == st.s[v.reg]) continue;
    const emu::ArgSpec& a = base.args[it->second];
    const int64_t x = a.dtype == "u32" ? static_cast<int64_t>(v.value) : static_cast<int64_t>(static_cast<int32_t>(v.value));
    if (x >= a.vary->first && x <= a.vary->second) scalars.emplace_back(it->second, x);
  }
  std::string label = fmt::format("proof counterexample ({} element(s)", elements.size());
  for (const auto& [i, x] : scalars) label += fmt::format(", {} = {}", base.args[i].name.empty() ? "arg" + std::to_string(i) : base.args[i].name, x);
  label += ")";
  if (!elements.empty()) out.run = verify::with_elements(base, st, elements, label);
  else if (!scalars.empty()) out.run = base, out.run->label = label;
  if (out.run)
    for (const auto& [i, x] : scalars) out.run->args[i].value = std::to_string(x);
  out.scalars = scalars.size();
  if (!out.run) out.note = "the counterexample sets no input element and no scalar argument";
  return out;
}

}  // namespace asmevo::prove
