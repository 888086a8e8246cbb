// `asmevo report`: one self-contained HTML page (no external scripts, styles or fonts; plots are
// inline SVG) that shows what an optimize run family did, from its experiment store alone.
//
// Per kernel: a header with the baseline and final figures (each labelled modeled or measured, per
// kernels.figure_kind), the best speedup against candidates tried, the hot windows' cycle shares of
// K0 and of the final candidate, acceptance per proposer and per move, the accepted edits in
// lineage order as side-by-side diffs with per-line cycles, the verification evidence and every
// candidate with its stages (and LLM transcript, collapsed).
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace asmevo::search {

// Escapes text for HTML element content and attribute values (& < > " '); bytes that are not
// UTF-8 become \xNN first.
std::string html_escape(std::string_view s);


// The report of the store at `db_path`, opened read-only (the file is never changed). Throws
// asmevo::Error (exit code 2) when it is missing or not an AsmEvo store.
std::string render_report(const std::string& db_path);

// render_report, written atomically to `out_path` (temporary file beside it, then rename).
void write_report(const std::string& db_path, const std::string& out_path);

}  // namespace asmevo::search
