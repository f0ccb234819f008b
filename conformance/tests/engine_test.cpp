// The engine against the reference IUT over loopback, against bad peers,
// grading and --strict, reports, exit codes; the catalogue's consistency
// with the requirement registry and docs/catalogue.md.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "report/report.hpp"
#include "requirement.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::conformance {
namespace {

using namespace std::chrono_literals;

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  return c;
}

Case parse_one(const std::string& text, std::string protocol = "mpa") {
  auto r = parse_script(text, "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = std::move(protocol);
  return c;
}

std::string header(std::string_view level = "MUST", std::string_view needs = "-") {
  return "id: t\ntitle: t\nrequirement: rfc5044-7.1.1-key-check\nrfc: RFC 5044 §7.1.1\nlevel: " + std::string(level) +
         "\nrole: responder\nneeds: " + std::string(needs) + "\n";
}

struct Reference {
  ReferenceIut iut;
  RunOptions options;
  explicit Reference(FaultSet f = {}) : iut(f) {
    std::string error;
    EXPECT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
    EXPECT_TRUE(iut.listen_clc("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    o.jobs = 8;
    options = reference_options(iut, o);
  }
};

// A peer that accepts one connection and does what it is told.
class FakePeer {
 public:
  enum class Mode { kSilent, kGarbage, kCloseAfterRequest, kHugeLength, kRejectAll };
  explicit FakePeer(Mode m) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this, m] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::uint8_t buf[4096];
      if (m != Mode::kSilent) (void)::recv(c, buf, 20, MSG_WAITALL);
      if (m == Mode::kGarbage) {
        const char g[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
        (void)::send(c, g, sizeof g - 1, MSG_NOSIGNAL);
      } else if (m == Mode::kHugeLength) {
        std::uint8_t reply[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e', 0x40, 1, 0xff, 0xff};
        (void)::send(c, reply, sizeof reply, MSG_NOSIGNAL);
      } else if (m == Mode::kRejectAll) {
        std::uint8_t reply[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e', 0x60, 1, 0, 0};
        (void)::send(c, reply, sizeof reply, MSG_NOSIGNAL);
      }
      if (m == Mode::kCloseAfterRequest) {
        ::close(c);
        return;
      }
      // Hold the connection until the tester closes it.
      while (::recv(c, buf, sizeof buf, 0) > 0) {
      }
      ::close(c);
    });
  }
  ~FakePeer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  RunOptions options() const {
    RunOptions o;
    o.connect_responder = tcp_connector("127.0.0.1", port_, 1000ms);
    o.time_scale = 0.25;
    return o;
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

TEST(Catalogue, LoadsWithoutErrorsAndEveryCaseResolves) {
  const Catalogue& cat = catalogue();
  for (const auto& e : cat.errors) ADD_FAILURE() << e.to_string();
  EXPECT_GE(cat.cases.size(), 290u);
  for (const Case& c : cat.cases)
    for (const std::string& e : check_case(c)) ADD_FAILURE() << e;
}

// A case whose waits fill its timeout can never finish against a device
// (the waits take real time there): the script check says so.
TEST(Catalogue, WaitsFitInTheCasesTimeout) {
  const auto errors = check_case(parse_one(header() + "handshake\nwait 4s\nwait 6s\n"));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("10000 ms by here"), std::string::npos) << errors[0];
  EXPECT_NE(errors[0].find("inline.case:10:"), std::string::npos) << errors[0];
  EXPECT_TRUE(check_case(parse_one(header() + "timeout: 11s\nhandshake\nwait 4s\nwait 6s\n")).empty());
}

TEST(Catalogue, EveryRequirementIdIsRegistered) {
  for (const Case& c : catalogue().cases)
    for (const std::string& r : c.requirements) EXPECT_NE(requirements::find(r), nullptr) << c.id << ": " << r;
}

TEST(Catalogue, EveryProtocolHasCases) {
  for (const char* p : {"mpa", "ddp", "rdmap", "clc"}) EXPECT_GE(select(catalogue(), {p}, {}).size(), 40u) << p;
}

// Every registry row is accounted for exactly once: named by a case (a
// script or a capture case), listed as observable without a case, or listed
// as not observable.
TEST(Catalogue, EveryRequirementIsCoveredOrListedAsAGap) {
  const Catalogue& cat = catalogue();
  std::set<std::string> named;
  for (const Case& c : cat.cases) named.insert(c.requirements.begin(), c.requirements.end());
  for (const CaptureCase& c : cat.capture_cases) named.insert(c.requirement);
  const RequirementGaps gaps = requirement_gaps(cat);
  std::set<std::string> listed;
  for (const auto& u : gaps.uncovered) {
    EXPECT_EQ(named.count(u.id), 0u) << u.id << " has a case but is listed as uncovered";
    EXPECT_TRUE(listed.insert(u.id).second) << u.id;
  }
  for (const auto& u : gaps.unobservable) EXPECT_TRUE(listed.insert(u.id).second) << u.id;
  for (const requirements::Requirement& r : requirements::all())
    EXPECT_EQ(named.count(std::string(r.id)) + listed.count(std::string(r.id)), 1u) << r.id;
}

// The digest every report names the catalogue by: SHA-256 over each script
// in path order as path, NUL, length, NUL, text, NUL. The expected values
// were computed apart from this code (Python's hashlib over the same octets).
TEST(Catalogue, DigestIsOverEveryScriptsPathLengthAndText) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("catalogue-digest-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "a");
  EXPECT_EQ(load_catalogue(dir.string()).sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
      << "no scripts: the digest of no octets";
  std::ofstream(dir / "a" / "one.case") << "x\n";  // not a valid script: hashed all the same
  std::ofstream(dir / "b.case");
  std::ofstream(dir / "notes.txt") << "not a script";
  const Catalogue c = load_catalogue(dir.string());
  fs::remove_all(dir);
  EXPECT_EQ(c.sha256, "7e93cac261b3e88ac1b02c1a30066996aa9100d2d822768bbfd617b8c4662996");
}

TEST(Catalogue, MarkdownIsUpToDate) {
  std::ostringstream want;
  write_catalogue_markdown(want, catalogue());
  std::ifstream f(RDMACONF_SOURCE_DIR "/docs/catalogue.md");
  std::stringstream have;
  have << f.rdbuf();
  EXPECT_EQ(have.str(), want.str()) << "docs/catalogue.md is stale: run rdmaconf cases --markdown docs/catalogue.md";
}

TEST(Runner, SampleOfEveryProtocolPassesAgainstTheReference) {
  Reference ref;
  std::vector<const Case*> sample;
  for (const char* p : {"mpa", "ddp", "rdmap", "clc"}) {
    auto cs = select(catalogue(), {p}, {});
    for (std::size_t i = 0; i < cs.size(); i += 7) sample.push_back(cs[i]);
  }
  auto results = run_cases(sample, ref.options);
  for (const CaseResult& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.c->id << ": " << r.reason;
    // A case in which the tester only waits (a handshake timer) may see
    // nothing but the close.
    const bool tester_sends = std::any_of(r.c->steps.begin(), r.c->steps.end(),
                                          [](const Step& st) { return st.kind != StepKind::kExpect; });
    if (!tester_sends) continue;
    EXPECT_FALSE(r.frames.empty()) << r.c->id;
    EXPECT_FALSE(r.exchange.chunks.empty()) << r.c->id;
  }
  EXPECT_EQ(summarize(results).exit_code(), 0);
}

TEST(Runner, FrameRecordDecodesThroughTheDeclarations) {
  Reference ref;
  auto cs = select(catalogue(), {}, {"ddp-stag-invalid-write-stale-stag"});
  ASSERT_EQ(cs.size(), 1u);
  CaseResult r = run_case(*cs[0], ref.options);
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.reason;
  bool saw_terminate = false;
  for (const FrameRecord& f : r.frames)
    if (!f.from_tester && f.headline.find("terminate") != std::string::npos) {
      saw_terminate = true;
      EXPECT_NE(f.detail.find("RDMAP Terminate Control"), std::string::npos) << f.detail;
      EXPECT_NE(f.detail.find("layer=0x1"), std::string::npos) << f.detail;
    }
  EXPECT_TRUE(saw_terminate);
  EXPECT_NE(r.exchange.tester_address.find("127.0.0.1:"), std::string::npos);
}

TEST(Runner, AFaultMakesTheMatchingCaseFail) {
  FaultSet f;
  f.set(FaultId::kBounds);
  Reference ref(f);
  auto cs = select(catalogue(), {}, {"ddp-bounds-beyond-end-4096"});
  ASSERT_EQ(cs.size(), 1u);
  CaseResult r = run_case(*cs[0], ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_GT(r.failed_line, 0);
  EXPECT_FALSE(r.reason.empty());
}

// An IUT that writes its Terminate Control field as Linux siw does (a
// little-endian C bitfield): the case fails, and the reason says what the
// octets mean read that way (rdmap/diagnosis.hpp). The case is a SHOULD,
// but the Terminate breaks RFC 5040 §4.8's MUST in passing (in_passing.hpp).
TEST(Runner, ATerminateWrittenAsALittleEndianBitfieldFailsWithAHint) {
  FaultSet f;
  f.set(FaultId::kTerminateLeBitfield);
  Reference ref(f);
  auto cs = select(catalogue(), {}, {"rdmap-read-terminate-copies-request"});
  ASSERT_EQ(cs.size(), 1u);
  CaseResult r = run_case(*cs[0], ref.options);
  EXPECT_EQ(r.script_verdict, Verdict::kNonStrict);  // a SHOULD-level case
  EXPECT_EQ(r.verdict, Verdict::kFail);
  ASSERT_EQ(r.in_passing.size(), 1u);
  EXPECT_EQ(r.in_passing[0].rule, "rfc5040-4.8-terminate-format");
  EXPECT_EQ(r.in_passing[0].mistake, "le-bitfield");
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->mistake, "le-bitfield");
  EXPECT_EQ(r.failure->mistake_rule, "rfc5040-4.8-terminate-format");
  EXPECT_TRUE(r.failure->explained) << r.failure->meant;
  EXPECT_NE(r.reason.find("hint: the control field 10 02 07 00 reads as RDMAP / Remote Protection Error / Access "
                          "rights violation with M, D, R set"),
            std::string::npos)
      << r.reason;
}

// With several alternatives, the one the diagnosed mistake explains whole is
// the one findings judge by: read as meant, this Terminate matches the second
// (the reference counts the DDP header in DDP Segment Length), so the
// bitfield is the whole cause, not the first alternative's other length.
TEST(Runner, TheAlternativeAMistakeExplainsIsTheFailureRecorded) {
  FaultSet f;
  f.set(FaultId::kTerminateLeBitfield);
  Reference ref(f);
  const std::string unit = "terminate layer=ddp etype=2 code=1 hdrct_m=1 hdrct_d=1 ddp_seg_len=";
  const Case c = parse_one(header("MUST", "echo") + "handshake\n> send payload=4 qn=9\n< " + unit + "4 | " + unit +
                           "22\n");
  const CaseResult r = run_case(c, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  ASSERT_TRUE(r.failure);
  EXPECT_EQ(r.failure->mistake, "le-bitfield");
  EXPECT_TRUE(r.failure->explained) << r.failure->field << " " << r.reason;
}

// `close` lets frames pass on the way to the close; `close nothing_before`
// fails on the first one. The reference closes after a Terminate, but only
// once it has echoed the Send that came before the error.
TEST(Runner, CloseNothingBeforeFailsOnAnEarlierFrame) {
  Reference ref;
  const std::string steps = "handshake\n> send payload=4\n> send payload=4 qn=9\n";
  const Case lenient = parse_one(header("MUST", "echo") + steps + "< close\n");
  EXPECT_EQ(run_case(lenient, ref.options).verdict, Verdict::kPass);
  const Case strict = parse_one(header("MUST", "echo") + steps + "< close nothing_before\n");
  const CaseResult r = run_case(strict, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("where it must only close"), std::string::npos) << r.reason;
  const Case after_terminate =
      parse_one(header("MUST", "echo") + steps + "< send payload=4\n< terminate\n< close nothing_before\n");
  EXPECT_EQ(run_case(after_terminate, ref.options).verdict, Verdict::kPass);
}

// `close fin` asks for a graceful close (RFC 5040 §6.2.1): the reference
// closes with a FIN after its Terminate; with fault terminate-then-reset it
// resets, which fails the step.
TEST(Runner, CloseFinFailsOnAReset) {
  const std::string steps = "handshake\n> send payload=4 qn=9\n< terminate | close fin\n< close fin\n";
  const Case c = parse_one(header("SHOULD") + steps);
  Reference clean;
  EXPECT_EQ(run_case(c, clean.options).verdict, Verdict::kPass);
  FaultSet f;
  f.set(FaultId::kTerminateThenReset);
  Reference faulty(f);
  const CaseResult r = run_case(c, faulty.options);
  EXPECT_EQ(r.verdict, Verdict::kNonStrict) << r.reason;
  EXPECT_NE(r.reason.find("expected a FIN"), std::string::npos) << r.reason;
}

// Order comparisons, masks and captures (`@name`) judge what the IUT sent.
TEST(Runner, ComparisonsMasksAndCaptures) {
  Reference ref;
  const std::string steps = "handshake\n> send payload=4\n< send payload_len>=4 payload_len<=4 msn=@first qn&0x1=0\n"
                            "> send payload=6\n";
  const Case pass = parse_one(header("MUST", "echo") + steps + "< send msn>@first msn!=@first payload_len>4\n");
  EXPECT_TRUE(check_case(pass).empty());
  const CaseResult ok = run_case(pass, ref.options);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.reason;
  const Case fail = parse_one(header("MUST", "echo") + steps + "< send msn=@first\n");
  const CaseResult r = run_case(fail, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("expected msn=@first (0x1), got 0x2"), std::string::npos) << r.reason;
  const Case masked = parse_one(header("MUST", "echo") + "handshake\n> send payload=4\n< send msn&0x1=0\n");
  const CaseResult m = run_case(masked, ref.options);
  EXPECT_EQ(m.verdict, Verdict::kFail);
  EXPECT_NE(m.reason.find("expected msn&0x1=0, got 0x1"), std::string::npos) << m.reason;
}

// `ends_case` on an alternative ends the case, passed, when that alternative
// matches; the steps after it do not run. Without a match every
// alternative's reason is reported.
TEST(Runner, EndsCaseAndTheReasonsOfEveryAlternative) {
  Reference ref;
  const std::string steps = "handshake\n> send payload=4\n";
  // The read_request step would fail: ends_case stops before it.
  const Case ends = parse_one(header("MUST", "echo") + steps + "< terminate | send payload_len=4 ends_case\n< read_request\n");
  EXPECT_TRUE(check_case(ends).empty());
  const CaseResult r = run_case(ends, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const Case goes_on = parse_one(header("MUST", "echo") + steps + "< terminate ends_case | send payload_len=4\n< read_request\n");
  EXPECT_EQ(run_case(goes_on, ref.options).verdict, Verdict::kFail);
  const Case none = parse_one(header("MUST", "echo") + steps + "< send payload_len=5 | send msn=7\n");
  const CaseResult n = run_case(none, ref.options);
  EXPECT_EQ(n.verdict, Verdict::kFail);
  EXPECT_NE(n.reason.find("none of 2 alternatives matched"), std::string::npos) << n.reason;
  EXPECT_NE(n.reason.find("payload_len=5"), std::string::npos) << n.reason;
  EXPECT_NE(n.reason.find("msn=7"), std::string::npos) << n.reason;
  const auto bare = check_case(parse_one(header() + "handshake\n< send ends_here\n"));
  ASSERT_FALSE(bare.empty());
  EXPECT_NE(bare[0].find("expected field=value, 'ends_case' or 'unjudged'"), std::string::npos) << bare[0];
}

// `unjudged` on an alternative ends the case unimplemented when that
// alternative matches (the IUT took another path the RFC allows); on a
// close too. The other alternatives are judged as usual.
TEST(Runner, UnjudgedAlternative) {
  Reference ref;
  const std::string steps = "handshake\n> send payload=4\n";
  const Case other_path = parse_one(header("MUST", "echo") + steps + "< terminate | send payload_len=4 unjudged\n< read_request\n");
  EXPECT_TRUE(check_case(other_path).empty());
  const CaseResult r = run_case(other_path, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
  EXPECT_NE(r.reason.find("nothing is left for this case to judge"), std::string::npos) << r.reason;
  const Case judged = parse_one(header("MUST", "echo") + steps + "< terminate unjudged | send payload_len=4\n< read_request\n");
  EXPECT_EQ(run_case(judged, ref.options).verdict, Verdict::kFail);
  // The reference closes on a Request of revision 5 after its Reject.
  const Case closes = parse_one(header("MUST") + "> mpa.request rev=5\n< close unjudged\n");
  EXPECT_TRUE(check_case(closes).empty());
  EXPECT_EQ(run_case(closes, ref.options).verdict, Verdict::kUnimplemented);
  const Case rejects = parse_one(header("MUST") + "> mpa.request rev=5\n< mpa.reject | close unjudged\n< close nothing_before\n");
  const CaseResult j = run_case(rejects, ref.options);
  EXPECT_EQ(j.verdict, Verdict::kPass) << j.reason;
}

// `message` takes one message's segments up to L and fails when another
// message's segment comes between them.
TEST(Runner, MessageTakesTheSegmentsOfOneMessage) {
  const std::string text = header("MUST", "commands") +
                           "handshake\n> ulp.command ulp.op=send ulp.count=2 ulp.length=3000\n"
                           "< message opcode=send msn=@m payload_len=3000 segments>=2\n"
                           "< message msn>@m payload_len=3000\n";
  const Case c = parse_one(text);
  EXPECT_TRUE(check_case(c).empty());
  Reference clean;
  const CaseResult ok = run_case(c, clean.options);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.reason;
  FaultSet f;
  f.set(FaultId::kDdpInterleaveMessages);
  Reference faulty(f);
  const CaseResult r = run_case(c, faulty.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("interleaved"), std::string::npos) << r.reason;
  const auto two = check_case(parse_one(header() + "handshake\n< message | send\n"));
  ASSERT_FALSE(two.empty());
  EXPECT_NE(two[0].find("only alternative"), std::string::npos) << two[0];
}

// RFC 6581 §9.2: a Reply that chooses what the IUT's Request did not offer
// makes the case unimplemented. A case without `needs: rev2` gets the Rev 1
// reference initiator.
TEST(Runner, AReplyChoosingWhatTheInitiatorDidNotOfferIsUnimplemented) {
  Reference ref;
  const std::string initiator = "id: t\ntitle: t\nrequirement: rfc6581-9.2-rtr-first-fpdu\nrfc: RFC 6581 §9.2\n"
                                "level: MUST\nrole: initiator\n";
  const Case rev1 = parse_one(initiator + "\n< mpa.request rev=1\n> mpa.reply rev=2 p2p=1 rtr_send=1\n< send\n");
  const CaseResult r = run_case(rev1, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
  EXPECT_NE(r.reason.find("asks for no RFC 6581 enhanced setup"), std::string::npos) << r.reason;
  const Case rev2 = parse_one(initiator + "needs: rev2\n\n< mpa.request rev=2 p2p=1\n> mpa.reply rev=2 p2p=1 rtr_read=1\n"
                                          "< read_request read_size=0\n");
  const CaseResult ok = run_case(rev2, ref.options);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.reason;
}

TEST(Runner, CapturesAndComparisonsAreCheckedWhenTheCatalogueLoads) {
  auto errors = [](const std::string& steps) { return check_case(parse_one(header() + steps)); };
  EXPECT_TRUE(errors("handshake\n> send payload=4\n< send msn=@m\n< send msn=@m\n").empty());
  const auto once = errors("handshake\n< send msn=@m\n");
  ASSERT_EQ(once.size(), 1u);
  EXPECT_NE(once[0].find("@m is captured but never used again"), std::string::npos);
  const auto unbound = errors("handshake\n> send msn=@m\n< send msn=@m\n");
  ASSERT_FALSE(unbound.empty());
  EXPECT_NE(unbound[0].find("expected @m to be captured first"), std::string::npos);
  const auto compared_first = errors("handshake\n< send msn>@m\n< send msn=@m\n");
  ASSERT_FALSE(compared_first.empty());
  EXPECT_NE(compared_first[0].find("captured first"), std::string::npos);
  const auto sending = errors("handshake\n> send msn<4\n");
  ASSERT_EQ(sending.size(), 1u);
  EXPECT_NE(sending[0].find("masks and comparisons are for '<' steps"), std::string::npos);
}

TEST(Grading, LevelsAndStrict) {
  // The IUT answers a bad key by closing; a script that demands a Reply fails.
  Reference ref;
  const std::string steps = "> mpa.request key=\"bad key 1234567\"\n< mpa.reply\n";
  struct Row {
    const char* level;
    bool strict;
    Verdict want;
  } rows[] = {{"MUST", false, Verdict::kFail},          {"MUST NOT", false, Verdict::kFail},
              {"SHOULD", false, Verdict::kNonStrict},   {"SHOULD NOT", false, Verdict::kNonStrict},
              {"SHOULD", true, Verdict::kFail},         {"MAY", false, Verdict::kInformational},
              {"MAY", true, Verdict::kInformational}};
  for (const Row& row : rows) {
    Case c = parse_one(header(row.level) + steps);
    RunOptions o = ref.options;
    o.strict = row.strict;
    EXPECT_EQ(run_case(c, o).verdict, row.want) << row.level << (row.strict ? " strict" : "");
  }
  Case passing = parse_one(header("SHOULD") + "> mpa.request\n< mpa.reply r=0\n");
  EXPECT_EQ(run_case(passing, ref.options).verdict, Verdict::kPass);
}

// The case's own verdict is unimplemented. The fake peer's Rev 1 Reply to an
// enhanced Request breaks RFC 6581 §10 in passing, which the run reports
// (an unenhanced responder closes instead).
TEST(Grading, MissingOptionalFeatureIsUnimplemented) {
  FakePeer peer(FakePeer::Mode::kRejectAll);
  Case c = parse_one(header("MUST", "rev2") + "handshake rev=2\n> send payload=4\n< send\n");
  CaseResult r = run_case(c, peer.options());
  EXPECT_EQ(r.script_verdict, Verdict::kUnimplemented) << r.reason;
  ASSERT_EQ(r.in_passing.size(), 1u) << r.reason;
  EXPECT_EQ(r.in_passing[0].rule, "rfc6581-10-reply-enhanced");
  EXPECT_EQ(r.verdict, Verdict::kFail);
  FakePeer again(FakePeer::Mode::kRejectAll);
  RunOptions quiet = again.options();
  quiet.judge_in_passing = false;
  EXPECT_EQ(run_case(c, quiet).verdict, Verdict::kUnimplemented);
}

// `--iut-lacks`: a case that needs what the IUT lacks is unimplemented and
// never connects (here there is nothing to connect to).
TEST(Grading, WhatTheIutLacksIsUnimplementedWithoutAConnection) {
  RunOptions o;
  o.iut_lacks = {"commands", "buffer"};
  const CaseResult cmd = run_case(parse_one(header("MUST", "commands, echo") + "handshake\n"), o);
  EXPECT_EQ(cmd.verdict, Verdict::kUnimplemented);
  EXPECT_NE(cmd.reason.find("lacks 'commands'"), std::string::npos) << cmd.reason;
  EXPECT_EQ(run_case(parse_one(header("MUST", "buffer:rw") + "handshake\n"), o).verdict, Verdict::kUnimplemented);
  // Anything else still runs (and, with no connection, is an error).
  EXPECT_EQ(run_case(parse_one(header("MUST", "echo") + "handshake\n"), o).verdict, Verdict::kError);
}

TEST(Grading, SummaryExitCodes) {
  Case c = parse_one(header() + "> mpa.request\n");
  auto mk = [&](Verdict v) {
    CaseResult r;
    r.c = &c;
    r.verdict = v;
    return r;
  };
  EXPECT_EQ(summarize({mk(Verdict::kPass), mk(Verdict::kNonStrict), mk(Verdict::kInformational),
                       mk(Verdict::kUnimplemented)})
                .exit_code(),
            0);
  EXPECT_EQ(summarize({mk(Verdict::kPass), mk(Verdict::kFail), mk(Verdict::kError)}).exit_code(), 1);
  EXPECT_EQ(summarize({mk(Verdict::kPass), mk(Verdict::kError)}).exit_code(), 2);
}

TEST(BadPeer, UnreachableIsAnErrorAndTheRunGoesOn) {
  // A port that was just free: nothing listens there.
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  RunOptions o;
  o.connect_responder = tcp_connector("127.0.0.1", ntohs(a.sin_port), 500ms);
  auto cs = select(catalogue(), {"mpa"}, {});
  cs.resize(3);
  auto results = run_cases(cs, o);
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) {
    EXPECT_EQ(r.verdict, Verdict::kError);
    EXPECT_NE(r.reason.find("cannot connect"), std::string::npos) << r.reason;
  }
  EXPECT_EQ(summarize(results).exit_code(), 2);
}

TEST(BadPeer, SilentPeerFailsWithinTheBound) {
  FakePeer peer(FakePeer::Mode::kSilent);
  Case c = parse_one(header() + "> mpa.request\n< mpa.reply within 2s\n");
  const auto t0 = std::chrono::steady_clock::now();
  CaseResult r = run_case(c, peer.options());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("nothing within 500 ms"), std::string::npos) << r.reason;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
}

TEST(BadPeer, GarbageIsReportedAsSuch) {
  FakePeer peer(FakePeer::Mode::kGarbage);
  Case c = parse_one(header() + "> mpa.request\n< mpa.reply\n");
  CaseResult r = run_case(c, peer.options());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("not a valid MPA"), std::string::npos) << r.reason;
}

TEST(BadPeer, HugeLengthDoesNotMakeTheTesterWait) {
  FakePeer peer(FakePeer::Mode::kHugeLength);
  Case c = parse_one(header() + "> mpa.request\n< mpa.reply\n");
  CaseResult r = run_case(c, peer.options());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("PD_Length"), std::string::npos) << r.reason;
}

TEST(BadPeer, CloseMidCaseFails) {
  FakePeer peer(FakePeer::Mode::kCloseAfterRequest);
  Case c = parse_one(header() + "> mpa.request\n< mpa.reply\n");
  CaseResult r = run_case(c, peer.options());
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("closed"), std::string::npos) << r.reason;
}

// An IUT that accepts and notes how long after its Reply the first octet
// of full operation arrives (what --reply-settle changes).
class TimingPeer {
 public:
  TimingPeer() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 4);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::uint8_t buf[4096];
      (void)::recv(c, buf, 20, MSG_WAITALL);  // a Rev 1 Request without private data
      std::uint8_t reply[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e', 0, 1, 0, 0};
      (void)::send(c, reply, sizeof reply, MSG_NOSIGNAL);
      const auto replied = std::chrono::steady_clock::now();
      if (::recv(c, buf, 1, 0) == 1) gap_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - replied).count();
      while (::recv(c, buf, sizeof buf, 0) > 0) {
      }
      ::close(c);
    });
  }
  ~TimingPeer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  double gap() {
    thread_.join();
    return gap_ms;
  }
  RunOptions options() const {
    RunOptions o;
    o.connect_responder = tcp_connector("127.0.0.1", port_, 1000ms);
    o.time_scale = 0.25;
    return o;
  }

 private:
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
  double gap_ms = -1;
};

