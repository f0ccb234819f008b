// `rdmaconf run` fails fast and loses nothing (run_checks.hpp): meaningless
// option combinations are usage errors naming both options, outputs are
// checked before the first case, a target that does not speak MPA stops the
// run within seconds with exit code 3, and a report that cannot be written
// at the end leaves the results in a file the run names (exit code 4).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli_run.hpp"
#include "tests/support/loopback_peer.hpp"

namespace rdmaconf::cli::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A few quick cases against the reference: a run of well under a second.
const std::string kQuick = "--reference -q --time-scale 0.25 --case 'mpa-crc*' ";

struct Folder : test_support::ScratchFolder {
  Folder() : ScratchFolder("run") {}
};
using test_support::LoopbackPeer;

// Answers every connection as an HTTP server answers octets it cannot parse.
LoopbackPeer::Play http_like() {
  return {.answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
          .then = LoopbackPeer::Then::kClose,
          .read_first = 512,
          .read = LoopbackPeer::Read::kWhatCame,
          .every_connection = true};
}

TEST(Run, AReportIntoAMissingFolderIsWritten) {
  Folder d;
  const Ran r = rdmaconf("run " + kQuick + "--junit " + (d / "new/deeper/x.xml") + " --json " + (d / "r/r.json"));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(slurp(d / "new/deeper/x.xml").find("<testsuites"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::parse(slurp(d / "r/r.json"), nullptr, false).is_object());
}

// Before the first case: nothing runs, an existing report stays as it was.
TEST(Run, AnUnwritableOutputStopsTheRunBeforeAnyCase) {
  Folder d;
  std::ofstream(d / "file") << "in the way";
  std::ofstream(d / "old.xml") << "the last run's report";
  const Ran r = rdmaconf("run --reference --time-scale 0.25 --junit " + (d / "old.xml") + " --json " +
                         (d / "file/r.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "rdmaconf run: --json: cannot make the folder " + (d / "file") + ": " + (d / "file") +
                       " is a file\n");
  EXPECT_EQ(r.out, "");
  EXPECT_LT(r.took, 5s);
  EXPECT_EQ(slurp(d / "old.xml"), "the last run's report");
}

TEST(Run, AReportThatCannotBeWrittenLeavesTheResultsInAFileItNames) {
  Folder d;
  const Ran r = rdmaconf("run " + kQuick + "--json /dev/full", "TMPDIR=" + (d / ""));
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("rdmaconf run: --json: cannot write /dev/full: No space left on device\n"), std::string::npos)
      << r.err;
  const std::string said = "the results were saved to ";
  const auto at = r.err.find(said);
  ASSERT_NE(at, std::string::npos) << r.err;
  const std::string fallback = r.err.substr(at + said.size(), r.err.find(' ', at + said.size()) - at - said.size());
  EXPECT_EQ(fs::path(fallback).parent_path(), fs::path(d / "").parent_path());
  const auto j = nlohmann::json::parse(slurp(fallback), nullptr, false);
  ASSERT_TRUE(j.is_object()) << fallback;
  EXPECT_EQ(j["cases"].size(), 14u);
  // When the JSON report itself was written, it holds the results.
  const Ran junit = rdmaconf("run " + kQuick + "--junit /dev/full --json " + (d / "r.json"), "TMPDIR=" + (d / ""));
  EXPECT_EQ(junit.code, 4);
  EXPECT_NE(junit.err.find("the results are in the JSON report, " + (d / "r.json")), std::string::npos) << junit.err;
}

// A capture that cannot be written is a lost report: the run says which
// and how many, and exits 4; the other reports are written.
TEST(Run, ACaptureThatCannotBeWrittenIsALostReport) {
  Folder d;
  fs::create_directories(d / "caps/mpa-echo-pad-zero.pcapng");  // a folder where the capture goes
  const Ran r = rdmaconf("run --reference --time-scale 0.25 --case mpa-echo-pad-zero --case mpa-echo-ulpdu-length-5 "
                         "--pcap " + (d / "caps") + " --json " + (d / "r.json"));
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("--pcap: 1 of 2 captures could not be written into " + (d / "caps")), std::string::npos)
      << r.err;
  EXPECT_TRUE(fs::exists(d / "caps/mpa-echo-ulpdu-length-5.pcapng"));
  EXPECT_TRUE(nlohmann::json::parse(slurp(d / "r.json"), nullptr, false).is_object());
}

