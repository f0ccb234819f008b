// Device facts -> capabilities, and MPA configurations -> siw parameter
// writes (caps.hpp), for the devices the backend meets.
#include "agent/rdma_core/caps.hpp"
#include "agent/rdma_core/connection.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace rdmaconf::agent::rdma_core {
namespace {

DeviceFacts siw_facts(std::optional<SiwParameters> p) {
  DeviceFacts f;
  f.name = "siw0";
  f.transport = Transport::kIwarp;
  f.vendor_id = kSiwVendorId;
  f.atomics = false;
  f.depths = {32, 32};
  f.max_msg_sz = 0x7fffffff;
  f.siw = p;
  return f;
}

FittedAdvertisement fitted() {
  FittedAdvertisement a;
  a.advertised = {"rw", "ro", "wo", "local", "inv", "noinv", "otherpd", "stale", "recv"};
  return a;
}

bool has_note(const Capabilities& c, const std::string& part) {
  return std::any_of(c.notes.begin(), c.notes.end(), [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST(SiwParameters, ParsedFromTheirFiles) {
  const SiwParameters p = parse_siw_parameters(
      {{"mpa_version", "2\n"}, {"mpa_crc_required", "N\n"}, {"mpa_crc_strict", "Y"}, {"peer_to_peer", "bogus"}, {"other", "1"}});
  EXPECT_EQ(p.mpa_version, 2);
  EXPECT_EQ(p.mpa_crc_required, false);
  EXPECT_EQ(p.mpa_crc_strict, true);
  EXPECT_FALSE(p.peer_to_peer.has_value());
}

TEST(MapCapabilities, FixedSiwWithoutCrcNorAtomics) {
  SiwParameters p;
  p.mpa_version = 2;
  p.mpa_crc_required = false;
  p.mpa_crc_strict = false;
  p.peer_to_peer = false;
  const Capabilities c = map_capabilities(siw_facts(p), fitted(), 255);
  EXPECT_EQ(c.backend, "rdma-core");
  EXPECT_EQ(c.transport, "iwarp");
  EXPECT_NE(c.vendor.find("soft-iWARP"), std::string::npos);
  EXPECT_EQ(c.mpa_revisions, (std::vector<int>{1, 2}));
  EXPECT_TRUE(c.crc.can_on);
  EXPECT_TRUE(c.crc.can_off);
  EXPECT_FALSE(c.crc.per_connection);
  EXPECT_FALSE(c.markers.can_on);  // rdma_cm cannot ask for Markers
  EXPECT_FALSE(c.peer_to_peer);
  EXPECT_FALSE(c.atomics);
  EXPECT_FALSE(c.immediate_data);
  // siw invalidates any STag of the PD: `inv` can be an ordinary region.
  EXPECT_TRUE(c.remote_invalidate);
  EXPECT_TRUE(c.echo && c.receives && c.commands);
  EXPECT_EQ(c.buffers, fitted().advertised);
  EXPECT_EQ(c.max_reply_private_data, 255u);
  EXPECT_TRUE(has_note(c, "inv: an ordinary memory region"));
  EXPECT_TRUE(has_note(c, "atomic_cap"));
}

// RFC 5040 §5.3: an STag associated with the stream is invalidated, so on a
// device that lets the peer invalidate any region of the PD there is no
// `noinv` to advertise (siw answered its cases with a conformant Send).
TEST(AdvertisedBuffers, InvAndNoinvFollowWhatThePeerMayInvalidate) {
  auto names = [](const DeviceFacts& f) {
    std::vector<std::string> n;
    for (const auto& b : Connection::advertised_buffers_template(f)) n.push_back(b.name);
    return n;
  };
  const auto siw = names(siw_facts(stock_siw_parameters()));
  EXPECT_NE(std::find(siw.begin(), siw.end(), "inv"), siw.end());
  EXPECT_EQ(std::find(siw.begin(), siw.end(), "noinv"), siw.end());
  DeviceFacts other = siw_facts(std::nullopt);
  other.vendor_id = 0x8086;
  other.name = "irdma0";
  const auto rnic = names(other);
  EXPECT_EQ(std::find(rnic.begin(), rnic.end(), "inv"), rnic.end());
  EXPECT_NE(std::find(rnic.begin(), rnic.end(), "noinv"), rnic.end());
}

TEST(MapCapabilities, StockSiwRunsRev2WithCrcOnlyWhenAsked) {
  const Capabilities c = map_capabilities(siw_facts(stock_siw_parameters()), fitted(), 252);
  EXPECT_EQ(c.mpa_revisions, (std::vector<int>{1, 2}));
  EXPECT_TRUE(c.crc.can_on && c.crc.can_off);
  EXPECT_FALSE(c.peer_to_peer);
  EXPECT_TRUE(has_note(c, "compiled-in"));
  MpaConfig p2p;
  p2p.peer_to_peer = true;  // known to be off, not writable
  EXPECT_NE(plan_mpa_config(p2p, siw_facts(stock_siw_parameters())).error.find("peer-to-peer"), std::string::npos);
}

TEST(MapCapabilities, CrcRequiredMeansNoCrcCannotBeRun) {
  SiwParameters p;
  p.mpa_version = 1;
  p.mpa_crc_required = true;
  const Capabilities c = map_capabilities(siw_facts(p), fitted(), 255);
  EXPECT_EQ(c.mpa_revisions, (std::vector<int>{1}));
  EXPECT_TRUE(c.crc.can_on);
  EXPECT_FALSE(c.crc.can_off);
  // strict and not required: a Request asking for CRC is rejected.
  p.mpa_crc_required = false;
  p.mpa_crc_strict = true;
  const Capabilities s = map_capabilities(siw_facts(p), fitted(), 255);
  EXPECT_FALSE(s.crc.can_on);
  EXPECT_TRUE(s.crc.can_off);
}

TEST(MapCapabilities, WritableSiwParametersChooseEverythingButMarkers) {
  SiwParameters p;
  p.mpa_version = 1;
  p.mpa_crc_required = true;
  p.peer_to_peer = false;
  p.writable = true;
  const Capabilities c = map_capabilities(siw_facts(p), fitted(), 255);
  EXPECT_EQ(c.mpa_revisions, (std::vector<int>{1, 2}));
  EXPECT_TRUE(c.crc.can_on && c.crc.can_off);
  EXPECT_TRUE(c.peer_to_peer);
  EXPECT_EQ(c.rtr, (std::vector<std::string>{"write", "read"}));
  EXPECT_FALSE(c.markers.can_on);
}

TEST(MapCapabilities, UnknownIwarpDeviceIsConservative) {
  DeviceFacts f = siw_facts(std::nullopt);
  f.name = "iwp0";
  f.vendor_id = 0x1425;
  f.atomics = true;
  f.fw_ver = "1.2.3";
  FittedAdvertisement a = fitted();
  a.omitted = {"recv"};
  a.advertised.pop_back();
  const Capabilities c = map_capabilities(f, a, 100);
  EXPECT_EQ(c.firmware, "1.2.3");
  EXPECT_TRUE(c.atomics);
  EXPECT_TRUE(c.crc.can_on);
  EXPECT_FALSE(c.crc.can_off);  // not choosable through rdma_cm
  EXPECT_FALSE(c.peer_to_peer);
  EXPECT_FALSE(c.remote_invalidate);
  EXPECT_TRUE(has_note(c, "inv: not advertised"));
  EXPECT_EQ(c.buffers.size(), 8u);
  EXPECT_TRUE(has_note(c, "buffer recv: left out"));
  EXPECT_EQ(c.max_reply_private_data, 100u);
}

TEST(DriverLimit, SiwKeeps252OctetsForTheUlpUnderRev2) {
  EXPECT_EQ(driver_reply_private_data_limit(siw_facts(std::nullopt)), 252u);
  EXPECT_EQ(reply_private_data_budget(driver_reply_private_data_limit(siw_facts(std::nullopt))), 252u);
  DeviceFacts other = siw_facts(std::nullopt);
  other.name = "iwp0";
  other.vendor_id = 0x1425;
  EXPECT_EQ(driver_reply_private_data_limit(other), 0u);
  // Nine buffers (226 octets) fit within siw's 252; of eleven, the eleventh (250 + 24) does not.
  std::vector<conformance::AdvertisedBuffer> nine(9, {"b", 1, 0, 1}), eleven(11, {"b", 1, 0, 1});
  EXPECT_TRUE(fit_advertisement(nine, 252).omitted.empty());
  EXPECT_EQ(fit_advertisement(eleven, 252).omitted.size(), 1u);
}

TEST(MapCapabilities, RoceDeviceOffersOnlyClc) {
  DeviceFacts f = siw_facts(std::nullopt);
  f.name = "rxe0";
  f.vendor_id = 0xffffff;
  f.transport = Transport::kRoce;
  f.smc = true;
  const Capabilities c = map_capabilities(f, fitted(), 255);
  EXPECT_EQ(c.transport, "roce");
  EXPECT_TRUE(c.mpa_revisions.empty());
  EXPECT_TRUE(c.buffers.empty());
  EXPECT_FALSE(c.commands);
  EXPECT_TRUE(c.clc);
  EXPECT_TRUE(c.smcr_v1);  // nothing known about its GIDs
}

// Soft-RoCE registers RoCE v2 GIDs only: Linux cannot run SMC-R v1 over it.
TEST(MapCapabilities, RoceDeviceWithoutV1GidLacksSmcrV1) {
  DeviceFacts f = siw_facts(std::nullopt);
  f.name = "rxe0";
  f.transport = Transport::kRoce;
  f.smc = true;
  f.roce_v1_gid = false;
  const Capabilities c = map_capabilities(f, fitted(), 255);
  EXPECT_FALSE(c.smcr_v1);
  f.roce_v1_gid = true;
  EXPECT_TRUE(map_capabilities(f, fitted(), 255).smcr_v1);
}

TEST(PlanMpaConfig, WritesSiwParametersOnlyWhenAllowed) {
  SiwParameters p;
  p.mpa_version = 2;
  p.mpa_crc_required = false;
  p.peer_to_peer = false;
  p.writable = true;
  MpaConfig want;
  want.revision = 1;
  want.crc = true;
  want.peer_to_peer = false;
  ConfigPlan plan = plan_mpa_config(want, siw_facts(p));
  EXPECT_TRUE(plan.error.empty());
  EXPECT_EQ(plan.writes["mpa_version"], "1");
  EXPECT_EQ(plan.writes["mpa_crc_required"], "Y");
  EXPECT_EQ(plan.writes["peer_to_peer"], "N");

  p.writable = false;
  plan = plan_mpa_config(want, siw_facts(p));  // rev 1 asked, the driver runs 2
  EXPECT_NE(plan.error.find("mpa revision"), std::string::npos);
  EXPECT_TRUE(plan.writes.empty());
  want.revision = 2;
  want.crc = false;
  plan = plan_mpa_config(want, siw_facts(p));  // what the driver runs anyway
  EXPECT_TRUE(plan.error.empty());
  EXPECT_TRUE(plan.writes.empty());

  MpaConfig markers;
  markers.markers = true;
  EXPECT_FALSE(plan_mpa_config(markers, siw_facts(p)).error.empty());
  EXPECT_TRUE(plan_mpa_config(MpaConfig{}, siw_facts(std::nullopt)).error.empty());  // defaults: nothing to do
  // A driver whose setting nothing shows: left to it, said in a note.
  MpaConfig crc;
  crc.crc = false;
  plan = plan_mpa_config(crc, siw_facts(std::nullopt));
  EXPECT_TRUE(plan.error.empty());
  EXPECT_TRUE(plan.writes.empty());
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_NE(plan.notes[0].find("crc: not selectable"), std::string::npos);
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core
