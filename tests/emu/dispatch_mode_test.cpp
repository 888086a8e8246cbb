// Float modes the emulator does not implement are refused at launch, naming the mode — never run
// with silently different numerics.
#include <gtest/gtest.h>

#include "codeobj/code_object.h"
#include "emu/dispatch.h"
#include "emu/launch_spec.h"
#include "support/error.h"
#include "support/file_io.h"
#include "tests/emu/emu_test_util.h"
#include "corpus/index/corpus.h"

namespace asmevo::emu::test {
namespace {

void expect_refused(const std::string& field, uint32_t value, const std::string& needle) {
  std::string path = corpus_hip_dir() + "/gfx942/vector_add.co";
  auto co = codeobj::CodeObject::parse(read_file_bytes(path), path);
  auto kd = co.kernel("vector_add")->kd;
  kd.set(field, value);
  co.write_kernel_descriptor("vector_add", kd);
  auto edited = codeobj::CodeObject::parse(co.write(), "edited");
  auto spec = load_launch_spec(corpus::hip_spec("vector_add"));
  try {
    prepare_launch(edited, *edited.kernel("vector_add"), spec, 1);
    FAIL() << field << "=" << value << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(EmuDispatch, UnimplementedFloatModesAreRefused) {
  expect_refused("compute_pgm_rsrc1.float_round_mode_32", 1, "rounding mode");
  expect_refused("compute_pgm_rsrc1.float_denorm_mode_32", 1, "f32 denormal mode 1");
  expect_refused("compute_pgm_rsrc1.float_denorm_mode_16_64", 0, "flushes f16/f64 denormals");
}

}  // namespace
}  // namespace asmevo::emu::test
