// The verify tests' one way to make a candidate: a code object with some lines of one kernel
// replaced, rebuilt as the mutant bench builds its mutants.
#pragma once
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench/mutants/mutation.h"
#include "codeobj/code_object.h"
#include "program/program.h"
#include "support/file_io.h"

namespace asmevo::verify_test {

inline codeobj::CodeObject load(const std::string& path) { return codeobj::CodeObject::parse(read_file_bytes(path), path); }

// How a `find` text names its line: the whole instruction text, or a part of it (the first line
// holding it).
enum class Match { Whole, Part };

// `co` with, for each (find, replacement), the first line of `kernel` that `find` names replaced.
inline codeobj::CodeObject edited(const codeobj::CodeObject& co, const std::string& kernel,
                                  const std::vector<std::pair<std::string, std::string>>& edits, Match match = Match::Whole) {
  auto p = program::Program::recover(co);
  const program::Function* f = p.function(kernel);
  if (!f) throw std::runtime_error("no kernel " + kernel);
  mutants::Mutant m;
  for (const auto& [find, replacement] : edits) {
    bool found = false;
    for (size_t i = f->begin; i < f->end && !found; ++i) {
      const std::string& text = p.text_line(i).text;
      if (p.text_line(i).inst && (match == Match::Whole ? text == find : text.find(find) != std::string::npos))
        m.edits.push_back({i, replacement, false, text}), found = true;
    }
    if (!found) throw std::runtime_error("no line is " + find);
  }
  return codeobj::CodeObject::parse(mutants::build_mutant(p, m), "edited.co");
}

inline codeobj::CodeObject edited(const codeobj::CodeObject& co, const std::string& kernel, const std::string& find, const std::string& replacement) {
  return edited(co, kernel, {{find, replacement}});
}

}  // namespace asmevo::verify_test
