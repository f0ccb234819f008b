// Writes the DDP-over-SCTP captures the plugin tests read (RFC 5043), and
// which rule ids each one was built to break.
//
//   make_sctp_captures DIR    the captures + DIR/expected.json
//
// Each capture is raw IP (LINKTYPE_RAW) between two hosts; SCTP packets go
// over IP protocol 132, or over UDP (RFC 6951) on SCTP's registered port;
// user messages in DATA chunks, or in RFC 8260's I-DATA chunks.
// The octets come from the reference codecs (sctp::encode_packet, the DATA,
// INIT, Segment Chunk and Session Control encoders, the DDP declarations)
// through the builders the pcap tests share (pcap/tests/sctp_builders.hpp),
// with one rule broken on purpose per crafted capture; the test
// (check_plugin.py sctp) compares tshark's expert infos with `rdmaconf
// analyze`'s violations and, on the clean ones, the messages shown with
// `rdmaconf decode`. A file of its own rather than more of make_captures.cpp:
// it shares nothing with the TCP recorder there.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "ddp/headers.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "sctp/headers.hpp"
#include "sctp/messages.hpp"
#include "sctp/packet.hpp"
#include "sctp_builders.hpp"

namespace fs = std::filesystem;
using namespace rdmaconf;
using namespace rdmaconf::capture::testing::sctp_build;
using Bytes = Octets;

