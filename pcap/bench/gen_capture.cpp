// Writes a large marker-free iWARP capture for the analyze benchmark
// (docs/performance.md, capture analysis): one MPA connection (Rev 2, CRC, no
// Markers), then RDMA Writes whose FPDUs fill the 1460-octet MSS exactly (one
// FPDU per segment, as iWARP NICs send), with a Send every 64 FPDUs.
// With CONNECTIONS, that many such connections (client ports 40000, 40001,
// ...) take turns, 64 FPDUs each: the capture `analyze -j` shards.
//
//   pcap_gen_capture OUT.pcap SIZE_MIB [CONNECTIONS]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "ddp/headers.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"

using namespace rdmaconf;

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s OUT.pcap SIZE_MIB [CONNECTIONS]\n", argv[0]);
    return 2;
  }
  const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
  const std::uint64_t connections = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 1;
  if (connections < 1 || connections > 20000) {
    std::fprintf(stderr, "%s: CONNECTIONS is 1 to 20000\n", argv[0]);
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  capture::CaptureWriter writer(out, capture::FileFormat::kPcap);
  mpa::ReqRepFields req;
  req.revision = mpa::kRevision2;
  req.enhanced = mpa::EnhancedData{false, false, false, false, 16, 16};
  mpa::ReqRepFields rep = req;
  rep.kind = mpa::FrameKind::kReply;
  std::vector<std::unique_ptr<capture::TcpRecorder>> tcps;
  for (std::uint64_t c = 0; c < connections; ++c) {
    const auto port = static_cast<std::uint16_t>(40000 + c);
    capture::RecordedEndpoint client{{2, 0, 0, 0, 0, 1}, capture::ipv4(192, 0, 2, 1), port, capture::SeqNum{1}};
    capture::RecordedEndpoint server{{2, 0, 0, 0, 0, 2}, capture::ipv4(192, 0, 2, 2), 20000, capture::SeqNum{7}};
    auto& tcp = *tcps.emplace_back(std::make_unique<capture::TcpRecorder>(writer, client, server));
    tcp.open();
    tcp.send(capture::TcpRecorder::Side::kClient, mpa::encode_req_rep(req));
    tcp.send(capture::TcpRecorder::Side::kServer, mpa::encode_req_rep(rep));
  }

  mpa::Framer framer(mpa::FramerConfig{false, true, 0});
  constexpr std::size_t kUlpdu = 1454;  // 2 + 1454 + 0 PAD + 4 CRC = 1460
  std::vector<std::uint8_t> ulpdu(kUlpdu);
  for (std::size_t i = 0; i < kUlpdu; ++i) ulpdu[i] = static_cast<std::uint8_t>(i * 13);
  std::vector<std::uint8_t> batch;
  std::uint64_t written = 0;
  std::vector<std::uint64_t> tos(connections, 0);
  std::vector<std::uint32_t> msns(connections, 1);
  for (std::uint64_t n = 0; written < target; ++n) {
    const std::size_t c = n % connections;
    std::uint64_t& to = tos[c];
    std::uint32_t& msn = msns[c];
    batch.clear();
    for (int i = 0; i < 64; ++i) {
      if (i == 63) {
        // Send: untagged, QN 0, L=1 (RFC 5041 §4.3), 1436 octets of payload.
        using F = ddp::UntaggedSpec::Field;
        ddp::UntaggedHeader h;
        h.set(F::L, 1).set(F::DV, ddp::kDdpVersion).set(F::RsvdULP, rdmap::Control::octet(rdmap::Opcode::kSend));
        h.set(F::QN, 0).set(F::MSN, msn).set(F::MO, 0);
        std::copy(h.bytes().begin(), h.bytes().end(), ulpdu.begin());
        ++msn;
      } else {
        // RDMA Write: tagged, L=1, STag 0x100, consecutive TOs (RFC 5041 §4.2).
        using F = ddp::TaggedSpec::Field;
        ddp::TaggedHeader h;
        h.set(F::T, 1).set(F::L, 1).set(F::DV, ddp::kDdpVersion);
        h.set(F::RsvdULP, rdmap::Control::octet(rdmap::Opcode::kRdmaWrite)).set(F::STag, 0x100).set(F::TO, to);
        std::copy(h.bytes().begin(), h.bytes().end(), ulpdu.begin());
        to += kUlpdu - ddp::kTaggedHeaderSize;
      }
      framer.frame(wire::Bytes(ulpdu), batch);
    }
    tcps[c]->send(capture::TcpRecorder::Side::kClient, batch);
    written += batch.size();
  }
  for (auto& tcp : tcps) tcp->close();
  return out.good() ? 0 : 1;
}
