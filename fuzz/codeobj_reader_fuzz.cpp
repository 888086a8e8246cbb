// libFuzzer target for the code-object reader: any byte string must either parse or raise
// asmevo::Error — never crash, hang, or trip AddressSanitizer.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "codeobj/code_object.h"
#include "codeobj/container.h"
#include "support/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  try {
    for (auto& emb : asmevo::codeobj::extract_code_objects(bytes, "fuzz")) {
      try {
        auto co = asmevo::codeobj::CodeObject::parse(std::move(emb.bytes), emb.origin);
        for (const auto& k : co.kernels()) {
          (void)co.code_bytes(k);
          (void)k.kd.encode();
        }
        if (co.metadata()) (void)co.metadata()->to_json().dump();
      } catch (const asmevo::Error&) {
      }
    }
  } catch (const asmevo::Error&) {
  }
  return 0;
}
