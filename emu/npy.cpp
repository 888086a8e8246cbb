#include "emu/npy.h"

#include <cstring>

#include "support/error.h"
#include "support/file_io.h"

namespace asmevo::emu {

std::string npy_descr(const std::string& d) {
  if (d == "f32") return "<f4";
  if (d == "f64") return "<f8";
  if (d == "f16") return "<f2";
  if (d == "i8") return "|i1";
  if (d == "u8" || d.rfind("fp8", 0) == 0) return "|u1";
  if (d == "i16") return "<i2";
  if (d == "u16" || d == "bf16") return "<u2";
  if (d == "i32") return "<i4";
  if (d == "u32") return "<u4";
  if (d == "i64") return "<i8";
  if (d == "u64") return "<u8";
  throw Error("no NumPy type for " + d);
}

std::vector<uint8_t> encode_npy(const std::string& dtype, const void* data, size_t bytes) {
  size_t esz = 1;
  std::string descr = npy_descr(dtype);
  esz = static_cast<size_t>(descr[2] - '0');
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + std::to_string(bytes / esz) + ",), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  out.push_back(static_cast<uint8_t>(header.size() & 0xff));
  out.push_back(static_cast<uint8_t>(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  const auto* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + bytes);
  return out;
}

void write_npy(const std::string& path, const std::string& dtype, const void* data, size_t bytes) {
  write_file_atomic(path, encode_npy(dtype, data, bytes));
}

NpyArray decode_npy(const std::vector<uint8_t>& b, const std::string& where) {
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) throw Error("not a .npy file", where);
  unsigned major = b[6];
  size_t hlen, hstart;
  if (major == 1) hlen = b[8] | (b[9] << 8), hstart = 10;
  else if (major == 2 || major == 3) {
    if (b.size() < 12) throw Error("truncated .npy header", where);
    hlen = b[8] | (b[9] << 8) | (b[10] << 16) | (size_t(b[11]) << 24), hstart = 12;
  } else throw Error("unsupported .npy version " + std::to_string(major), where);
  if (hstart + hlen > b.size()) throw Error("truncated .npy header", where);
  std::string h(b.begin() + hstart, b.begin() + hstart + hlen);
  NpyArray a;
  auto field = [&](const std::string& key) -> std::string {
    size_t p = h.find("'" + key + "'");
    if (p == std::string::npos) throw Error(".npy header lacks " + key, where);
    p = h.find(':', p) + 1;
    while (p < h.size() && h[p] == ' ') ++p;
    return h.substr(p);
  };
  std::string d = field("descr");
  if (d.size() < 5 || d[0] != '\'') throw Error("bad .npy descr", where);
  a.descr = d.substr(1, d.find('\'', 1) - 1);
  if (a.descr.size() < 3 || a.descr[0] == '>') throw Error("unsupported .npy dtype " + a.descr + " (need little-endian)", where);
  a.element_size = std::stoul(a.descr.substr(2));
  if (field("fortran_order").rfind("True", 0) == 0) throw Error("Fortran-order .npy files are not supported", where);
  std::string s = field("shape");
  size_t close = s.find(')');
  std::string dims = s.substr(1, close - 1);
  uint64_t n = 1;
  size_t p = 0;
  while (p < dims.size()) {
    while (p < dims.size() && (dims[p] == ' ' || dims[p] == ',')) ++p;
    if (p >= dims.size()) break;
    size_t q = p;
    while (q < dims.size() && isdigit(static_cast<unsigned char>(dims[q]))) ++q;
    uint64_t v = std::stoull(dims.substr(p, q - p));
    a.shape.push_back(v);
    n *= v;
    p = q;
  }
  size_t off = hstart + hlen;
  if (b.size() - off != n * a.element_size) throw Error(".npy data size does not match its shape", where);
  a.data.assign(b.begin() + off, b.end());
  return a;
}

NpyArray read_npy(const std::string& path) { return decode_npy(read_file_bytes(path), path); }

}  // namespace asmevo::emu
