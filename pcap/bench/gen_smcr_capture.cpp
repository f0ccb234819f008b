// Writes a large SMC-R capture for the analyze benchmark (docs/performance.md,
// SMC-R): one TCP connection with the SMC option in both SYNs and a v1 CLC
// Proposal, Accept and Confirm (RFC 7609 App. A.2; 64 KiB RMBEs, GIDs that
// are the peers' IPv4 addresses), then RoCEv2 (UDP port 4791) as Linux over
// rxe sends it: CONFIRM LINK request and reply, then the client's data as
// RDMA Writes of 4 KiB at MTU 1024 (First, Middle, Middle, Last) into the
// server's RMBE, each followed by a CDC message with the producer cursor
// (wrapping every 16 Writes), every packet acknowledged; the server returns
// a CDC consumer cursor update every 8 Writes; each side's CDC message with
// PeerConnectionClosed before the FINs. No rule is broken.
//
//   pcap_gen_smcr_capture OUT.pcap SIZE_MIB
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "clc/messages.hpp"
#include "smcr/encode.hpp"
#include "smcr/headers.hpp"
#include "smcr/roce.hpp"

using namespace rdmaconf;

namespace {

constexpr std::uint64_t kRmbeSize = 65536;  // compressed code 2 (App. A.2.3)
constexpr std::uint32_t kWrite = 4096, kMtu = 1024;
constexpr std::uint32_t kClientQp = 0x11, kServerQp = 0x12, kServerRkey = 0x312, kClientRkey = 0x355;
constexpr std::uint64_t kServerRmb = 0xff39bb55c6030000, kClientRmb = 0xff2a559208e90000;

using Bytes = std::vector<std::uint8_t>;

// Octet by octet: g++ 12 -O2 misjudges a vector insert of a header's octets (-Warray-bounds).
void append(Bytes& out, wire::Bytes b) {
  for (std::uint8_t o : b) out.push_back(o);
}

// Ethernet, IPv4 (header checksum set) and UDP (checksum 0: none, RFC 768)
// around one RoCEv2 payload.
Bytes udp_frame(const capture::RecordedEndpoint& from, const capture::RecordedEndpoint& to, const Bytes& payload) {
  Bytes ip(28 + payload.size());
  const std::size_t total = ip.size();
  ip[0] = 0x45;
  ip[2] = static_cast<std::uint8_t>(total >> 8);
  ip[3] = static_cast<std::uint8_t>(total);
  ip[6] = 0x40;  // don't fragment
  ip[8] = 64;
  ip[9] = 17;
  std::copy(from.address.octets.begin(), from.address.octets.begin() + 4, ip.begin() + 12);
  std::copy(to.address.octets.begin(), to.address.octets.begin() + 4, ip.begin() + 16);
  const std::uint16_t sum = capture::internet_checksum(wire::Bytes(ip.data(), 20));
  ip[10] = static_cast<std::uint8_t>(sum >> 8);
  ip[11] = static_cast<std::uint8_t>(sum);
  ip[20] = static_cast<std::uint8_t>(from.port >> 8);
  ip[21] = static_cast<std::uint8_t>(from.port);
  ip[22] = static_cast<std::uint8_t>(smcr::kRoceV2UdpPort >> 8);
  ip[23] = static_cast<std::uint8_t>(smcr::kRoceV2UdpPort & 0xFF);
  const std::size_t udp = 8 + payload.size();
  ip[24] = static_cast<std::uint8_t>(udp >> 8);
  ip[25] = static_cast<std::uint8_t>(udp);
  std::copy(payload.begin(), payload.end(), ip.begin() + 28);
  return capture::build_ethernet(to.mac, from.mac, 0x0800, ip);
}

// BTH (+ RETH) + payload + ICRC (not computed: the analyzer does not verify it).
Bytes roce(std::uint8_t opcode, std::uint32_t qp, std::uint32_t psn, const Bytes& payload,
           const smcr::Reth* reth = nullptr) {
  using F = smcr::BthSpec::Field;
  smcr::Bth b;
  b.set(F::OpCode, opcode).set(F::PKey, 0xFFFF).set(F::DestQp, qp).set(F::AckReq, 1).set(F::Psn, psn & 0xFFFFFF);
  Bytes out;
  append(out, b.bytes());
  if (reth) append(out, reth->bytes());
  append(out, payload);
  out.resize(out.size() + smcr::kIcrcSize, 0);
  return out;
}

Bytes ack(std::uint32_t qp, std::uint32_t psn) {
  smcr::Aeth a;
  a.set(smcr::AethSpec::Field::Syndrome, 0x1F).set(smcr::AethSpec::Field::Msn, 1);
  using F = smcr::BthSpec::Field;
  smcr::Bth b;
  b.set(F::OpCode, smcr::opcode::kAcknowledge).set(F::PKey, 0xFFFF).set(F::DestQp, qp).set(F::Psn, psn & 0xFFFFFF);
  Bytes out;
  append(out, b.bytes());
  append(out, a.bytes());
  out.resize(out.size() + smcr::kIcrcSize, 0);
  return out;
}

Bytes cdc(std::uint16_t seq, std::uint32_t token, smcr::Cursor prod, smcr::Cursor cons, bool closed = false) {
  smcr::CdcFields c;
  c.sequence_number = seq;
  c.alert_token = token;
  c.producer = prod;
  c.consumer = cons;
  c.peer_connection_closed = closed;
  return smcr::encode(c);
}

// CONFIRM LINK v1 (App. A.3.1), flags 0x03 as Linux sends them (no RMBE
// eyecatcher): the sender's MAC, GID and QP of the link the CLC exchange set
// up, link number 1 (the server's choice; Linux numbers from 1), two links.
Bytes confirm_link(bool reply) {
  const std::uint8_t host = reply ? 1 : 2;  // the server asks, the client replies
  smcr::ConfirmLink c;
  c.reply = reply;
  c.mac = 0x020000000000ull | host;
  c.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, host};
  c.qp_number = reply ? kClientQp : kServerQp;
  c.link_number = 1;
  c.link_user_id = 0x100u | host;
  c.max_links = 2;
  return smcr::encode(c);
}

