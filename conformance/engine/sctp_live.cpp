// The tester's live SCTP side and the reference IUT's SCTP server
// (sctp_live.hpp), both on an endpoint::SctpLink (usrsctp's or the kernel's).
#include "engine/sctp_live.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <stdexcept>

#include "endpoint/sctp_link.hpp"
#include "sctp/packet.hpp"

namespace rdmaconf::conformance {

namespace asio = endpoint::asio;

namespace {

using endpoint::AssociationId;
using endpoint::SctpEvents;
using endpoint::SctpLink;
using endpoint::SctpLinkConfig;
using endpoint::SctpMessage;
using endpoint::SctpUp;

// The largest user message the tester takes whole from an IUT: a DATA
// chunk's user data fits in it whatever the IUT's segment size; longer
// messages reach the matchers cut at one octet more.
constexpr std::size_t kTesterMaxMessage = std::size_t{64} << 10;

// What an INIT ACK the IUT sent announced (RFC 9260 §3.3.3), read from the
// packet itself: SCTP's own notification gives only the negotiated counts.
std::optional<sctp::InitChunk> init_ack_in(wire::Bytes packet) {
  auto h = sctp::decode_packet_header(packet);
  if (!h) return std::nullopt;
  sctp::ChunkWalker walk(h->chunks);
  for (;;) {
    auto c = walk.next();
    if (!c || !*c) return std::nullopt;
    if ((*c)->type != sctp::chunk_type::kInitAck) continue;
    auto init = sctp::decode_init_chunk(**c);
    if (!init) return std::nullopt;
    return *init;
  }
}

class LiveSide final : public SctpSide {
 public:
  explicit LiveSide(LiveSctpTarget t) : t_(std::move(t)) {}
  ~LiveSide() override { link_.reset(); }

  bool associate(const SctpInit& init, std::string& error) override {
    if (link_) return error = "the association is already up", false;
    // A real SCTP stack acknowledges by itself (RFC 9260 §6.2).
    if (init.hold_acks)
      return error = "acks=held needs the IUT in this process (--reference): a real SCTP acknowledges by itself", false;
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(t_.host, ec);
    if (ec) return error = "not an IP address: " + t_.host, false;
    SctpLinkConfig lc;
    // The tester's socket: any local address of the target's family.
    lc.local = endpoint::udp::endpoint(address.is_v6() ? endpoint::udp::v6() : endpoint::udp::v4(), 0);
    lc.indication = init.indication;
    lc.outbound_streams = lc.inbound_streams = std::max<std::uint16_t>(init.streams, 1);
    lc.max_message = kTesterMaxMessage;
    SctpEvents ev;
    ev.packet = [this](bool sent, wire::Bytes packet) {
      if (sent) return;
      if (auto ack = init_ack_in(packet)) {
        std::lock_guard lock(mu_);
        peer_ = {ack->adaptation_indication, ack->outbound_streams, ack->inbound_streams};
        init_ack_seen_ = true;
      }
    };
    ev.up = [this](AssociationId, const SctpUp& up) {
      std::lock_guard lock(mu_);
      // Without the INIT ACK's octets (the kernel's SCTP shows none), what
      // it announced is read from the counts negotiated (RFC 9260 §5.1.1):
      // the IUT's outbound streams are at least our inbound ones, its
      // inbound at least our outbound ones.
      if (!init_ack_seen_) peer_ = {up.peer_indication, up.inbound_streams, up.outbound_streams};
      up_ = true;
      cv_.notify_all();
    };
    ev.message = [this](AssociationId, SctpMessage m) {
      std::lock_guard lock(mu_);
      from_iut_.push_back(SctpChunk{m.stream, m.ppid, m.unordered, std::move(m.octets)});
      cv_.notify_all();
    };
    ev.gone = [this](AssociationId, const std::string& why) {
      std::lock_guard lock(mu_);
      closed_ = true;
      gone_why_ = why;
      cv_.notify_all();
    };
    try {
      link_ = endpoint::open_sctp_link(t_.stack, lc, std::move(ev));
    } catch (const std::exception& e) {
      return error = e.what(), false;
    }
    const endpoint::udp::endpoint peer(address, t_.udp_port);
    if (!link_->connect(peer, t_.sctp_port ? t_.sctp_port : t_.udp_port, error)) return false;
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, t_.setup_timeout, [&] { return up_ || closed_; }))
      return error = "no SCTP association with " + t_.host + " (" +
                     (t_.stack == endpoint::SctpStack::kKernel ? "SCTP" : "UDP") + " port " +
                     std::to_string(t_.udp_port) + ") within " +
                     std::to_string(t_.setup_timeout.count()) + " ms",
             false;
    if (!up_) return error = "the SCTP association failed: " + gone_why_, false;
    return true;
  }

  const SctpPeerInit& peer_init() const override { return peer_; }

  bool send(const SctpChunk& chunk, std::string& error) override {
    if (!link_) return error = "no association yet", false;
    return link_->send(0, SctpMessage{chunk.stream, chunk.ppid, chunk.unordered, chunk.octets}, error);
  }

