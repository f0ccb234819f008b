// The SMC-R encoders (reference/smcr/encode.hpp) against every LLC and CDC
// message Linux sent in the real SMC-Rv2 capture (captures/real/
// smc-r-v2.pcap, see its README): each RC Send is decoded, its fields read
// into a value and encoded again, and the octets must be the ones the
// capture holds, for all 22 LLC messages and 38 CDC messages (and for the
// TEST LINK exchange left in smc-fallback-tcp-server.pcap).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "capture/decode.hpp"
#include "capture/source.hpp"
#include "smcr/encode.hpp"
#include "smcr/roce.hpp"

namespace rdmaconf::smcr {
namespace {

struct Counts {
  std::map<std::string, int> by_name;
  int llc = 0, cdc = 0, differing = 0;
};

// Decodes each RoCEv2 Send Only payload and re-encodes it from its fields.
class ReEncoder : public capture::ReportSink {
 public:
  void on_report(const capture::Report&) override {}
  bool wants_udp() const override { return true; }
  bool on_udp(const capture::UdpDatagram& d) override {
    if (d.key.destination.port != kRoceV2UdpPort) return false;
    auto p = decode_roce(d.payload);
    if (!p || p->opcode() != opcode::kSendOnly) return true;
    auto s = decode_send(p->payload);
    EXPECT_TRUE(s.ok()) << "frame " << d.frame.value << ": " << s.error().to_string();
    if (!s) return true;
    std::vector<std::uint8_t> again;
    wire::Bytes sent;
    if (const auto* l = std::get_if<LlcMessage>(&*s)) {
      again = encode(fields_of(*l), encoding_of(*l));
      sent = l->octets;
      ++counts.llc;
    } else {
      const auto& c = std::get<CdcMessage>(*s);
      again = encode(fields_of(c));
      sent = c.header.bytes();
      ++counts.cdc;
    }
    ++counts.by_name[message_name(*s)];
    if (!std::equal(again.begin(), again.end(), sent.begin(), sent.end())) {
      ++counts.differing;
      ADD_FAILURE() << "frame " << d.frame.value << " (" << message_name(*s) << ") encodes differently";
    }
    return true;
  }
  Counts counts;
};

Counts re_encode(const std::string& file) {
  std::string error;
  auto source = capture::PacketSource::open_file(std::string(RDMACONF_REAL_CAPTURES) + "/" + file, "", error);
  EXPECT_TRUE(source) << error;
  ReEncoder sink;
  if (!source) return sink.counts;
  capture::RawFrame frame;
  while (source->next(frame) == capture::PacketSource::Next::kFrame) (void)capture::decode_frame(frame, sink);
  return sink.counts;
}

TEST(SmcrEncodeCapture, EveryMessageOfTheRealCaptureEncodesToItsOctets) {
  const Counts c = re_encode("smc-r-v2.pcap");
  EXPECT_EQ(c.differing, 0);
  // README: 22 LLC v2 messages and 38 CDC messages (RC retransmissions are
  // Send Only packets too, so they are counted again here).
  EXPECT_GE(c.llc, 22);
  EXPECT_GE(c.cdc, 38);
  for (const char* name : {"CONFIRM LINK v2 request", "CONFIRM LINK v2 reply", "ADD LINK v2 request",
                           "ADD LINK v2 reply", "CONFIRM RKEY v2 request", "CONFIRM RKEY v2 reply",
                           "DELETE RKEY v2 request", "DELETE RKEY v2 reply", "TEST LINK v2 request",
                           "TEST LINK v2 reply", "CDC"})
    EXPECT_GT(c.by_name.count(name), 0u) << name;
}

TEST(SmcrEncodeCapture, TheTestLinkLeftInTheFallbackCapture) {
  const Counts c = re_encode("smc-fallback-tcp-server.pcap");
  EXPECT_EQ(c.differing, 0);
  EXPECT_EQ(c.llc, 2);
}

}  // namespace
}  // namespace rdmaconf::smcr
