// The tester's FPDUs under whatever the connection negotiated: `split`,
// `more`, `fpdu ulpdu=`, `truncate` (octets counted without Markers); steps
// a connection's settings cannot carry are unimplemented with the setting
// named; what a pass sets (RunOptions::pass) shapes the tester's own
// Request, explains the IUT's bits, and every case reports what its
// connection negotiated.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "report/report.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::conformance {
namespace {

Case parse_one(const std::string& text) {
  auto r = parse_script(text, "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "mpa";
  return c;
}

std::string header(std::string_view needs = "echo") {
  return "id: t\ntitle: t\nrequirement: rfc5044-5.1-no-segment-assumption\nrfc: RFC 5044 §5.2\nlevel: MUST\n"
         "role: responder\nneeds: " + std::string(needs) + "\n";
}

// What a pass sets the reference IUT to ask for (IutMpaConfig).
IutMpaConfig iut_set(std::optional<int> revision, std::optional<bool> crc, std::optional<bool> markers) {
  IutMpaConfig m;
  m.revision = revision;
  m.want_crc = crc;
  m.want_markers = markers;
  return m;
}

// The reference IUT, set as a pass would set it.
struct Reference {
  ReferenceIut iut;
  RunOptions options;
  explicit Reference(IutMpaConfig mpa = {}, MpaSettings pass = {}) {
    iut.set_mpa(mpa);
    std::string error;
    EXPECT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    o.pass = pass;
    options = reference_options(iut, o);
  }
};

std::vector<std::uint8_t> from_hex(std::string_view h) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < h.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(h.substr(i, 2)), nullptr, 16)));
  return out;
}

// The octets the tester sent in each TCP send after its Request.
std::vector<std::vector<std::uint8_t>> sends_after_request(const CaseResult& r) {
  std::vector<std::vector<std::uint8_t>> out;
  bool request = true;
  for (const StreamChunk& c : r.exchange.chunks) {
    if (!c.from_tester) continue;
    if (request) {
      request = false;
      continue;
    }
    out.push_back(c.octets);
  }
  return out;
}

// The FPDUs the catalogue once spelt as raw octets (a Send of 8 octets, MSN 1,
// and one of 5, MSN 2, CRC computed by hand), without Markers.
constexpr std::string_view kSend8 = "001a4143000000000000000000000001000000000102030405060708b8b43f03";
constexpr std::string_view kSend5 = "0017414300000000000000000000000200000000a1a2a3a4a5000000e92f0f32";

TEST(Framing, SplitSendsTheFpduInTwoTcpSendsAfterItsNthOctet) {
  Reference ref;
  for (int n : {1, 2, 6, 20, 30}) {
    const CaseResult r = run_case(parse_one(header() + "handshake\n> send payload=hex:0102030405060708 split=" +
                                            std::to_string(n) + " pause=100ms\n< send payload=hex:0102030405060708\n"),
                                  ref.options);
    EXPECT_EQ(r.verdict, Verdict::kPass) << n << ": " << r.reason;
    const auto sends = sends_after_request(r);
    ASSERT_EQ(sends.size(), 2u) << n;
    std::vector<std::uint8_t> whole = sends[0];
    whole.insert(whole.end(), sends[1].begin(), sends[1].end());
    EXPECT_EQ(sends[0].size(), static_cast<std::size_t>(n));
    EXPECT_EQ(whole, from_hex(kSend8)) << n;
  }
  // The pause (100 ms, scaled by 0.25) lies between the two sends.
  const CaseResult r = run_case(parse_one(header() + "handshake\n> send payload=8 split=1 pause=100ms\n< send\n"), ref.options);
  std::vector<double> at;
  for (const StreamChunk& c : r.exchange.chunks)
    if (c.from_tester) at.push_back(c.at_ms);
  ASSERT_EQ(at.size(), 3u);
  EXPECT_GE(at[2] - at[1], 20.0);
}

