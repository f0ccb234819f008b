// The ULP rules (reference/check/ulp.hpp) end to end: captures built here,
// message by message in the order the peers sent them, of an NFS-like
// RPC-over-RDMA exchange (RFC 8166) and an iSER one (RFC 7145) that keep
// every rule, then one capture per rule that breaks it and nothing else.
// Each broken capture is analyzed as a file (libpcap reads it back) and
// must report its rule: without the rule the test fails.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <functional>
#include <tuple>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "ddp/segmentation.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

// An MPA connection whose FPDUs are laid into the capture in the order the
// test appends them, whichever side sends them.
struct Conversation {
  Session s;
  std::vector<std::tuple<int, std::size_t, std::size_t>> order;
  std::uint32_t msn[2][2] = {{1, 1}, {1, 1}};  // per side: Send queue, Read Request queue

  Conversation() {
    s.start();
  }
  void fpdu(int side, const Bytes& ulpdu) {
    const std::size_t at = s.fpdu(side, ulpdu);
    order.emplace_back(side, at, s.stream[side].size());
  }
  // A Send (or Send with Invalidate, RFC 5040 §4.4: the STag in RsvdULP),
  // one DDP segment built through the untagged declaration.
  void send(int side, const Bytes& payload, std::optional<std::uint32_t> invalidate = std::nullopt) {
    ddp::UntaggedTarget t;
    t.rsvd_ulp = rdmap::Control::octet(invalidate ? rdmap::Opcode::kSendWithInvalidate : rdmap::Opcode::kSend);
    t.rsvd_ulp32 = invalidate.value_or(0);
    t.qn = ddp::QueueNumber{static_cast<std::uint32_t>(rdmap::Queue::kSend)};
    t.msn = ddp::Msn{msn[side][0]++};
    auto segments = ddp::segment_untagged(t, {}, wire::Chunks(wire::Bytes(payload)), 1 << 16);
    ASSERT_TRUE(segments.ok() && segments->size() == 1);
    fpdu(side, segments->front().to_vector());
  }
  void write(int side, std::uint32_t stag, std::uint64_t to, std::size_t length) {
    fpdu(side, tagged(0x0, stag, to, true, filler(length)));
  }
  // A Read Request and the peer's Read Response into the requested sink.
  void read(int side, std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size) {
    fpdu(side, read_request(msn[side][1]++, 0x7700, 0, size, source_stag, source_to));
    fpdu(1 - side, tagged(0x2, 0x7700, 0, true, filler(size)));
  }
  std::string save(const std::string& name) {
    CaptureBuilder cap(20049, 40000);
    cap.handshake();
    const std::size_t req = s.boundaries[0].empty() ? s.stream[0].size() : s.boundaries[0].front();
    const std::size_t rep = s.boundaries[1].empty() ? s.stream[1].size() : s.boundaries[1].front();
    cap.segment(0, s.stream[0], 0, req);
    cap.segment(1, s.stream[1], 0, rep);
    for (const auto& [side, from, to] : order) cap.segments(side, s.stream[side], from, to);
    cap.fin(0, s.stream[0].size());
    cap.fin(1, s.stream[1].size());
    return cap.save(name);
  }
};

std::map<std::string, std::uint64_t> violations(const AnalysisResult& r) { return r.summary.violations_per_rule; }

