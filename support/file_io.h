// Reading inputs and writing outputs safely: inputs are never modified, outputs are atomic.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo {

// Reads a whole file; throws Error naming the path when it cannot.
std::vector<uint8_t> read_file_bytes(const std::string& path);
std::string read_file_text(const std::string& path);

// Writes to a temporary file beside `path`, fsyncs, then renames over `path`, so a reader
// sees either the old file or the complete new one, never a partial write.
void write_file_atomic(const std::string& path, const void* data, size_t size);
inline void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}
inline void write_file_atomic(const std::string& path, const std::string& text) {
  write_file_atomic(path, text.data(), text.size());
}

}  // namespace asmevo
