// search::MoveFilter (`--moves`, the ablation of bench/speedups): families and names switch moves
// on and off; an unknown name is an error naming the known ones.
#include <gtest/gtest.h>

#include "search/move.h"
#include "support/error.h"

using namespace asmevo;

namespace {

std::vector<std::string> allowed(const std::vector<std::string>& entries) {
  const auto f = search::MoveFilter::parse(entries);
  std::vector<std::string> out;
  for (const char* family : {"rules", "stochastic"})
    for (const auto& m : search::make_moves(family))
      if (f.allows(*m)) out.push_back(m->name());
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

TEST(MoveFilter, SwitchesMovesAndFamiliesOnAndOff) {
  EXPECT_EQ(allowed({}).size(), search::move_names().size());
  auto no_widen = allowed({"-widen"});
  EXPECT_FALSE(has(no_widen, "widen"));
  EXPECT_EQ(no_widen.size() + 1, search::move_names().size());
  auto no_stochastic = allowed({"-stochastic"});
  for (const auto& m : no_stochastic) EXPECT_NE(m.rfind("stochastic", 0), 0u) << m;
  EXPECT_TRUE(has(no_stochastic, "reschedule"));
  EXPECT_EQ(allowed({"widen", "dead-code"}), (std::vector<std::string>{"widen", "dead-code"}));
  EXPECT_EQ(allowed({"rules", "-widen"}).size(), search::make_moves("rules").size() - 1);
}

TEST(MoveFilter, UnknownNameIsAnErrorNamingTheMoves) {
  try {
    search::MoveFilter::parse({"-widne"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(e.format().find("widne"), std::string::npos);
    EXPECT_NE(e.format().find("waitcnt-refine"), std::string::npos);
  }
}
