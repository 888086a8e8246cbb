// Text helpers for names that come from binaries and may hold arbitrary bytes.
#pragma once
#include <string>
#include <string_view>

namespace asmevo {

// Returns `s` unchanged when it is valid UTF-8; otherwise each byte that breaks UTF-8 is
// written as "\xNN", so the result is always valid UTF-8 (safe for JSON and terminals).
std::string sanitize_utf8(std::string_view s);

}  // namespace asmevo