TEST(Runner, ReplySettleDelaysTheFirstSendAfterTheReplyUnlessAtOnce) {
  const std::string script = header() + "handshake rev=1\n> send payload=4\n";
  {
    TimingPeer peer;  // default: the first FPDU follows the Reply at once (RFC 5044 §7.1.2)
    CaseResult r = run_case(parse_one(script), peer.options());
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    const double gap = peer.gap();
    EXPECT_GE(gap, 0);
    EXPECT_LT(gap, 150);
  }
  {
    TimingPeer peer;
    RunOptions o = peer.options();
    o.reply_settle = 300ms;  // unscaled by time_scale
    CaseResult r = run_case(parse_one(script), o);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    EXPECT_GE(peer.gap(), 290);
  }
  {
    TimingPeer peer;
    RunOptions o = peer.options();
    o.reply_settle = 300ms;
    CaseResult r = run_case(parse_one(header() + "handshake rev=1 at_once\n> send payload=4\n"), o);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    EXPECT_LT(peer.gap(), 150);
  }
  {
    TimingPeer peer;  // an accepting Reply read by `< mpa.reply` settles too
    RunOptions o = peer.options();
    o.reply_settle = 300ms;
    CaseResult r = run_case(parse_one(header() + "> mpa.request rev=1\n< mpa.reply\n> send payload=4\n"), o);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    EXPECT_GE(peer.gap(), 290);
  }
}

