#include "rebuild/assembler.h"

#include <llvm/ADT/SmallVector.h>
#include <llvm/MC/MCAsmBackend.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCCodeEmitter.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCObjectFileInfo.h>
#include <llvm/MC/MCObjectWriter.h>
#include <llvm/MC/MCParser/MCAsmParser.h>
#include <llvm/MC/MCParser/MCTargetAsmParser.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCStreamer.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "rebuild/llvm_recovery.h"
#include "program/decoder.h"
#include "support/error.h"

namespace asmevo::rebuild {
namespace {

constexpr const char* kTriple = "amdgcn-amd-amdhsa";
constexpr size_t kMaxReported = 10;  // diagnostics listed in one Error

struct Diagnostic {
  std::string file;
  int line = 0, col = 0;  // 1-based; 0 when LLVM gave no location
  bool warning = false;
  std::string message, line_text;
  std::string where() const {
    if (line <= 0) return file;
    return file + ":" + std::to_string(line) + ":" + std::to_string(col);
  }
};

struct Diagnostics {
  std::vector<Diagnostic> list;
  void add(const llvm::SMDiagnostic& d) {
    if (d.getKind() == llvm::SourceMgr::DK_Note || d.getKind() == llvm::SourceMgr::DK_Remark) {
      // Notes elaborate on the previous diagnostic ("while in macro instantiation").
      if (!list.empty()) list.back().message += " (note: " + d.getMessage().str() + ")";
      return;
    }
    Diagnostic x;
    x.file = d.getFilename().str();
    x.line = d.getLineNo();
    x.col = d.getColumnNo() + 1;
    x.warning = d.getKind() == llvm::SourceMgr::DK_Warning;
    x.message = d.getMessage().str();
    x.line_text = d.getLineContents().str();
    list.push_back(std::move(x));
  }
};

void source_diag_handler(const llvm::SMDiagnostic& d, void* ctx) { static_cast<Diagnostics*>(ctx)->add(d); }

[[noreturn]] void throw_diagnostics(const Diagnostics& diags, const std::string& source_name) {
  const Diagnostic& first = diags.list.front();
  auto render = [](const Diagnostic& d) {
    std::string s = (d.warning ? "warning treated as error: " : "") + d.message;
    if (!d.line_text.empty()) {
      std::string line = d.line_text;  // tabs shown as one space each, so the caret lines up
      for (char& c : line)
        if (c == '\t') c = ' ';
      s += "\n    " + line;
      if (d.col > 0) s += "\n    " + std::string(static_cast<size_t>(d.col - 1), ' ') + "^";
    }
    return s;
  };
  std::string what = render(first);
  size_t shown = std::min(diags.list.size(), kMaxReported);
  for (size_t i = 1; i < shown; ++i) what += "\n  " + diags.list[i].where() + ": " + render(diags.list[i]);
  if (diags.list.size() > shown)
    what += "\n  ... and " + std::to_string(diags.list.size() - shown) + " more diagnostics";
  throw Error(what, first.where().empty() ? source_name : first.where(),
              "fix the assembly text at the location shown (LLVM 22 AMDGPU assembler syntax)");
}

// Code object versions LLVM 22 accepts in `.amdhsa_code_object_version` without aborting.
// (A plain text scan: the directive is rare, so only its occurrences are examined.)
void check_code_object_versions(const std::string& text, const std::string& source_name) {
  static const std::string kDirective = ".amdhsa_code_object_version";
  for (size_t at = text.find(kDirective); at != std::string::npos; at = text.find(kDirective, at + 1)) {
    size_t line_start = text.rfind('\n', at);
    line_start = line_start == std::string::npos ? 0 : line_start + 1;
    // Only as the first token of a line (not inside a comment or a string).
    if (text.find_first_not_of(" \t", line_start) != at) continue;
    size_t d = text.find_first_not_of(" \t", at + kDirective.size());
    if (d == std::string::npos || !std::isdigit(static_cast<unsigned char>(text[d]))) continue;
    unsigned long v = std::strtoul(text.c_str() + d, nullptr, 0);
    if (v >= 4 && v <= 6) continue;
    size_t line_end = text.find('\n', at);
    std::string line = text.substr(line_start, line_end == std::string::npos ? std::string::npos : line_end - line_start);
    size_t line_no = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    throw Error("code object version " + std::to_string(v) +
                    " is not supported (LLVM 22 assembles versions 4, 5 and 6; it aborts on " + std::to_string(v) +
                    ")\n    " + line,
                source_name + ":" + std::to_string(line_no) + ":" + std::to_string(at - line_start + 1),
                "use .amdhsa_code_object_version 4, 5 or 6");
  }
}

const llvm::Target& amdgpu_target() {
  static const llvm::Target* target = [] {
    program::initialize_llvm_amdgpu();
    std::string err;
    const llvm::Target* t = llvm::TargetRegistry::lookupTarget(llvm::Triple(kTriple), err);
    if (!t) throw Error("LLVM has no AMDGPU target: " + err, kTriple, "use an LLVM 22 build with AMDGPU", kExitInternal);
    return t;
  }();
  return *target;
}

// Whether LLVM knows the processor. Asked of a generic subtarget (read-only, shared): creating a
// subtarget for an unknown processor would print a warning on stderr and fall back silently.
bool known_processor(const std::string& processor) {
  static const std::unique_ptr<llvm::MCSubtargetInfo> generic(
      amdgpu_target().createMCSubtargetInfo(llvm::Triple(kTriple), "", ""));
  return generic && generic->isCPUStringValid(processor);
}

}  // namespace

std::vector<uint8_t> assemble_object(const std::string& asm_text, const codeobj::TargetId& target,
                                     const std::string& source_name) {
  check_code_object_versions(asm_text, source_name);
  const llvm::Target& T = amdgpu_target();
  llvm::Triple triple(kTriple);
  llvm::MCTargetOptions options;

  if (!known_processor(target.processor))
    throw Error("LLVM 22 does not know the processor '" + target.processor + "'", target.str(),
                "use a gfx9 processor such as gfx90a, gfx942 or gfx950");
  std::unique_ptr<llvm::MCRegisterInfo> mri(T.createMCRegInfo(triple));
  std::unique_ptr<llvm::MCAsmInfo> mai(T.createMCAsmInfo(*mri, triple, options));
  std::unique_ptr<llvm::MCInstrInfo> mii(T.createMCInstrInfo());
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      T.createMCSubtargetInfo(triple, target.processor, target.mc_features()));
  if (!mri || !mai || !mii || !sti) throw Error("cannot create LLVM AMDGPU MC objects", target.str(), "", kExitInternal);