// ---- RPC-over-RDMA (RFC 8166 §4.1.2), written by rpcrdma::encode
struct Seg {
  std::uint32_t handle;
  std::uint32_t length;
  std::uint64_t offset;
};
struct Rpc {
  std::uint32_t xid = 0;
  std::uint32_t credits = 32;
  std::uint32_t proc = 0;  // RDMA_MSG
  std::vector<std::pair<std::uint32_t, Seg>> read_list;  // position, segment
  std::vector<std::vector<Seg>> write_list;
  std::optional<std::vector<Seg>> reply_chunk;
  // RDMA_MSG: the RPC message (RFC 5531 §9): a CALL of NFSv3 `nfs_proc`, or a REPLY.
  bool call = true;
  std::uint32_t nfs_proc = 0;
};
Rpc call(std::uint32_t xid, std::uint32_t nfs_proc) {
  Rpc m;
  m.xid = xid;
  m.nfs_proc = nfs_proc;
  return m;
}
Rpc reply(std::uint32_t xid, std::uint32_t credits, std::uint32_t proc = 0) {
  Rpc m;
  m.xid = xid;
  m.credits = credits;
  m.proc = proc;
  m.call = false;
  return m;
}
ulp::rpcrdma::WriteChunk chunk(const std::vector<Seg>& segments) {
  ulp::rpcrdma::WriteChunk c;
  for (const Seg& s : segments) c.segments.push_back({s.handle, s.length, s.offset, 0});
  return c;
}
Bytes encode(const Rpc& r) {
  namespace rpcrdma = ulp::rpcrdma;
  rpcrdma::Message m;
  m.xid = r.xid;
  m.vers = rpcrdma::kVersion1;
  m.credits = r.credits;
  m.proc = r.proc;
  for (const auto& [position, s] : r.read_list)
    m.read_list.push_back({position, rpcrdma::Segment{s.handle, s.length, s.offset, 0}});
  for (const auto& c : r.write_list) m.write_list.push_back(chunk(c));
  if (r.reply_chunk) m.reply_chunk = chunk(*r.reply_chunk);
  Bytes b;
  wire::ByteWriter w(b);
  rpcrdma::encode(m, w);
  if (m.is(rpcrdma::Proc::kMsg)) {
    if (r.call)
      ulp::onc_rpc::encode_call({r.xid, ulp::onc_rpc::kNfsProgram, 3, r.nfs_proc}, w);
    else
      ulp::onc_rpc::encode_message_start(r.xid, ulp::onc_rpc::kReply, w);
    w.put(filler(40));
  }
  return b;
}

// What a rule-breaking variant changes in the exchange.
struct RpcFlaws {
  std::uint32_t read_size = 2000;         // the Responder's Read of the 2000-octet read segment
  bool stray_write = false;               // a second Write running past the end of the 4096-octet Write chunk
  std::uint32_t returned_write = 100;     // what the READ reply's Write chunk returns (100 written)
  std::uint32_t returned_reply = 200;     // what the Long Reply's Reply chunk returns (200 written)
  bool reply_read_list = false;           // a read segment in a reply
  bool early_second_call = false;         // a second call before the first reply (one credit)
  bool getattr_read_chunk = false;        // GETATTR's arguments reduced into a Read chunk
  bool getattr_write_chunk = false;       // GETATTR's results returned in a Write chunk
  std::uint32_t granted = 32;
};

// A GETATTR, a READ whose data goes by RDMA Write into its Write chunk (the
// reply sent with Invalidate of the chunk's handle), a WRITE whose data the
// Responder pulls from its Read chunk, and a READDIRPLUS answered by a Long
// Reply in its Reply chunk (RDMA_NOMSG).
std::string nfs_exchange(const RpcFlaws& f, const std::string& name) {
  Conversation c;
  Rpc getattr = call(0x10, 1);
  if (f.getattr_read_chunk) getattr.read_list.push_back({8, Seg{0x900, 32, 0}});
  if (f.getattr_write_chunk) getattr.write_list.push_back({Seg{0x901, 128, 0}});
  c.send(0, encode(getattr));
  if (f.getattr_write_chunk) c.write(1, 0x901, 0, 84);
  if (f.early_second_call) c.send(0, encode(call(0x11, 1)));
  Rpc getattr_reply = reply(0x10, f.granted);
  if (f.reply_read_list) getattr_reply.read_list.push_back({0, Seg{0x900, 8, 0}});
  if (f.getattr_write_chunk) getattr_reply.write_list.push_back({Seg{0x901, 84, 0}});
  c.send(1, encode(getattr_reply));
  if (f.early_second_call) c.send(1, encode(reply(0x11, f.granted)));

  Rpc read = call(0x20, 6);
  read.write_list.push_back({Seg{0x100, 4096, 0x1000}});
  c.send(0, encode(read));
  c.write(1, 0x100, 0x1000, 100);
  if (f.stray_write) c.write(1, 0x100, 0x1000 + 4000, 200);
  Rpc read_reply = reply(0x20, f.granted);
  read_reply.write_list.push_back({Seg{0x100, f.returned_write, 0x1000}});
  c.send(1, encode(read_reply), 0x100);

  Rpc write = call(0x30, 7);
  write.read_list.push_back({128, Seg{0x200, 2000, 0x8000}});
  c.send(0, encode(write));
  c.read(1, 0x200, 0x8000, f.read_size);
  c.send(1, encode(reply(0x30, f.granted)), 0x200);

  Rpc readdir = call(0x40, 17);
  readdir.reply_chunk = std::vector<Seg>{Seg{0x300, 1024, 0}, Seg{0x301, 1024, 0x4000}};
  c.send(0, encode(readdir));
  c.write(1, 0x300, 0, 200);
  Rpc long_reply = reply(0x40, f.granted, 1);  // RDMA_NOMSG
  long_reply.reply_chunk = std::vector<Seg>{Seg{0x300, f.returned_reply, 0}, Seg{0x301, 0, 0x4000}};
  c.send(1, encode(long_reply));
  return c.save(name);
}

