#include "tests/support/object_text.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <stdexcept>

namespace asmevo::testing {

TextSection read_text_section(const std::filesystem::path& file) {
  auto buf = llvm::MemoryBuffer::getFile(file.string());
  if (!buf) throw std::runtime_error("cannot read " + file.string());
  auto obj = llvm::object::ObjectFile::createObjectFile((*buf)->getMemBufferRef());
  if (!obj) {
    llvm::consumeError(obj.takeError());
    throw std::runtime_error("not an object file: " + file.string());
  }
  for (const auto& sec : (*obj)->sections()) {
    auto name = sec.getName();
    if (!name || *name != ".text") {
      if (!name) llvm::consumeError(name.takeError());
      continue;
    }
    auto contents = sec.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      break;
    }
    return TextSection{sec.getAddress(), std::vector<uint8_t>(contents->begin(), contents->end())};
  }
  throw std::runtime_error("no .text in " + file.string());
}

}  // namespace asmevo::testing