// RFC 5040 §5.5, the note under rule 12: a Read Response may carry data of
// Writes that arrived after its Read Request. So no case may expect a Read
// Response's payload after writing again, behind the Read Request, to the
// place it reads (Linux siw answers with the later data, as it may).
TEST(Catalogue, NoReadResponseIsExpectedToPredateALaterWrite) {
  auto find_arg = [](const std::vector<Arg>& args, std::string_view name) -> const Arg* {
    for (const Arg& a : args)
      if (a.name == name) return &a;
    return nullptr;
  };
  auto same = [](const Arg* a, const Arg* b) {
    return a && b && a->value.kind == b->value.kind && a->value.text == b->value.text &&
           a->value.number == b->value.number && a->value.offset == b->value.offset;
  };
  for (const Case& c : catalogue().cases) {
    std::vector<const Step*> reads;  // Read Requests not yet answered
    bool overwritten = false;
    for (const Step& st : c.steps) {
      if (st.kind == StepKind::kSend && st.unit == "read_request") reads.push_back(&st);
      if (st.kind == StepKind::kSend && st.unit == "write")
        for (const Step* r : reads)
          if (same(find_arg(r->args, "source_stag"), find_arg(st.args, "stag")) &&
              same(find_arg(r->args, "source_to"), find_arg(st.args, "to")))
            overwritten = true;
      if (st.kind == StepKind::kExpect)
        for (const Alternative& a : st.alternatives)
          if (a.unit == "read_response" && find_arg(a.args, "payload")) {
            EXPECT_FALSE(overwritten) << c.file << ":" << st.line << ": " << c.id
                                      << " expects the Read Response's data after a later Write to the same place";
          }
    }
  }
}