TEST(UlpRules, AnRpcOverRdmaExchangeThatKeepsEveryRule) {
  const AnalysisResult r = analyze(nfs_exchange({}, "ulp-rpc-good.pcapng"));
  EXPECT_EQ(violations(r), (std::map<std::string, std::uint64_t>{}));
  const UlpTotals& t = r.summary.ulps.at("rpc-over-rdma");
  EXPECT_EQ(t.by_source, (std::map<std::string, std::uint64_t>{{"first Send", 1}}));
  EXPECT_EQ(t.operations, (std::map<std::string, std::uint64_t>{
                              {"NFSv3 GETATTR", 1}, {"NFSv3 READ", 1}, {"NFSv3 READDIRPLUS", 1}, {"NFSv3 WRITE", 1}}));
  EXPECT_EQ(t.transfers.reads_tied, 1u);
  EXPECT_EQ(t.transfers.writes_tied, 2u);
  EXPECT_EQ(t.transfers.writes_to_write_chunks, 1u);
  EXPECT_EQ(t.transfers.writes_to_reply_chunks, 1u);
  EXPECT_EQ(t.transfers.invalidations_tied, 2u);
  EXPECT_EQ(t.transfers.replies_matched, 4u);
}

// One flaw per capture, one violation of its rule.
TEST(UlpRules, EachRpcOverRdmaRuleIsBrokenByItsFlaw) {
  struct Case {
    const char* rule;
    std::function<void(RpcFlaws&)> flaw;
  };
  const Case cases[] = {
      {"rfc8166-3.4.5-read-within-read-chunk", [](RpcFlaws& f) { f.read_size = 2001; }},
      {"rfc8166-4.3.2-write-within-chunk", [](RpcFlaws& f) { f.stray_write = true; }},
      {"rfc8166-3.4.6-reply-echoes-write-chunks", [](RpcFlaws& f) { f.returned_write = 101; }},
      {"rfc8166-4.3.3-reply-echoes-reply-chunk", [](RpcFlaws& f) { f.returned_reply = 1025; }},
      {"rfc8166-4.3.1-reply-read-list-empty", [](RpcFlaws& f) { f.reply_read_list = true; }},
      {"rfc8166-3.3.1-credit-limit", [](RpcFlaws& f) { f.early_second_call = true; }},
      {"rfc8166-3.3.1-grant-not-zero", [](RpcFlaws& f) { f.granted = 0; }},
      {"rfc8166-3.4.2-ddp-eligible-only", [](RpcFlaws& f) { f.getattr_read_chunk = true; }},
      {"rfc8166-3.4.2-ddp-eligible-only", [](RpcFlaws& f) { f.getattr_write_chunk = true; }},
  };
  int i = 0;
  for (const Case& k : cases) {
    RpcFlaws f;
    k.flaw(f);
    const AnalysisResult r = analyze(nfs_exchange(f, std::string("ulp-rpc-") + std::to_string(i++) + ".pcapng"));
    const auto v = violations(r);
    EXPECT_TRUE(v.count(k.rule)) << k.rule;
    // Nothing but that rule (a zero grant stays zero for the rest: one per reply).
    for (const auto& [id, n] : v) EXPECT_EQ(id, k.rule) << k.rule;
  }
}

// ---- iSER (RFC 7145 §9.2 header, RFC 7143 §11.3 SCSI Command BHS), written by iser::encode
struct Scsi {
  std::uint8_t iscsi_opcode = 0x01;
  std::uint32_t itt = 0;
  std::optional<std::pair<std::uint32_t, std::uint64_t>> write_stag, read_stag;
  std::uint8_t cdb = 0x28;  // READ(10)
  std::uint32_t edtl = 0;
};
Bytes encode(const Scsi& s) {
  ulp::iser::Message m;
  m.opcode = static_cast<std::uint8_t>(ulp::iser::Opcode::kControl);
  m.wsv = m.scsi_write = s.write_stag.has_value();
  m.rsv = m.scsi_read = s.read_stag.has_value();
  if (s.write_stag) std::tie(m.write_stag, m.write_base_offset) = *s.write_stag;
  if (s.read_stag) std::tie(m.read_stag, m.read_base_offset) = *s.read_stag;
  m.iscsi_opcode = s.iscsi_opcode;
  m.final = true;
  m.itt = s.itt;
  m.expected_data_transfer_length = s.edtl;
  m.cdb_opcode = s.cdb;
  return ulp::iser::encode(m);
}
Scsi command(std::uint32_t itt, std::uint8_t cdb, std::uint32_t edtl) {
  Scsi m;
  m.itt = itt;
  m.cdb = cdb;
  m.edtl = edtl;
  return m;
}
Scsi response(std::uint32_t itt) {
  Scsi m;
  m.iscsi_opcode = 0x21;
  m.itt = itt;
  return m;
}