  Diagnostics diags;
  llvm::SourceMgr srcmgr;
  srcmgr.setDiagHandler(source_diag_handler, &diags);
  srcmgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(asm_text, source_name), llvm::SMLoc());

  llvm::MCContext ctx(triple, mai.get(), mri.get(), sti.get(), &srcmgr, &options);
  // Errors found while laying out and writing the object (fixups out of range, undefined
  // expressions) come through the context, with the location of the offending statement.
  ctx.setDiagnosticHandler([&diags](const llvm::SMDiagnostic& d, bool, const llvm::SourceMgr&,
                                    std::vector<const llvm::MDNode*>&) { diags.add(d); });
  std::unique_ptr<llvm::MCObjectFileInfo> mofi(T.createMCObjectFileInfo(ctx, /*PIC=*/true));
  ctx.setObjectFileInfo(mofi.get());

  llvm::SmallVector<char, 0> out;
  llvm::raw_svector_ostream os(out);
  bool ok = true;
  {
    std::unique_ptr<llvm::MCCodeEmitter> emitter(T.createMCCodeEmitter(*mii, ctx));
    std::unique_ptr<llvm::MCAsmBackend> backend(T.createMCAsmBackend(*sti, *mri, options));
    if (!emitter || !backend) throw Error("cannot create LLVM AMDGPU code emitter", target.str(), "", kExitInternal);
    std::unique_ptr<llvm::MCObjectWriter> writer = backend->createObjectWriter(os);
    std::unique_ptr<llvm::MCStreamer> streamer(
        T.createMCObjectStreamer(triple, ctx, std::move(backend), std::move(writer), std::move(emitter), *sti));
    std::unique_ptr<llvm::MCAsmParser> parser(llvm::createMCAsmParser(srcmgr, ctx, *streamer, *mai));
    std::unique_ptr<llvm::MCTargetAsmParser> tap(T.createMCAsmParser(*sti, *parser, *mii, options));
    if (!streamer || !parser || !tap) throw Error("cannot create LLVM AMDGPU asm parser", target.str(), "", kExitInternal);
    parser->setTargetParser(*tap);

    // LLVM's fatal errors come back here instead of ending the process (rebuild/llvm_recovery.h).
    enable_llvm_recovery();
    llvm::CrashRecoveryContext crc;
    int rc = 0;
    if (!crc.RunSafely([&] { rc = parser->Run(/*NoInitialTextSection=*/false); })) {
      // The LLVM objects may be in any state after the jump: leak them rather than destroy them.
      (void)tap.release();
      (void)parser.release();
      (void)streamer.release();
      (void)mofi.release();
      std::string msg = take_llvm_fatal_message();
      if (!diags.list.empty()) msg += (msg.empty() ? "" : "; ") + std::string("first diagnostic: ") +
                                      diags.list.front().where() + ": " + diags.list.front().message;
      throw Error("LLVM's assembler stopped with a fatal error" + (msg.empty() ? std::string(" (crash)") : ": " + msg),
                  source_name, "the input is outside what LLVM 22's AMDGPU assembler handles; please report it",
                  msg.empty() ? kExitInternal : kExitBadInput);
    }
    ok = rc == 0 && !ctx.hadError();
  }
  if (!diags.list.empty()) throw_diagnostics(diags, source_name);
  if (!ok || out.empty())
    throw Error("LLVM's assembler failed without a diagnostic", source_name, "please report this input", kExitInternal);
  return std::vector<uint8_t>(out.begin(), out.end());
}

