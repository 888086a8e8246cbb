// `campaign init`: finds the work in the user's inputs — every code object with a launch spec —
// and turns it into tasks, one per (code object bytes, kernel).
//
// Inputs, each a directory or a list file:
//  - a directory, walked recursively (hidden folders skipped): code objects are *.co / *.hsaco,
//    launch specs are *.yaml / *.yml with a top-level `kernel:` (other YAML files are ignored).
//    Covers a plain folder (X.co beside X.yaml), a Triton cache or dump folder (<hash>/X.hsaco,
//    with X.yaml beside it or in a --specs folder), and a capture folder (issue 18: code objects by
//    content hash plus a spec per kernel, anywhere below the folder).
//  - a list file: one task per line, `OBJECT SPEC [SPEC...]`, paths relative to the list file,
//    `#` starts a comment.
// `--specs DIR` folders hold specs that apply to every input object defining their kernel (one
// Triton spec for each cache entry of a kernel; the corpus's specs for every arch).
//
// Pairing, for a spec found in an input directory: the object with the same stem in the same
// folder (X.co / X.hsaco for X.yaml), else the one object below that input that defines the spec's
// kernel; several such objects is an error (which object did the spec come from?). A --specs spec
// pairs with every object defining its kernel that has no spec of its own for it. Specs whose
// `kernel:` names no kernel of the paired object are errors. Objects with identical bytes are one.
#pragma once
#include <string>
#include <vector>

#include "campaign/manifest.h"

namespace asmevo::campaign {

struct Collected {
  std::vector<Task> tasks;                 // ordered by input, then path, then kernel
  std::vector<std::string> without_spec;   // "OBJECT: kernel K" for kernels that got no spec
  std::vector<std::string> unused_specs;   // specs that matched no object
};

Collected collect(const std::vector<std::string>& inputs, const std::vector<std::string>& spec_dirs);

}  // namespace asmevo::campaign
