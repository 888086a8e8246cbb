// NumPy .npy files (format 1.0): write a typed buffer, read one back. Little-endian, C order, 1-D.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace asmevo::emu {

// NumPy descr for a launch-spec dtype ("f32" -> "<f4", "bf16" -> "<u2" since NumPy has no bf16).
std::string npy_descr(const std::string& dtype);

std::vector<uint8_t> encode_npy(const std::string& dtype, const void* data, size_t bytes);
void write_npy(const std::string& path, const std::string& dtype, const void* data, size_t bytes);

struct NpyArray {
  std::string descr;  // "<f4"
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
  size_t element_size = 0;
};
// Throws asmevo::Error naming the path on malformed files or unsupported layouts (Fortran order, big-endian).
NpyArray read_npy(const std::string& path);
NpyArray decode_npy(const std::vector<uint8_t>& bytes, const std::string& where);

}  // namespace asmevo::emu