TextSection text_section_of(const std::vector<uint8_t>& object, const std::string& name) {
  llvm::StringRef data(reinterpret_cast<const char*>(object.data()), object.size());
  auto obj = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(data, name));
  if (!obj) {
    std::string msg = llvm::toString(obj.takeError());
    throw Error("not an ELF object: " + msg, name, "", kExitInternal);
  }
  TextSection result;
  bool found = false;
  for (const llvm::object::SectionRef& s : (*obj)->sections()) {
    auto sname = s.getName();
    if (!sname || *sname != ".text") {
      if (!sname) llvm::consumeError(sname.takeError());
      continue;
    }
    auto contents = s.getContents();
    if (!contents) {
      llvm::consumeError(contents.takeError());
      throw Error("cannot read .text", name, "", kExitInternal);
    }
    result.bytes.assign(contents->begin(), contents->end());
    found = true;
  }
  if (!found) throw Error("object has no .text section", name, "", kExitInternal);
  for (const llvm::object::SectionRef& s : (*obj)->sections()) {
    auto target = s.getRelocatedSection();
    if (!target) {
      llvm::consumeError(target.takeError());
      continue;
    }
    if (*target == (*obj)->section_end()) continue;
    auto tname = (*target)->getName();
    if (!tname || *tname != ".text") {
      if (!tname) llvm::consumeError(tname.takeError());
      continue;
    }
    for (const llvm::object::RelocationRef& r : s.relocations()) {
      std::string sym = "?";
      auto it = r.getSymbol();
      if (it != (*obj)->symbol_end()) {
        auto n = it->getName();
        if (n) sym = n->str();
        else llvm::consumeError(n.takeError());
      }
      result.relocated_symbols.push_back(sym);
    }
  }
  return result;
}

std::vector<uint8_t> encode_instruction(const std::string& text, const codeobj::TargetId& target) {
  if (text.find('\n') != std::string::npos || text.find('\r') != std::string::npos)
    throw Error("encode_instruction takes one instruction, got several lines", "'" + text + "'",
                "encode each instruction separately");
  size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) throw Error("no instruction to encode (empty text)", "", "give an instruction");
  if (text[first] == '.')
    throw Error("'" + text.substr(first) + "' is a directive, not an instruction", "", "give an instruction");
  // Line 2 of the assembled text is the instruction: report it as line 1 of "instruction".
  std::string source = "\t.text\n" + text + "\n";
  std::vector<uint8_t> object;
  try {
    object = assemble_object(source, target, "instruction");
  } catch (const Error& e) {
    std::string where = e.where();
    // "instruction:2:5" -> "instruction:1:5"
    if (where.rfind("instruction:2:", 0) == 0) where = "instruction:1:" + where.substr(14);
    throw Error(e.what_text(), where, e.fix(), e.exit_code());
  }
  TextSection t = text_section_of(object, "instruction");
  if (!t.relocated_symbols.empty())
    throw Error("'" + text.substr(first) + "' needs a relocation (symbol " + t.relocated_symbols.front() + ")",
                "instruction", "use an instruction without symbol operands");
  if (t.bytes.empty())
    throw Error("'" + text.substr(first) + "' produced no machine code", "instruction",
                "give an instruction (labels and comments encode to nothing)");
  return t.bytes;
}

}  // namespace asmevo::rebuild