// RFC 5040 §5.5: a Read Response is made by RDMAP, an echo is a Send the
// test ULP posts once it has the tester's Send; no rule orders the two. So no
// case may expect one while the other is still outstanding (Linux siw answers
// a Read Request before its ULP echoes an earlier Send, as it may).
TEST(Catalogue, NoOrderIsExpectedBetweenAnEchoAndARdmapReadResponse) {
  for (const Case& c : catalogue().cases) {
    if (!c.needs_item("echo")) continue;
    int sends = 0, reads = 0;  // sent by the tester, not yet answered
    for (const Step& st : c.steps) {
      if (st.kind == StepKind::kSend && st.unit.starts_with("send")) ++sends;
      if (st.kind == StepKind::kSend && st.unit == "read_request") ++reads;
      if (st.kind != StepKind::kExpect || st.alternatives.size() != 1) continue;
      const std::string& u = st.alternatives.front().unit;
      if (u == "send") {
        EXPECT_EQ(reads, 0) << c.file << ":" << st.line << ": " << c.id << " expects an echo before a Read Response";
        sends = std::max(0, sends - 1);
      } else if (u == "read_response") {
        EXPECT_EQ(sends, 0) << c.file << ":" << st.line << ": " << c.id << " expects a Read Response before an echo";
        reads = std::max(0, reads - 1);
      }
    }
  }
}