// Over SCTP a case that ran is written as its association, and one left
// unimplemented before its first step (it rests on MPA) opened nothing and
// leaves no capture. The JSON report keeps the failing case's association,
// and `rdmaconf findings --report` writes its capture from it.
TEST(Run, SctpCapturesAreTheAssociationsThatRanAndTheReportKeepsThem) {
  Folder d;
  const Ran r = rdmaconf("run --reference -q --time-scale 0.25 --transport sctp --fault sctp-ordered-chunks "
                         "--case ddp-echo-msn-increment --case rdmap-requester-ird-ord-held --pcap " + (d / "caps") +
                         " --json " + (d / "r.json"));
  EXPECT_EQ(r.code, 1) << r.err;
  const auto report = nlohmann::json::parse(slurp(d / "r.json"), nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.err;
  std::map<std::string, nlohmann::json> cases;
  for (const auto& c : report["cases"]) cases[c["id"]] = c;
  ASSERT_EQ(cases["rdmap-requester-ird-ord-held"]["verdict"], "unimplemented");
  EXPECT_FALSE(fs::exists(d / "caps/rdmap-requester-ird-ord-held.pcapng"));
  const auto& failed = cases["ddp-echo-msn-increment"];
  ASSERT_EQ(failed["verdict"], "fail") << failed["reason"];
  EXPECT_TRUE(fs::exists(d / "caps/ddp-echo-msn-increment.pcapng"));
  // The IUT's messages as SCTP carried them: ordered (the fault), PPID 16 or 17.
  ASSERT_TRUE(failed.contains("exchange")) << failed.dump();
  std::size_t from_iut = 0;
  for (const auto& m : failed["exchange"]["sctp"]["messages"])
    if (m["from"] == "iut") {
      ++from_iut;
      EXPECT_EQ(m["unordered"], false);
      EXPECT_TRUE(m["ppid"] == 16 || m["ppid"] == 17) << m.dump();
    }
  EXPECT_GT(from_iut, 1u);

  const Ran bug = rdmaconf("findings " + (d / "r.json") + " --report F1 --out " + (d / "bug"));
  // The same packets; the report keeps whole milliseconds, so the times may differ.
  ASSERT_TRUE(fs::exists(d / "bug/ddp-echo-msn-increment.pcapng")) << bug.out << bug.err;
  EXPECT_EQ(fs::file_size(d / "bug/ddp-echo-msn-increment.pcapng"), fs::file_size(d / "caps/ddp-echo-msn-increment.pcapng"));
}

// Each combination would have run while ignoring an option.
TEST(Run, MeaninglessCombinationsAreUsageErrorsNamingBothOptions) {
  struct Bad {
    std::string args;
    std::string said;
  };
  const Bad bads[] = {
      {"--target 127.0.0.1:1 --fault ddp-skip-msn-check", "--fault needs --reference"},
      {"--reference --agent http://127.0.0.1:1", "--agent and --reference exclude each other"},
      {"--reference --target 127.0.0.1:1", "--target and --reference exclude each other"},
      {"--reference --listen 127.0.0.1:0", "--listen and --reference exclude each other"},
      {"--target 127.0.0.1:1 --token t", "--token needs --agent"},
      {"--target 127.0.0.1:1 --agent-config default", "--agent-config needs --agent"},
      {"--target 127.0.0.1:1 --agent-listen 7000", "--agent-listen needs --agent"},
      {"--target 127.0.0.1:1 --agent-connect-to 10.0.0.1", "--agent-connect-to needs --agent"},
      {"--target 127.0.0.1:1 --agent-nat", "--agent-nat needs --agent"},
      {"--target 127.0.0.1:1 --agent-return 30", "--agent-return needs --agent"},
      {"--agent http://127.0.0.1:1 --target 127.0.0.1:1 --agent-nat -j 4", "--agent-nat runs one case at a time"},
      {"--reference --publish-token t", "--publish-token needs --publish"},
      {"--target 127.0.0.1:1 --suite mpa --clc-target 127.0.0.1:1", "--clc-target serves the clc and smcr suites, which --suite"},
      {"--reference --suite mpa --clc-gid auto", "--clc-gid shapes the CLC messages of the clc and smcr suites, which --suite"},
      {"--reference --suite clc --reply-settle 10", "--reply-settle delays the MPA cases, which --suite"},
      {"--listen 127.0.0.1:0 --reply-settle 10", "--reply-settle needs --target"},
      {"--reference --junit -", "--junit writes files: give a name (only --json takes -"},
      {"--reference --suite mpx", "--suite mpx: the catalogue's suites are clc, ddp, mpa, rdmap"},
      {"--reference --case no-such-case", "--case no-such-case matches no case"},
      {"--reference --iut-lacks smcr-v3", "got 'smcr-v3'"},
      {"--reference --roce-device rxe0", "--roce-device puts the smcr suite's tester on a device; --reference"},
      {"--clc-target 127.0.0.1:1 --roce-gid-index 1", "--roce-gid-index needs --roce-device"},
      {"--clc-target 127.0.0.1:1 --roce-alternate-device rxe1", "--roce-alternate-device needs --roce-device"},
      {"--clc-target 127.0.0.1:1 --roce-device rxe0 --roce-alternate-device rxe0", "a second link needs a second port"},
      {"--clc-target 127.0.0.1:1 --roce-device rxe0 --roce-alternate-gid-index 1",
       "--roce-alternate-gid-index needs --roce-alternate-device"},
      {"--clc-target 127.0.0.1:1 --suite clc --roce-device rxe0", "--roce-device serves the smcr suite, which --suite"},
      {"--reference --suite clc --smcr-version 2", "--smcr-version shapes the smcr suite, which --suite"},
      {"--reference --transport sctp --sctp-stack kernel", "--sctp-stack kernel needs --transport sctp --target"},
      {"--target 127.0.0.1:1 --sctp-stack kernel", "--sctp-stack kernel needs --transport sctp --target"},
      // A device that is not there stops the run before its first case.
      {"--clc-target 127.0.0.1:1 --suite smcr --roce-device no-such-device9", "--roce-device: "},
  };
  for (const Bad& b : bads) {
    const Ran r = rdmaconf("run " + b.args);
    EXPECT_EQ(r.code, 2) << b.args;
    EXPECT_NE(r.err.find(b.said), std::string::npos) << b.args << " -> " << r.err;
    EXPECT_LT(r.took, 5s) << b.args;
  }
}

// docs/conformance.md offers these items; the run takes them.
TEST(Run, EveryNeedsItemCanBeDeclaredLacking) {
  const Ran r = rdmaconf("run " + kQuick + "--iut-lacks smcr-v2 smcv2.1 buffer:otherpd buffer terminate-events");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(Run, ATargetThatDoesNotSpeakMpaStopsWithinSecondsWithExitCode3) {
  LoopbackPeer http(http_like());
  const Ran r = rdmaconf("run --target " + http.address());
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_EQ(r.err, "rdmaconf run: the target at " + http.address() +
                       " answered `HTTP/1.1 400 Bad Request` to an MPA Request; it does not speak MPA (RFC 5044 "
                       "§7.1.2); --no-probe runs the cases anyway\n");
  EXPECT_EQ(r.out.find("[1/"), std::string::npos) << "a case ran: " << r.out;
  EXPECT_LT(r.took, 5s);
  // --no-probe: the cases run (and fail) as before.
  const Ran anyway = rdmaconf("run --no-probe -q --time-scale 0.25 --case 'mpa-crc*' --target " + http.address());
  EXPECT_EQ(anyway.code, 1) << anyway.err;
}

TEST(Run, AnUnreachableTargetIsASetupError) {
  // A port that was free a moment ago: nobody listens there.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  const std::string address = "127.0.0.1:" + std::to_string(ntohs(a.sin_port));
  const Ran r = rdmaconf("run --target " + address);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("rdmaconf run: cannot reach the iWARP target: cannot connect to " + address), std::string::npos)
      << r.err;
}

TEST(Run, TheReferenceAnswersTheProbe) {
  const Ran r = rdmaconf("run --reference --time-scale 0.25 --case 'mpa-crc-error-code' 'clc-accept-first-contact'");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("answered the probe with an accepting MPA Reply, Rev 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("answered the probe with a CLC Accept"), std::string::npos) << r.out;
}

TEST(Run, HelpStatesTheExitCodes) {
  const Ran r = rdmaconf("run --help");
  EXPECT_EQ(r.code, 0);
  for (const char* code : {"  0  no case failed", "  1  a case failed", "  2  usage or setup error",
                           "  3  the target does not speak the protocol",
                           "  4  the run finished but a report could not be written"})
    EXPECT_NE(r.out.find(code), std::string::npos) << code;
}

}  // namespace
}  // namespace rdmaconf::cli::testing
