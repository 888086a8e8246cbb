#include "prove/inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

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
  if (ctx.free.empty()) return out.note = "no live-in register of the window derives from an input element", out;
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
  out.run = verify::with_elements(base, st, elements, fmt::format("proof counterexample ({} element(s))", elements.size()));
  if (!out.run) out.note = "the counterexample sets no input element";
  return out;
}

}  // namespace asmevo::prove