Bytes accept_confirm(bool accept) {
  using HF = clc::ClcHeaderSpec::Field;
  using SF = clc::SmcrAcceptConfirmSpec::Field;
  clc::AcceptConfirm m;
  const auto t = accept ? clc::MessageType::kAccept : clc::MessageType::kConfirm;
  m.header.set(HF::Eyecatcher, clc::kEyecatcherSmcr).set(HF::Type, static_cast<std::uint8_t>(t)).set(HF::Version, 1);
  clc::set_type_bits_field(m.header, clc::kAcceptConfirmTypeBits[0], 1);  // first contact
  m.smcr.emplace();
  const std::uint8_t host = accept ? 2 : 1;
  const Bytes gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, host};
  m.smcr->set(SF::PeerId, 0x0001020000000000ull | host).set_octets(SF::Gid, gid);
  m.smcr->set_octets(SF::Mac, Bytes{2, 0, 0, 0, 0, host});
  m.smcr->set(SF::QpNumber, accept ? kServerQp : kClientQp).set(SF::RmbRkey, accept ? kServerRkey : kClientRkey);
  m.smcr->set(SF::RmbeIndex, 1).set(SF::RmbeAlertToken, host).set(SF::RmbeSize, 2).set(SF::QpMtu, 3);
  m.smcr->set(SF::RmbVirtualAddress, accept ? kServerRmb : kClientRmb).set(SF::InitialPsn, 100u * host);
  clc::finalize(m);
  return clc::encode(m);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.pcap SIZE_MIB\n", argv[0]);
    return 2;
  }
  const std::uint64_t target = std::strtoull(argv[2], nullptr, 10) << 20;
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  capture::CaptureWriter writer(out, capture::FileFormat::kPcap);
  capture::RecordedEndpoint client{{2, 0, 0, 0, 0, 1}, capture::ipv4(192, 0, 2, 1), 40000, capture::SeqNum{1}};
  capture::RecordedEndpoint server{{2, 0, 0, 0, 0, 2}, capture::ipv4(192, 0, 2, 2), 7181, capture::SeqNum{7}};
  capture::TcpRecorder tcp(writer, client, server);
  capture::TcpOptions smc;
  smc.smc = true;
  tcp.open(smc, smc);

  {
    using HF = clc::ClcHeaderSpec::Field;
    using PF = clc::ProposalBodySpec::Field;
    clc::Proposal p;
    p.header.set(HF::Eyecatcher, clc::kEyecatcherSmcr)
        .set(HF::Type, static_cast<std::uint8_t>(clc::MessageType::kProposal))
        .set(HF::Version, 1);
    const Bytes gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 1};
    p.body.set(PF::PeerId, 0x0001020000000001ull).set_octets(PF::Gid, gid).set_octets(PF::Mac, Bytes{2, 0, 0, 0, 0, 1});
    p.ip_prefix.emplace();
    p.ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0xc0000200)
        .set(clc::IpPrefixSpec::Field::PrefixLength, 24);
    clc::finalize(p);
    tcp.send(capture::TcpRecorder::Side::kClient, clc::encode(p));
  }
  tcp.send(capture::TcpRecorder::Side::kServer, accept_confirm(true));
  tcp.send(capture::TcpRecorder::Side::kClient, accept_confirm(false));

  capture::Timestamp now = tcp.now();
  auto put = [&](bool from_client, const Bytes& payload) {
    now.ns += 1000;
    const Bytes f = from_client ? udp_frame(client, server, payload) : udp_frame(server, client, payload);
    writer.write(now, f);
    return f.size();
  };
  std::uint32_t cpsn = 100, spsn = 200;  // each side's next request PSN
  put(false, roce(smcr::opcode::kSendOnly, kClientQp, spsn, confirm_link(false)));
  put(true, ack(kServerQp, spsn++));
  put(true, roce(smcr::opcode::kSendOnly, kServerQp, cpsn, confirm_link(true)));
  put(false, ack(kClientQp, cpsn++));

  Bytes chunk(kMtu);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::uint8_t>(i * 7);
  smcr::Cursor prod{0, 0};
  std::uint16_t cseq = 0, sseq = 0;
  std::uint64_t written = 0;
  for (std::uint64_t n = 1; written < target; ++n) {
    smcr::Reth reth;
    reth.set(smcr::RethSpec::Field::VirtualAddress, kServerRmb + prod.count)
        .set(smcr::RethSpec::Field::RKey, kServerRkey)
        .set(smcr::RethSpec::Field::DmaLength, kWrite);
    written += put(true, roce(smcr::opcode::kRdmaWriteFirst, kServerQp, cpsn++, chunk, &reth));
    written += put(true, roce(smcr::opcode::kRdmaWriteMiddle, kServerQp, cpsn++, chunk));
    written += put(true, roce(smcr::opcode::kRdmaWriteMiddle, kServerQp, cpsn++, chunk));
    written += put(true, roce(smcr::opcode::kRdmaWriteLast, kServerQp, cpsn++, chunk));
    prod.count += kWrite;
    if (prod.count == kRmbeSize) {
      prod.count = 0;
      ++prod.wrap;
    }
    written += put(true, roce(smcr::opcode::kSendOnly, kServerQp, cpsn, cdc(++cseq, 2, prod, {0, 0})));
    written += put(false, ack(kClientQp, cpsn++));
    // The server has read everything so far: its consumer cursor in its own RMBE.
    if (n % 8 == 0) {
      written += put(false, roce(smcr::opcode::kSendOnly, kClientQp, spsn, cdc(++sseq, 1, {0, 0}, prod)));
      written += put(true, ack(kServerQp, spsn++));
    }
  }
  // RFC 7609 §4.8.1: each side closes the SMC-R connection (C) before its FIN.
  put(true, roce(smcr::opcode::kSendOnly, kServerQp, cpsn, cdc(++cseq, 2, prod, {0, 0}, true)));
  put(false, ack(kClientQp, cpsn++));
  put(false, roce(smcr::opcode::kSendOnly, kClientQp, spsn, cdc(++sseq, 1, {0, 0}, prod, true)));
  put(true, ack(kServerQp, spsn++));
  tcp.advance_to(now);
  tcp.close();
  return out.good() ? 0 : 1;
}
