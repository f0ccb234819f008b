#include "agent/rdma_core/roce_side.hpp"

#include <arpa/inet.h>

#include <memory>
#include <string>
#include <vector>
#include <utility>

#include "agent/rdma_core/roce_transport.hpp"

namespace rdmaconf::agent::rdma_core {
namespace {

// What verbs said on the way, for an error the runner reports.
std::string with_notes(std::string error, RoceHost& host) {
  for (const std::string& n : host.take_notes()) error += "; " + n;
  return error;
}

class DeviceRoceSide final : public conformance::RoceSide {
 public:
  explicit DeviceRoceSide(std::unique_ptr<RoceHost> host) : host_(std::move(host)) {}

  smcr::Host& host() override { return *host_; }
  std::optional<smcr::LinkAddress> alternate() const override { return host_->alternate_address(); }
  std::vector<std::string> take_notes() override { return host_->take_notes(); }

  std::optional<conformance::RoceFirstLink> first_link(std::uint64_t rmb_size, std::string& error) override {
    conformance::RoceFirstLink l;
    l.qp = host_->create_primary_qp();
    if (l.qp == nullptr) return error = with_notes("no queue pair on " + host_->device_name(), *host_), std::nullopt;
    const std::optional<std::uint32_t> rmb = host_->allocate_rmb(rmb_size);
    if (!rmb) return error = "no memory for an RMB of " + std::to_string(rmb_size) + " octets", std::nullopt;
    const std::optional<smcr::RToken> rt = host_->register_rmb(*rmb, *l.qp);
    if (!rt) return error = with_notes("the RMB is not registered", *host_), std::nullopt;
    l.rmb = *rmb;
    l.rtoken = *rt;
    l.rmb_size = rmb_size;
    l.address = host_->address();
    return l;
  }

  bool connect_first(smcr::QueuePair& qp, std::uint32_t peer_qp, const smcr::PeerPath& path,
                     std::string& error) override {
    if (host_->connect_path(qp, peer_qp, path)) return true;
    error = with_notes("the first link's queue pair " + std::to_string(qp.qp_number()) + " on " +
                           host_->device_name() + " did not connect to the IUT's QP " + std::to_string(peer_qp),
                       *host_);
    return false;
  }

  bool break_link(smcr::QueuePair& qp) override { return host_->break_qp(qp); }

 private:
  std::unique_ptr<RoceHost> host_;
};

}  // namespace

std::optional<std::uint32_t> endpoint_ipv4(const std::string& endpoint) {
  const auto colon = endpoint.rfind(':');
  in_addr a{};
  if (colon == std::string::npos || ::inet_pton(AF_INET, endpoint.substr(0, colon).c_str(), &a) != 1)
    return std::nullopt;
  return ntohl(a.s_addr);
}

conformance::RoceFactory device_roce_factory(const RoceSideConfig& config) {
  return [config](const conformance::RoceEndpoints& e, std::string& error) -> std::unique_ptr<conformance::RoceSide> {
    RoceDeviceConfig dc;
    dc.device = config.device;
    dc.port = config.port;
    dc.gid_index = config.gid_index;
    if (!config.gid_index) {
      // RFC 7609 §3.5.1.5 ties the link to the connection's network: the
      // tester's GID is the one of the address its CLC connection uses.
      dc.ipv4 = endpoint_ipv4(e.tester_address);
      if (!dc.ipv4) {
        error = "the CLC connection's local address '" + e.tester_address +
                "' is not IPv4: give --roce-gid-index for the tester's RoCE GID";
        return nullptr;
      }
    }
    std::unique_ptr<RoceHost> host = RoceHost::open(dc, error);
    if (!host) return nullptr;
    if (!config.alternate_device.empty()) {
      RoceDeviceConfig ac;
      ac.device = config.alternate_device;
      ac.port = config.port;
      ac.gid_index = config.alternate_gid_index;
      if (!host->add_alternate(ac, error)) return error = "--roce-alternate-device: " + error, nullptr;
    }
    return std::make_unique<DeviceRoceSide>(std::move(host));
  };
}

}  // namespace rdmaconf::agent::rdma_core
