// One input's minimizing (wirefuzz/minimize.hpp) against a judge that needs
// no IUT: a finding that takes one Send with an MSN of at least 7 keeps that
// one message, that one field and the smallest MSN that still makes it;
// what comes from the liveness check on is never touched; the budget stops it.
#include <gtest/gtest.h>

#include <string>

#include "engine/engine.hpp"
#include "fuzz_test_support.hpp"
#include "wirefuzz/case_text.hpp"
#include "wirefuzz/minimize.hpp"
#include "wirefuzz/mutator.hpp"

namespace rdmaconf::conformance::wirefuzz {
namespace {

// The fuzz case of ddp-echo-msn-increment with its second Send given
// msn=1000 and pad=3 (what a mutation could have set).
Case msn_input() {
  const Case* seed = nullptr;
  for (const Case& c : catalogue().cases)
    if (c.id == "ddp-echo-msn-increment") seed = &c;
  if (!seed) {
    ADD_FAILURE() << "no seed ddp-echo-msn-increment";
    return {};
  }
  Case c = *fuzz_case(*seed, {});
  const auto sends = send_steps(c);
  EXPECT_EQ(sends.size(), 3u) << case_text(c);
  Step& second = c.steps[sends[1]];
  for (const auto& [name, number] : {std::pair{"msn", 1000u}, std::pair{"pad", 3u}}) {
    Arg a;
    a.name = name;
    a.has_value = true;
    a.value.kind = Value::Kind::kNumber;
    a.value.number = number;
    second.args.push_back(a);
  }
  return c;
}

// The judge: some Send before the liveness check carries an MSN of 7 or more.
bool breaks(const Case& c) {
  const std::size_t tail = liveness_step(c);
  for (std::size_t i : send_steps(c))
    if (i < tail)
      for (const Arg& a : c.steps[i].args)
        if (a.name == "msn" && a.value.kind == Value::Kind::kNumber && a.value.number >= 7) return true;
  return false;
}

TEST(Minimize, KeepsOneMessageOneFieldAndTheSmallestValue) {
  const Case input = msn_input();
  ASSERT_TRUE(breaks(input));
  int runs = 0;
  const Case min = minimize(
      input,
      [&](const Case& cand) {
        ++runs;
        return breaks(cand);
      },
      [] { return true; });
  const auto sends = send_steps(min);
  ASSERT_EQ(sends.size(), 1u) << case_text(min);
  const Step& st = min.steps[sends.front()];
  ASSERT_EQ(st.args.size(), 1u) << case_text(min);
  EXPECT_EQ(st.args.front().name, "msn");
  EXPECT_EQ(st.args.front().value.number, 7u) << "1000 halved while it stays: 500 ... 15, 7";
  // The liveness check is as it was.
  const std::size_t in_tail = liveness_step(input), min_tail = liveness_step(min);
  ASSERT_EQ(input.steps.size() - in_tail, min.steps.size() - min_tail);
  for (std::size_t k = 0; in_tail + k < input.steps.size(); ++k)
    EXPECT_EQ(input.steps[in_tail + k].text, min.steps[min_tail + k].text);
  RecordProperty("runs", runs);
}

TEST(Minimize, StopsWhenTheBudgetIsSpent) {
  const Case input = msn_input();
  int left = 3, runs = 0;
  const Case min = minimize(
      input,
      [&](const Case& cand) {
        --left;
        ++runs;
        return breaks(cand);
      },
      [&] { return left > 0; });
  EXPECT_EQ(runs, 3);
  EXPECT_TRUE(breaks(min));
  EXPECT_GE(send_steps(min).size(), 1u);
}

}  // namespace
}  // namespace rdmaconf::conformance::wirefuzz
