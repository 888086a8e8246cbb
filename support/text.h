// Text helpers: names that come from binaries and may hold arbitrary bytes, and command-line lists.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace asmevo {

// Returns `s` unchanged when it is valid UTF-8; otherwise each byte that breaks UTF-8 is
// written as "\xNN", so the result is always valid UTF-8 (safe for JSON and terminals).
std::string sanitize_utf8(std::string_view s);

// The non-empty items of a comma-separated list (an option such as `--only a,b`).
// The non-empty pieces of `s` between `separator`s.
std::vector<std::string> split_nonempty(const std::string& s, char separator);
std::vector<std::string> split_commas(const std::string& s);  // split_nonempty(s, ',')

}  // namespace asmevo
