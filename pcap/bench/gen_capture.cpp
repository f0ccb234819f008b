// Writes a large marker-free iWARP capture for the analyze benchmark
// (docs/performance.md, capture analysis): one MPA connection (Rev 2, CRC, no
// Markers), then RDMA Writes whose FPDUs fill the 1460-octet MSS exactly (one
// FPDU per segment, as iWARP NICs send), with a Send every 64 FPDUs.
//
//   pcap_gen_capture OUT.pcap SIZE_MIB
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "ddp/headers.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"

using namespace rdmaconf;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.pcap SIZE_MIB\n", argv[0]);
    return 2;
  }
  const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  capture::CaptureWriter writer(out, capture::FileFormat::kPcap);
  capture::RecordedEndpoint client{{2, 0, 0, 0, 0, 1}, capture::ipv4(192, 0, 2, 1), 40000, capture::SeqNum{1}};
  capture::RecordedEndpoint server{{2, 0, 0, 0, 0, 2}, capture::ipv4(192, 0, 2, 2), 20000, capture::SeqNum{7}};
  capture::TcpRecorder tcp(writer, client, server);
  tcp.open();

  mpa::ReqRepFields req;
  req.revision = mpa::kRevision2;
  req.enhanced = mpa::EnhancedData{false, false, false, false, 16, 16};
  mpa::ReqRepFields rep = req;
  rep.kind = mpa::FrameKind::kReply;
  tcp.send(capture::TcpRecorder::Side::kClient, mpa::encode_req_rep(req));
  tcp.send(capture::TcpRecorder::Side::kServer, mpa::encode_req_rep(rep));

  mpa::Framer framer(mpa::FramerConfig{false, true, 0});
  constexpr std::size_t kUlpdu = 1454;  // 2 + 1454 + 0 PAD + 4 CRC = 1460
  std::vector<std::uint8_t> ulpdu(kUlpdu);
  for (std::size_t i = 0; i < kUlpdu; ++i) ulpdu[i] = static_cast<std::uint8_t>(i * 13);
  std::vector<std::uint8_t> batch;
  std::uint64_t written = 0, to = 0;
  std::uint32_t msn = 1;
  for (std::uint64_t n = 0; written < target; ++n) {
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
    tcp.send(capture::TcpRecorder::Side::kClient, batch);
    written += batch.size();
  }
  tcp.close();
  return out.good() ? 0 : 1;
}
