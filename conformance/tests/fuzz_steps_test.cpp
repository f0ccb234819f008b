// The script features the wire fuzzer's cases stand on (docs/conformance.md):
// `< anything`, which reads whatever the IUT sends without matching it, and
// `after_close: skip`, which lets the IUT close a connection after its
// handshake without failing the case, so that a last connection can still
// ask whether the IUT answers.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::conformance {
namespace {

Case script(const std::string& header, const std::string& steps) {
  auto r = parse_script("id: t\ntitle: t\nrequirement: rfc5044-4.3-crc-check\nrfc: RFC 5044 §4.3\nlevel: MUST\n"
                        "role: responder\n" + header + "\n" + steps,
                        "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) {
    ADD_FAILURE() << e->to_string();
    return {};
  }
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "mpa";
  return c;
}

struct Reference {
  ReferenceIut iut;
  RunOptions options;
  Reference() {
    std::string error;
    EXPECT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    options = reference_options(iut, o);
  }
};

TEST(FuzzSteps, AnythingIsCheckedWhenTheCaseLoads) {
  EXPECT_TRUE(check_case(script("", "handshake\n> send payload=3\n< anything within 50ms\n")).empty());
  EXPECT_FALSE(check_case(script("", "handshake\n< anything | close\n")).empty());
  EXPECT_FALSE(check_case(script("", "handshake\n< anything payload=3\n")).empty());
  auto bad = parse_script("id: t\ntitle: t\nrequirement: r\nrfc: R\nlevel: MUST\nrole: responder\nafter_close: maybe\n\nhandshake\n",
                          "inline.case");
  ASSERT_TRUE(std::holds_alternative<SyntaxError>(bad));
  EXPECT_NE(std::get<SyntaxError>(bad).message.find("after_close: skip or fail"), std::string::npos);
}

TEST(FuzzSteps, AnythingReadsWhatComesAndMatchesNothing) {
  Reference ref;
  // The reference echoes the Send; `anything` takes it (and would take anything else).
  const CaseResult r = run_case(script("needs: echo\n", "handshake\n> send payload=3\n< anything within 200ms\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto echoed = std::count_if(r.frames.begin(), r.frames.end(), [](const FrameRecord& f) {
    return !f.from_tester && f.headline.starts_with("<-- send,");
  });
  EXPECT_EQ(echoed, 1) << r.frames.size();
}

TEST(FuzzSteps, AfterCloseSkipGoesOnToTheNextConnection) {
  Reference ref;
  // A wrong CRC ends the connection (RFC 5044 §4.3): the echo expected after it cannot come.
  const std::string steps =
      "handshake c=1\n> send payload=3 crc=bad\n< anything within 200ms\n> send payload=3\n< send payload=3\n"
      "connection 2\nhandshake\n";
  const CaseResult skipping = run_case(script("after_close: skip\n", steps), ref.options);
  EXPECT_EQ(skipping.verdict, Verdict::kPass) << skipping.reason;
  EXPECT_EQ(skipping.other_connections.size(), 1u);
  const Case plain = script("", steps);
  const CaseResult failing = run_case(plain, ref.options);
  EXPECT_EQ(failing.verdict, Verdict::kFail);
  EXPECT_EQ(failing.failed_line, plain.steps[4].line) << failing.reason;  // the echo after the close
  // A handshake the IUT closes (private data over 512 octets, RFC 5044 §7.1.4) still fails, skip or not.
  const CaseResult refused = run_case(script("after_close: skip\n", "handshake pd_length=513 pd=513\n"), ref.options);
  EXPECT_EQ(refused.verdict, Verdict::kFail) << refused.reason;
}

// The case's last connection is its last question (a fuzz case's liveness
// check: does the IUT still answer?): no connection goes on after it, so the
// IUT closing it fails the step it interrupts, skip or not.
TEST(FuzzSteps, AfterCloseSkipDoesNotSkipTheLastConnection) {
  Reference ref;
  // Run, the case fails at or after step `step` because the IUT closed.
  auto expect_closed_at = [&ref](const Case& c, std::size_t step) {
    const CaseResult r = run_case(c, ref.options);
    EXPECT_EQ(r.verdict, Verdict::kFail) << r.reason;
    EXPECT_GE(r.failed_line, c.steps[step].line) << r.reason;
    ASSERT_TRUE(r.failure);
    EXPECT_EQ(r.failure->kind, Failure::Kind::kClosed) << r.reason;
  };
  // A wrong CRC ends connection 2 (RFC 5044 §4.3): it closes, and the Send
  // after it meets a closed connection (its octets may still leave: the
  // echo after it then meets the close).
  expect_closed_at(script("after_close: skip\n", "handshake\nconnection 2\nhandshake c=1\n> send payload=3 crc=bad\n< close\n"
                                                 "> send payload=3\n< send payload=3\n"),
                   5);
  // Back on a connection whose steps were skipped after its close, as the
  // last one: its steps fail there rather than being skipped.
  expect_closed_at(script("after_close: skip\n",
                          "handshake c=1\n> send payload=3 crc=bad\n< close\n> send payload=3\n< send payload=3\n"
                          "connection 2\nhandshake\nconnection 1\n> send payload=3\n< send payload=3\n"),
                   8);
}

}  // namespace
}  // namespace rdmaconf::conformance