// RFC 5044 §8 (code 4): an initiator that gets an invalid Reply closes the
// connection at once, without a Terminate (as Linux siw does for a Reply of
// an unknown revision); the catalogue's invalid-Reply cases pass it.
TEST(Catalogue, AnInitiatorThatClosesOnAnInvalidReplyPasses) {
  auto cases = select(catalogue(), {}, {"mpa-initiator-bad-reply-key*", "mpa-initiator-reply-bad-rev*"});
  ASSERT_EQ(cases.size(), 4u);
  for (const Case* c : cases) {
    Listener l;
    std::string error;
    ASSERT_TRUE(listen_on("127.0.0.1", 0, l, error)) << error;
    const auto port = static_cast<std::uint16_t>(std::stoi(l.address.substr(l.address.rfind(':') + 1)));
    std::thread iut([port] {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(port);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
        const std::uint8_t request[20] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e', 0, 1, 0, 0};
        (void)::send(fd, request, sizeof request, MSG_NOSIGNAL);
        std::uint8_t reply[20];
        (void)::recv(fd, reply, sizeof reply, MSG_WAITALL);
      }
      ::close(fd);
    });
    RunOptions o;
    o.accept_initiator = accept_connector(l, 2000ms);
    o.time_scale = 0.25;
    CaseResult r = run_case(*c, o);
    iut.join();
    EXPECT_EQ(r.verdict, Verdict::kPass) << c->id << ": " << r.reason;
  }
}