  std::optional<SctpChunk> receive(std::chrono::steady_clock::time_point deadline) override {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return !from_iut_.empty() || closed_; });
    if (from_iut_.empty()) return std::nullopt;
    SctpChunk c = std::move(from_iut_.front());
    from_iut_.pop_front();
    return c;
  }

  // The tester's SCTP acknowledges as SCTP does, on its own.
  void acknowledge() override {}
  bool in_process() const override { return false; }
  std::pair<std::uint16_t, std::uint16_t> ports() const override {
    if (!link_) return {0, 0};
    return {link_->local_sctp_port(), t_.sctp_port ? t_.sctp_port : t_.udp_port};
  }
  bool closed() const override {
    std::lock_guard lock(mu_);
    return closed_ && from_iut_.empty();
  }

 private:
  LiveSctpTarget t_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  SctpPeerInit peer_;
  bool init_ack_seen_ = false;
  bool up_ = false;
  bool closed_ = false;
  std::string gone_why_;
  std::deque<SctpChunk> from_iut_;
  std::unique_ptr<SctpLink> link_;  // last: its callbacks reach the members above
};

}  // namespace

SctpFactory live_sctp_factory(LiveSctpTarget target) {
  return [target](const SctpCaseSetup& setup, std::string& error) -> std::unique_ptr<SctpSide> {
    // The IUT as active side would have to reach the tester: not offered yet.
    if (setup.iut_active) return error = "the IUT as the SCTP active side needs the IUT in this process", nullptr;
    return std::make_unique<LiveSide>(target);
  };
}

struct SctpIutServer::Impl {
  Impl(FaultSet faults, SctpIutServerConfig c) : f(faults), config(std::move(c)) {
    SctpLinkConfig lc;
    lc.local = endpoint::udp::endpoint(asio::ip::make_address(config.host), config.udp_port);
    lc.sctp_port = config.sctp_port;
    // RFC 5043 §5.1: the INIT-ACK announces DDP (unless a fault says not);
    // §8: as many inbound as outbound streams (unless a fault says not).
    if (!f.has(FaultId::kSctpNoIndication)) lc.indication = sctp::kAdaptationIndicationDdp;
    lc.outbound_streams = kStreams;
    lc.inbound_streams = static_cast<std::uint16_t>(kStreams + (f.has(FaultId::kSctpUnequalStreams) ? 1 : 0));
    lc.max_message = kTesterMaxMessage;
    lc.max_associations = config.max_associations;
    SctpEvents ev;
    ev.up = [this](AssociationId id, const SctpUp& up) {
      std::lock_guard lock(mu);
      auto iut = std::make_unique<SctpReferenceIut>(f, SctpCaseSetup{.iut_active = false, .ddp = config.ddp});
      // What the tester's INIT asked, as SCTP told it; acknowledgements
      // come from SCTP's SACKs (dry below).
      SctpInit init{.indication = up.peer_indication, .streams = up.outbound_streams, .hold_acks = true};
      std::string why;
      if (!iut->associate(init, why)) return;
      iuts[id] = std::move(iut);
      ++count;
      flush(id);
    };
    ev.message = [this](AssociationId id, SctpMessage m) {
      std::lock_guard lock(mu);
      auto it = iuts.find(id);
      if (it == iuts.end()) return;
      std::string why;
      (void)it->second->receive(SctpChunk{m.stream, m.ppid, m.unordered, std::move(m.octets)}, why);
      flush(id);
    };
    ev.dry = [this](AssociationId id) {
      std::lock_guard lock(mu);
      auto it = iuts.find(id);
      if (it == iuts.end()) return;
      it->second->acknowledge();
      flush(id);
    };
    ev.gone = [this](AssociationId id, const std::string&) {
      std::lock_guard lock(mu);
      iuts.erase(id);
    };
    link = endpoint::open_sctp_link(config.stack, lc, std::move(ev));
    std::string why;
    if (!link->listen(why)) throw std::runtime_error(why);
  }
  ~Impl() { link.reset(); }

  // What the IUT hands to SCTP, each chunk as the IUT chose it (stream,
  // PPID, U flag: a fault may make one ordered).
  void flush(AssociationId id) {
    auto it = iuts.find(id);
    if (it == iuts.end()) return;
    std::string why;
    while (auto c = it->second->take()) (void)link->send(id, SctpMessage{c->stream, c->ppid, c->unordered, c->octets}, why);
  }

  static constexpr std::uint16_t kStreams = 16;
  FaultSet f;
  SctpIutServerConfig config;
  std::mutex mu;
  std::map<AssociationId, std::unique_ptr<SctpReferenceIut>> iuts;
  std::atomic<std::uint64_t> count{0};
  std::unique_ptr<SctpLink> link;  // last: its callbacks reach the members above
};

SctpIutServer::SctpIutServer(FaultSet faults, SctpIutServerConfig config)
    : impl_(std::make_unique<Impl>(faults, std::move(config))) {}
SctpIutServer::~SctpIutServer() = default;
std::uint16_t SctpIutServer::udp_port() const { return impl_->link->local_address().port(); }
std::uint16_t SctpIutServer::sctp_port() const { return impl_->link->local_sctp_port(); }
std::uint64_t SctpIutServer::associations() const { return impl_->count; }

}  // namespace rdmaconf::conformance
