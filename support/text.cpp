#include "support/text.h"

#include <cstdio>
#include <sstream>

namespace asmevo {
namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
  // Reject overlong encodings and surrogates/out-of-range code points.
  if (n == 2 && c < 0xc2) return 0;
  if (n == 3) {
    unsigned cp = ((c & 0x0f) << 12) | ((byte(i + 1) & 0x3f) << 6) | (byte(i + 2) & 0x3f);
    if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  }
  if (n == 4) {
    unsigned cp = ((c & 0x07) << 18) | ((byte(i + 1) & 0x3f) << 12) | ((byte(i + 2) & 0x3f) << 6) | (byte(i + 3) & 0x3f);
    if (cp < 0x10000 || cp > 0x10ffff) return 0;
  }
  return n;
}

}  // namespace

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(s[i]));
      out += buf;
      ++i;
    }
  }
  return out;
}

std::vector<std::string> split_nonempty(const std::string& s, char separator) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, separator))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::vector<std::string> split_commas(const std::string& s) { return split_nonempty(s, ','); }

}  // namespace asmevo