// RFC 5044 §7.1.1 (Rev), RFC 6581 §6: an initiator that asked for Rev 2 may
// close on a Rev 1 Reply (Linux siw does). A case whose Reply is of a lower
// revision than the Request and that does not expect the close is then
// unimplemented, not failed.
TEST(Runner, AnInitiatorClosingOnALowerRevisionReplyIsUnimplemented) {
  auto cases = select(catalogue(), {}, {"mpa-initiator-sends-first-fpdu"});
  ASSERT_EQ(cases.size(), 1u);
  Listener l;
  std::string error;
  ASSERT_TRUE(listen_on("127.0.0.1", 0, l, error)) << error;
  const auto port = static_cast<std::uint16_t>(std::stoi(l.address.substr(l.address.rfind(':') + 1)));
  std::thread iut([port] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
      // Rev 2, S set, client/server: IRD 4, ORD 4, no RTR offered.
      const std::uint8_t request[24] = {'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e',
                                        0x10, 2, 0, 4, 0, 4, 0, 4};
      (void)::send(fd, request, sizeof request, MSG_NOSIGNAL);
      std::uint8_t reply[20];
      (void)::recv(fd, reply, sizeof reply, MSG_WAITALL);
    }
    ::close(fd);  // the case answers with Rev 1: this initiator cannot use it and closes
  });
  RunOptions o;
  o.accept_initiator = accept_connector(l, 2000ms);
  o.time_scale = 0.25;
  CaseResult r = run_case(*cases.front(), o);
  iut.join();
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
  EXPECT_NE(r.reason.find("Rev 1 Reply to its Rev 2 Request"), std::string::npos) << r.reason;
}

// A responder that reads the 20-octet header before it judges the Key (as
// Linux siw does) closes on every garbage the catalogue sends: none is
// shorter than a header, which would leave it waiting on its timer.
TEST(Catalogue, GarbageBeforeTheRequestFillsAHeader) {
  const auto cases = select(catalogue(), {}, {"mpa-garbage-before-request*"});
  ASSERT_GE(cases.size(), 2u);
  for (const Case* c : cases) {
    FakePeer peer(FakePeer::Mode::kCloseAfterRequest);
    CaseResult r = run_case(*c, peer.options());
    EXPECT_EQ(r.verdict, Verdict::kPass) << c->id << ": " << r.reason;
  }
}

TEST(BadPeer, ScriptErrorsAreErrorsNotFailures) {
  Reference ref;
  Case c = parse_one(header() + "handshake\n> write stag=$nosuchbuffer.stag payload=4\n");
  CaseResult r = run_case(c, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("nosuchbuffer"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace rdmaconf::conformance