struct IserFlaws {
  std::uint32_t read_source = 0xb00;                  // the target's Read: from the WRITE's Write STag
  std::uint32_t write_sink = 0xa00;                   // its Writes: to the READ's Read STag
  std::uint32_t write_length = 4096;                  // the READ's whole buffer
  std::uint32_t read_response_invalidates = 0xa00;    // the READ's Response: its Read STag
  bool tur_response_invalidates = false;              // the TEST UNIT READY's Response by plain Send
};

// A READ(10) of 4096 octets into the initiator's Read STag, a WRITE(10) of
// 8192 the target reads from its Write STag, a TEST UNIT READY without
// buffers; each answered by a SCSI Response.
std::string iser_exchange(const IserFlaws& f, const std::string& name) {
  Conversation c;
  Scsi read = command(1, 0x28, 4096);
  read.read_stag = std::pair{0xa00u, std::uint64_t{0x10000}};
  c.send(0, encode(read));
  c.write(1, f.write_sink, 0x10000, f.write_length);
  c.send(1, encode(response(1)), f.read_response_invalidates);
  Scsi write = command(2, 0x2a, 8192);
  write.write_stag = std::pair{0xb00u, std::uint64_t{0x20000}};
  c.send(0, encode(write));
  c.read(1, f.read_source, 0x20000, 8192);
  c.send(1, encode(response(2)), 0xb00);
  c.send(0, encode(command(3, 0x00, 0)));
  c.send(1, encode(response(3)), f.tur_response_invalidates ? std::optional(0xc00u) : std::nullopt);
  return c.save(name);
}

TEST(UlpRules, AnIserExchangeThatKeepsEveryRule) {
  const AnalysisResult r = analyze(iser_exchange({}, "ulp-iser-good.pcapng"));
  EXPECT_EQ(violations(r), (std::map<std::string, std::uint64_t>{}));
  const UlpTotals& t = r.summary.ulps.at("iser");
  EXPECT_EQ(t.operations, (std::map<std::string, std::uint64_t>{
                              {"READ(10)", 1}, {"TEST UNIT READY", 1}, {"WRITE(10)", 1}}));
  EXPECT_EQ(t.transfers.reads_tied, 1u);
  EXPECT_EQ(t.transfers.writes_tied, 1u);
  EXPECT_EQ(t.transfers.invalidations, 2u);
  EXPECT_EQ(t.transfers.invalidations_tied, 2u);
  EXPECT_EQ(t.transfers.replies_matched, 3u);
}

TEST(UlpRules, EachIserRuleIsBrokenByItsFlaw) {
  struct Case {
    const char* rule;
    std::function<void(IserFlaws&)> flaw;
  };
  const Case cases[] = {
      {"rfc7145-7.3.6-read-uses-write-stag", [](IserFlaws& f) { f.read_source = 0xa00; }},
      {"rfc7145-7.3.5-write-uses-read-stag", [](IserFlaws& f) { f.write_sink = 0xb00; }},
      {"rfc7145-7.3.5-write-uses-read-stag", [](IserFlaws& f) { f.write_length = 4097; }},
      {"rfc7145-7.3.2-response-invalidates-task-stag", [](IserFlaws& f) { f.read_response_invalidates = 0xb00; }},
      {"rfc7145-7.3.2-response-invalidates-task-stag", [](IserFlaws& f) { f.tur_response_invalidates = true; }},
  };
  int i = 0;
  for (const Case& k : cases) {
    IserFlaws f;
    k.flaw(f);
    const AnalysisResult r = analyze(iser_exchange(f, "ulp-iser-" + std::to_string(i++) + ".pcapng"));
    const auto v = violations(r);
    EXPECT_EQ(v, (std::map<std::string, std::uint64_t>{{k.rule, 1}})) << k.rule;
  }
}