TEST(Framing, WithMarkersASplitStillFallsAfterTheSameOctetOfTheFpdu) {
  Reference ref;
  // hint=markers: the reference IUT asks for Markers, so the first FPDU
  // starts with one (RFC 5044 §4.3), which goes with the octets after it.
  const CaseResult r = run_case(parse_one(header() + "handshake hint=markers\n> send payload=hex:0102030405060708 split=1\n"
                                                     "< send payload=hex:0102030405060708\n"),
                                ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto sends = sends_after_request(r);
  ASSERT_EQ(sends.size(), 2u);
  EXPECT_EQ(sends[0], from_hex("0000000000"));  // the Marker (FPDUPTR 0) and ULPDU_Length's first octet
  EXPECT_EQ(sends[0].size() + sends[1].size(), 36u);
  ASSERT_TRUE(r.negotiated);
  EXPECT_TRUE(r.negotiated->markers_to_iut);
  // truncate counts the same octets.
  const CaseResult t = run_case(parse_one(header() + "handshake hint=markers\n> send payload=8 truncate=2\n> fin\n< close\n"), ref.options);
  const auto cut = sends_after_request(t);
  ASSERT_FALSE(cut.empty());
  EXPECT_EQ(cut[0], from_hex("00000000001a"));
}

TEST(Framing, MoreSendsTwoUnitsInOneTcpSend) {
  Reference ref;
  const CaseResult r = run_case(parse_one(header() + "handshake\n> send payload=hex:0102030405060708 more\n"
                                                     "> send payload=hex:a1a2a3a4a5\n< send payload=hex:0102030405060708\n"
                                                     "< send payload=hex:a1a2a3a4a5\n"),
                                ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto sends = sends_after_request(r);
  ASSERT_EQ(sends.size(), 1u);
  std::vector<std::uint8_t> want = from_hex(kSend8);
  const auto second = from_hex(kSend5);
  want.insert(want.end(), second.begin(), second.end());
  EXPECT_EQ(sends[0], want);
}

TEST(Framing, FpduFramesTheUlpduItIsGiven) {
  Reference ref;
  const CaseResult r = run_case(parse_one(header("-") + "handshake\n> fpdu ulpdu=hex:414300000000\n"
                                                        "< terminate layer=ddp etype=0 code=0\n"),
                                ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto sends = sends_after_request(r);
  ASSERT_EQ(sends.size(), 1u);
  EXPECT_EQ(sends[0], from_hex("000641430000000063c49867"));  // ULPDU_Length 6, PAD 2, CRC
}

TEST(Framing, TheScriptCheckerKnowsTheSendOptions) {
  auto errors = [](const std::string& steps) {
    std::string all;
    for (const std::string& e : check_case(parse_one(header() + steps))) all += e + "\n";
    return all;
  };
  EXPECT_EQ(errors("handshake\n> send payload=8 split=6 pause=30ms\n> send payload=1 more\n> send payload=2\n"
                   "> fpdu ulpdu=hex:4143 crc=bad\n"),
            "");
  EXPECT_NE(errors("handshake\n> send payload=8 more\n< send\n").find("after one with 'more'"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 more\n").find("after one with 'more'"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 more\n> fin\n").find("after one with 'more'"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 pause=30ms\n").find("'pause' only beside 'split'"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 split=0\n").find("split=N"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 split=4 pause=30\n").find("pause=DURATION"), std::string::npos);
  EXPECT_NE(errors("handshake\n> send payload=8 split=4 more\n> send\n").find("not both"), std::string::npos);
  EXPECT_NE(errors("handshake\n> fpdu crc=bad\n").find("ulpdu="), std::string::npos);
  EXPECT_NE(errors("handshake\n> fpdu ulpdu=4 payload=4\n").find("got 'payload'"), std::string::npos);
  EXPECT_NE(errors("handshake\n> fpdu ulpdu=4 msn=1\n").find("got 'msn'"), std::string::npos);
  // A split past the unit's end is the script's error, found when it runs.
  Reference ref;
  const CaseResult r = run_case(parse_one(header() + "handshake\n> send payload=8 split=32\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("split=32"), std::string::npos) << r.reason;
}

TEST(Framing, WhatTheNegotiatedSettingsCannotCarryIsUnimplementedAndSaysWhichSetting) {
  Reference ref;
  struct Row {
    std::string steps, setting;
  };
  const Row rows[] = {
      // Markers towards the IUT: raw octets cannot place them.
      {"handshake hint=markers\n> raw hex:001a41430000\n", "Markers: the IUT asked for Markers"},
      // No CRC on the connection: a bad CRC is not one.
      {"handshake c=0\n> send payload=4 crc=bad\n", "CRC: neither side asked"},
      // No Markers towards the IUT: nothing for fpduptr to shape.
      {"handshake\n> send payload=4 fpduptr=7\n", "Markers: the IUT did not ask"},
  };
  for (const Row& row : rows) {
    const CaseResult r = run_case(parse_one(header() + row.steps), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << row.steps << r.reason;
    EXPECT_EQ(r.reason.rfind(row.setting, 0), 0u) << r.reason;
    EXPECT_NE(r.reason.find("this connection: rev1"), std::string::npos) << r.reason;
  }
  // Where the settings allow it, the same steps run.
  const CaseResult r = run_case(parse_one(header() + "handshake c=1\n> send payload=4 crc=bad\n< terminate layer=llp\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
}

TEST(Framing, ThePassShapesTheTestersRequestAndEachCaseReportsWhatItsConnectionNegotiated) {
  const std::string script = header() + "handshake\n> send payload=4\n< send payload_len=4\n";
  {
    Reference ref;  // no pass: the tester asks for CRC, no Markers, Rev 1
    const CaseResult r = run_case(parse_one(script), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    ASSERT_TRUE(r.negotiated);
    EXPECT_EQ(r.negotiated->to_string(), "rev1 crc=on markers=off p2p=off");
  }
  {
    // crc=off markers=on: the IUT is set to ask for no CRC and for Markers,
    // and so is the tester's Request; a case may still ask for CRC.
    Reference ref(iut_set({}, false, true), {.crc = false, .markers = true});
    const CaseResult r = run_case(parse_one(script), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    ASSERT_TRUE(r.negotiated);
    EXPECT_EQ(r.negotiated->to_string(), "rev1 crc=off markers=both p2p=off");
    EXPECT_EQ(r.negotiated->contradicts(ref.options.pass), "");
    const CaseResult c = run_case(parse_one(header() + "handshake c=1 m=0\n> send payload=4\n< send\n"), ref.options);
    ASSERT_TRUE(c.negotiated);
    EXPECT_EQ(c.negotiated->contradicts(ref.options.pass), "crc=on markers=to-iut");
  }
  {
    // rev=2: the tester's Request asks for Rev 2 (the IUT refuses others).
    Reference ref(iut_set(2, {}, {}), {.revision = 2});
    const CaseResult r = run_case(parse_one(script), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
    ASSERT_TRUE(r.negotiated);
    EXPECT_EQ(r.negotiated->revision, 2);
  }
}

TEST(Framing, WhatThePassSetsOnTheIutIsUnimplementedNotAFailure) {
  const std::string unasked = header("-") + "> mpa.request m=0\n< mpa.reply r=0 m=0\n";
  {
    // Set to ask for Markers, the IUT's M shows the pass, not the case.
    Reference ref(iut_set({}, {}, true), {.markers = true});
    const CaseResult r = run_case(parse_one(unasked), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
    EXPECT_NE(r.reason.find("markers=on"), std::string::npos) << r.reason;
    // A matcher the pass does not explain still fails.
    const CaseResult f = run_case(parse_one(header("-") + "> mpa.request m=0\n< mpa.reply r=0 m=0 rev=2\n"), ref.options);
    EXPECT_EQ(f.verdict, Verdict::kFail) << f.reason;
  }
  {
    // The same Reply without a pass that set it is the IUT's own doing.
    Reference ref(iut_set({}, {}, true));
    EXPECT_EQ(run_case(parse_one(unasked), ref.options).verdict, Verdict::kFail);
  }
  {
    // Set to Rev 2, the IUT refuses a Rev 1 Request: the case cannot run.
    Reference ref(iut_set(2, {}, {}), {.revision = 2});
    const CaseResult r = run_case(parse_one(header("-") + "handshake rev=1\n> send payload=4\n"), ref.options);
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
    EXPECT_EQ(r.reason.rfind("Revision:", 0), 0u) << r.reason;
    // A revision that does not exist is refused whatever the pass: judged.
    const CaseResult j = run_case(parse_one(header("-") + "> mpa.request rev=3\n< mpa.reply r=0\n"), ref.options);
    EXPECT_EQ(j.verdict, Verdict::kFail) << j.reason;
  }
}

TEST(Framing, TheJsonReportCarriesWhatWasNegotiatedAndReadsItBack) {
  Reference ref({}, {.crc = false});
  const std::vector<Case> cases{parse_one(header() + "handshake\n> send payload=4\n< send\n")};
  std::vector<CaseResult> results{run_case(cases[0], ref.options)};
  results[0].configuration = "crc=off";
  std::ostringstream out;
  write_json(out, results, RunInfo{});
  const auto j = nlohmann::json::parse(out.str());
  const auto& n = j["cases"][0]["negotiated"];
  EXPECT_EQ(n["revision"], 1);
  EXPECT_EQ(n["crc"], false);
  EXPECT_EQ(n["markers_to_iut"], false);
  std::vector<CaseResult> back;
  RunInfo info;
  std::string error;
  ASSERT_TRUE(read_json(out.str(), cases, back, info, error)) << error;
  ASSERT_TRUE(back[0].negotiated);
  EXPECT_EQ(back[0].negotiated->to_string(), results[0].negotiated->to_string());
  // A value of the wrong type is an error, not a crash.
  std::string bad = out.str();
  bad.replace(bad.find("\"crc\":false"), 11, "\"crc\":\"no\"");
  back.clear();
  EXPECT_FALSE(read_json(bad, cases, back, info, error));
  EXPECT_NE(error.find("crc"), std::string::npos) << error;
}

}  // namespace
}  // namespace rdmaconf::conformance