namespace {

Bytes filler(std::size_t n, std::uint8_t seed = 0) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

// An untagged Send (RFC 5040 §4.1) on queue 0 with its DDP header (RFC 5041 §4.2).
Bytes send_msg(std::uint32_t msn, const Bytes& payload) {
  using F = ddp::UntaggedSpec::Field;
  ddp::UntaggedHeader h;
  h.set(F::T, 0).set(F::L, 1).set(F::DV, ddp::kDdpVersion).set(F::RsvdULP, rdmap::Control::octet(rdmap::Opcode::kSend));
  h.set(F::QN, 0).set(F::MSN, msn).set(F::MO, 0);
  Bytes out(h.bytes().begin(), h.bytes().end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

struct Expect {
  std::string name;
  std::vector<std::string> violations;  // rule ids analyze must report; none: a clean capture
  bool over_udp = false;
};

// One capture file of one association; over UDP on SCTP's registered
// encapsulation port both ways (RFC 6951 §5).
SctpCapture capture_for(const fs::path& dir, const Expect& e, bool v6 = false) {
  const std::uint16_t udp = e.over_udp ? sctp::kUdpEncapsulationPort : std::uint16_t{0};
  return SctpCapture((dir / (e.name + ".pcapng")).string(), {.v6 = v6, .udp_initiator = udp, .udp_responder = udp});
}

// A clean session: Sends both ways, three chunks bundled in one packet, a
// segment SCTP fragmented into three DATA chunks.
void clean(const fs::path& dir, std::vector<Expect>& all, bool v6, bool udp) {
  const Expect e{std::string("sctp_clean") + (v6 ? "_v6" : "") + (udp ? "_udp" : ""), {}, udp};
  SctpCapture c = capture_for(dir, e, v6);
  c.accepted();
  c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
  c.packet(1, data(1, kDdp, segment_chunk(1, send_msg(1, filler(10)))));
  c.packet(0, cat({data(2, kDdp, segment_chunk(2, send_msg(2, filler(20)))),
                   data(3, kDdp, segment_chunk(3, send_msg(3, filler(30))))}));
  const Bytes whole = segment_chunk(4, send_msg(4, filler(3000)));
  c.packet(0, data(4, kDdp, Bytes(whole.begin(), whole.begin() + 1000), {.b = true, .e = false}));
  c.packet(0, data(5, kDdp, Bytes(whole.begin() + 1000, whole.begin() + 2000), {.b = false, .e = false}));
  c.packet(0, data(6, kDdp, Bytes(whole.begin() + 2000, whole.end()), {.b = false, .e = true}));
  c.packet(1, data(2, kDdp, segment_chunk(2, send_msg(2, filler(8)))));
  all.push_back(e);
}

void crafted(const fs::path& dir, std::vector<Expect>& all) {
  {
    // RFC 5043 §5.1 (the INIT has no indication), §10 (the Accept without
    // U), §6 (DDP-SSN 1 twice).
    const Expect e{"sctp_layer_rules",
                   {"rfc5043-5.1-indication-in-init", "rfc5043-10-unordered", "rfc5043-6-no-ssn-gaps"}};
    SctpCapture c = capture_for(dir, e);
    c.packet(0, init(false, std::nullopt));
    c.packet(1, init(true));
    c.packet(0, data(0, kControl, control(0, sctp::FunctionCode::kInitiate)));
    c.packet(1, data(0, kControl, control(0, sctp::FunctionCode::kAccept), {.u = false}));
    c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
    c.packet(0, data(2, kDdp, segment_chunk(1, send_msg(2, filler(20)))));
    all.push_back(e);
  }
  {
    // I-DATA (RFC 8260): two Sends in two fragments each, interleaved, then
    // one without U (RFC 5043 §10), judged when its last fragment arrives.
    const Expect e{"sctp_idata", {"rfc5043-10-unordered"}};
    SctpCapture c = capture_for(dir, e);
    c.accepted();
    const Bytes one = segment_chunk(1, send_msg(1, filler(1500))), two = segment_chunk(2, send_msg(2, filler(1500, 9)));
    const auto part = [](const Bytes& m, bool second) {
      return second ? Bytes(m.begin() + 700, m.end()) : Bytes(m.begin(), m.begin() + 700);
    };
    c.packet(0, idata(1, 1, kDdp, 0, part(one, false), {.b = true, .e = false}));
    c.packet(0, idata(2, 2, kDdp, 0, part(two, false), {.b = true, .e = false}));
    c.packet(0, idata(3, 1, 0, 1, part(one, true), {.b = false, .e = true}));
    c.packet(0, idata(4, 2, 0, 1, part(two, true), {.b = false, .e = true}));
    const Bytes three = segment_chunk(3, send_msg(3, filler(40)));
    c.packet(0, idata(5, 3, kDdp, 0, Bytes(three.begin(), three.begin() + 20), {.b = true, .e = false, .u = false}));
    c.packet(0, idata(6, 3, 0, 1, Bytes(three.begin() + 20, three.end()), {.b = false, .e = true, .u = false}));
    all.push_back(e);
  }
  {
    // RFC 5043 §6.6: a DDP segment before the Initiate.
    const Expect e{"sctp_segment_first", {"rfc5043-6.6-no-segment-before-initiate"}};
    SctpCapture c = capture_for(dir, e);
    c.packet(0, init(false));
    c.packet(1, init(true));
    c.packet(0, data(0, kDdp, segment_chunk(0, send_msg(1, filler(20)))));
    c.packet(0, data(1, kControl, control(1, sctp::FunctionCode::kInitiate)));
    all.push_back(e);
  }
  {
    // RFC 5043 §5.2.3: an Initiate whose private data is over the limit,
    // over UDP (RFC 6951).
    const Expect e{"sctp_private_data_udp", {"rfc5043-5.2.3-private-data-max"}, true};
    SctpCapture c = capture_for(dir, e);
    c.packet(0, init(false));
    c.packet(1, init(true));
    c.packet(0, data(0, kControl,
                     control(0, sctp::FunctionCode::kInitiate, filler(sctp::kMaxPrivateDataLength + 1))));
    all.push_back(e);
  }
  {
    // RFC 5041 §4.3 over SCTP: a Send whose MSN skips one (the DDP rules of
    // the segments the adaptation layer hands on), and a packet whose
    // checksum does not check (a finding, not a rule).
    const Expect e{"sctp_ddp_msn", {"rfc5041-4.3-msn-increment"}};
    SctpCapture c = capture_for(dir, e);
    c.accepted();
    c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
    c.packet(0, data(2, kDdp, segment_chunk(2, send_msg(3, filler(20)))));
    c.packet(1, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))), 0x12345678);
    all.push_back(e);
  }
}

std::string json_string(const std::string& s) { return "\"" + s + "\""; }

void write_expectations(const fs::path& file, const std::vector<Expect>& all) {
  std::ofstream out(file);
  out << "[\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Expect& e = all[i];
    out << "  {\"name\": " << json_string(e.name) << ", \"file\": " << json_string(e.name + ".pcapng")
        << ", \"over_udp\": " << (e.over_udp ? "true" : "false") << ", \"violations\": [";
    for (std::size_t k = 0; k < e.violations.size(); ++k) out << (k ? ", " : "") << json_string(e.violations[k]);
    out << "]}" << (i + 1 < all.size() ? "," : "") << "\n";
  }
  out << "]\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_sctp_captures DIR\n");
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  std::vector<Expect> all;
  clean(dir, all, false, false);
  clean(dir, all, true, true);
  crafted(dir, all);
  write_expectations(dir / "expected.json", all);
  return 0;
}