// The crafted captures the catalogue's capture cases name
// (conformance/cases/capture/, pcap/tests/captures/crafted/) are exactly
// what the builders above write: the exchange that keeps every rule, and
// one exchange per rule with that rule's flaw. RDMACONF_WRITE_CRAFTED=1
// writes them anew (after a builder changed) instead of comparing.
TEST(UlpRules, TheCraftedCapturesAreTheBuildersOutput) {
  auto rpc = [](std::function<void(RpcFlaws&)> flaw) {
    RpcFlaws f;
    flaw(f);
    return f;
  };
  auto iser = [](std::function<void(IserFlaws&)> flaw) {
    IserFlaws f;
    flaw(f);
    return f;
  };
  const std::pair<std::string, std::string> made[] = {
      {"ulp-rpc-keeps-every-rule.pcapng", nfs_exchange({}, "crafted-rpc-good.pcapng")},
      {"ulp-rpc-read-within-read-chunk.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.read_size = 2001; }), "crafted-rpc-1.pcapng")},
      {"ulp-rpc-write-within-chunk.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.stray_write = true; }), "crafted-rpc-2.pcapng")},
      {"ulp-rpc-reply-echoes-write-chunks.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.returned_write = 101; }), "crafted-rpc-3.pcapng")},
      {"ulp-rpc-reply-echoes-reply-chunk.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.returned_reply = 1025; }), "crafted-rpc-4.pcapng")},
      {"ulp-rpc-reply-read-list-empty.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.reply_read_list = true; }), "crafted-rpc-5.pcapng")},
      {"ulp-rpc-credit-limit.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.early_second_call = true; }), "crafted-rpc-6.pcapng")},
      {"ulp-rpc-grant-not-zero.pcapng", nfs_exchange(rpc([](RpcFlaws& f) { f.granted = 0; }), "crafted-rpc-7.pcapng")},
      {"ulp-rpc-ddp-eligible-only.pcapng",
       nfs_exchange(rpc([](RpcFlaws& f) { f.getattr_read_chunk = true; }), "crafted-rpc-8.pcapng")},
      {"ulp-iser-keeps-every-rule.pcapng", iser_exchange({}, "crafted-iser-good.pcapng")},
      {"ulp-iser-read-uses-write-stag.pcapng",
       iser_exchange(iser([](IserFlaws& f) { f.read_source = 0xa00; }), "crafted-iser-1.pcapng")},
      {"ulp-iser-write-uses-read-stag.pcapng",
       iser_exchange(iser([](IserFlaws& f) { f.write_sink = 0xb00; }), "crafted-iser-2.pcapng")},
      {"ulp-iser-response-invalidates-task-stag.pcapng",
       iser_exchange(iser([](IserFlaws& f) { f.read_response_invalidates = 0xb00; }), "crafted-iser-3.pcapng")},
  };
  auto octets = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const bool write = std::getenv("RDMACONF_WRITE_CRAFTED") != nullptr;
  for (const auto& [name, built] : made) {
    const std::string committed = std::string(RDMACONF_TEST_CAPTURES) + "/crafted/" + name;
    if (write) {
      std::ofstream(committed, std::ios::binary) << octets(built);
      continue;
    }
    EXPECT_EQ(octets(committed), octets(built)) << committed << " is not what its builder writes (see above)";
  }
}

// A ULP violation is reported as every other: by `analyze`'s text and JSON,
// with its frame, side and words.
TEST(UlpRules, ViolationsAreReportedAsTheOthers) {
  RpcFlaws f;
  f.read_size = 2001;
  const std::string path = nfs_exchange(f, "ulp-rpc-report.pcapng");
  const AnalysisResult r = analyze(path);
  ASSERT_EQ(r.violations.size(), 1u);
  const ViolationRecord& v = r.violations.front();
  EXPECT_EQ(v.rule, &check::kRpcReadWithinReadChunk);
  EXPECT_EQ(v.side, Side::kResponder);
  EXPECT_NE(v.text.find("RDMA Read Request from STag 0x200 TO 0x8000 (2001 octets) reads outside every read segment"),
            std::string::npos)
      << v.text;
  const std::string out = rdmaconf::testing::run_command(std::string(RDMACONF_CLI) + " analyze -q --json - " + path);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["violations_per_rule"]["rfc8166-3.4.5-read-within-read-chunk"], 1) << out;
  EXPECT_EQ(j["ulps"]["rpc-over-rdma"]["transfers"]["reads_tied"], 0) << out;
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
