// The built-in reference IUT (conformance/engine/responder.hpp) behind the
// backend interface: one ReferenceIut per listener and per connect, each
// reporting its connections, completions and Terminates as events.
#include <map>
#include <mutex>
#include <thread>

#include "agent/backend.hpp"
#include "engine/faults.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::agent {
namespace {

namespace cf = conformance;

class ReferenceBackend final : public Backend {
 public:
  explicit ReferenceBackend(cf::FaultSet faults) : faults_(faults) {}
  ~ReferenceBackend() override { stop(); }

  void set_event_sink(EventSink sink) override {
    std::lock_guard lock(mu_);
    sink_ = std::move(sink);
  }

  Capabilities capabilities() override {
    Capabilities c;
    c.backend = "reference";
    c.device = "reference";
    c.vendor = "rdmaconf";
    c.driver = "reference";
    c.kernel = kernel_release();
    c.transport = "tcp";
    c.address = "127.0.0.1";
    c.mpa_revisions = {1, 2};
    c.crc = {.can_on = true, .can_off = true, .per_connection = true};
    c.markers = {.can_on = true, .can_off = true, .per_connection = true};
    c.peer_to_peer = true;
    c.rtr = {"send", "write", "read"};
    c.atomics = c.immediate_data = c.remote_invalidate = true;
    c.terminate_events = true;  // the reference stream knows its Terminates
    c.echo = c.receives = c.commands = true;
    c.buffers = {"rw", "ro", "wo", "local", "inv", "noinv", "otherpd", "stale", "recv"};
    c.max_reply_private_data = 512;
    c.max_request_private_data = 512;
    c.clc = true;
    if (!faults_.names().empty()) c.notes.push_back("faults: " + faults_.names());
    return c;
  }

  Outcome<Handle> listen(const ListenRequest& r) override { return open(r.host, r.port, &r.mpa, false); }
  Outcome<Handle> clc_listen(const ClcListenRequest& r) override { return open(r.host, r.port, nullptr, true); }

  Outcome<Handle> connect(const ConnectRequest& r) override {
    cf::InitiatorProfile p;
    // Rev 2 as initiator is the peer-to-peer model with every RTR kind
    // (RFC 6581 §9.2), as the reference IUT runs it.
    p.rev2_peer_to_peer = r.mpa.revision.value_or(1) == 2 && r.mpa.peer_to_peer.value_or(true);
    p.mpa.want_crc = r.mpa.crc;
    p.mpa.want_markers = r.mpa.markers;
    return dial(r.host, r.port, false, p);
  }
  Outcome<Handle> clc_connect(const ClcConnectRequest& r) override { return dial(r.host, r.port, true, {}); }

  Outcome<bool> close(std::uint64_t id) override {
    std::unique_ptr<cf::ReferenceIut> iut;
    {
      std::lock_guard lock(mu_);
      const auto it = iuts_.find(id);
      if (it == iuts_.end()) return {std::nullopt, {"no listener or connection with id " + std::to_string(id)}};
      iut = std::move(it->second);
      iuts_.erase(it);
      // Stopping joins the IUT's threads (up to its close grace): done
      // aside, so a close request answers at once.
      reapers_.emplace_back([iut = std::move(iut)] { iut->stop(); });
    }
    return {true, {}};
  }

  void stop() override {
    std::map<std::uint64_t, std::unique_ptr<cf::ReferenceIut>> iuts;
    std::vector<std::thread> reapers;
    {
      std::lock_guard lock(mu_);
      iuts.swap(iuts_);
      reapers.swap(reapers_);
    }
    for (auto& [id, iut] : iuts) iut->stop();
    for (auto& t : reapers)
      if (t.joinable()) t.join();
  }

 private:
  std::unique_ptr<cf::ReferenceIut> make(std::uint64_t id) {
    auto iut = std::make_unique<cf::ReferenceIut>(faults_);
    iut->set_observer([this, id](const cf::IutEvent& e) { forward(id, e); });
    return iut;
  }

  std::uint64_t next_id() {
    std::lock_guard lock(mu_);
    return next_++;
  }

  Outcome<Handle> open(const std::string& host, std::uint16_t port, const MpaConfig* mpa, bool clc) {
    const std::uint64_t id = next_id();
    auto iut = make(id);
    if (mpa) iut->set_mpa({.revision = mpa->revision, .want_crc = mpa->crc, .want_markers = mpa->markers});
    const std::string h = host.empty() ? "127.0.0.1" : host;
    std::string error;
    if (!(clc ? iut->listen_clc(h, port, error) : iut->listen(h, port, error))) return {std::nullopt, {error}};
    Handle out{id, h + ":" + std::to_string(clc ? iut->clc_port() : iut->port())};
    std::lock_guard lock(mu_);
    iuts_.emplace(id, std::move(iut));
    return {out, {}};
  }

  Outcome<Handle> dial(const std::string& host, std::uint16_t port, bool clc, const cf::InitiatorProfile& p) {
    const std::uint64_t id = next_id();
    auto iut = make(id);
    if (!iut->connect(host, port, clc, p))
      return {std::nullopt, {"cannot connect to " + host + ":" + std::to_string(port)}};
    std::lock_guard lock(mu_);
    iuts_.emplace(id, std::move(iut));
    return {Handle{id, {}}, {}};
  }

  void forward(std::uint64_t id, const cf::IutEvent& e) {
    Event out;
    switch (e.kind) {
      case cf::IutEvent::Kind::kConnection: out.kind = EventKind::kConnection; break;
      case cf::IutEvent::Kind::kCompletion: out.kind = EventKind::kCompletion; break;
      case cf::IutEvent::Kind::kAsync: out.kind = EventKind::kAsync; break;
    }
    out.handle = id;
    out.local = e.local;
    out.peer = e.peer;
    out.name = e.name;
    out.status = e.status;
    out.byte_len = e.byte_len;
    out.wr_id = e.wr_id;
    out.detail = e.detail;
    EventSink sink;
    {
      std::lock_guard lock(mu_);
      sink = sink_;
    }
    if (sink) sink(std::move(out));
  }

  cf::FaultSet faults_;
  std::mutex mu_;
  EventSink sink_;
  std::uint64_t next_ = 1;
  std::map<std::uint64_t, std::unique_ptr<cf::ReferenceIut>> iuts_;
  std::vector<std::thread> reapers_;
};

}  // namespace

std::unique_ptr<Backend> create_reference_backend(const std::vector<std::string>& faults, std::string& error) {
  cf::FaultSet fs;
  for (const std::string& n : faults) {
    const cf::FaultInfo* f = cf::find_fault(n);
    if (!f) {
      error = "unknown fault '" + n + "' (see rdmaconf faults)";
      return nullptr;
    }
    fs.set(f->id);
  }
  return std::make_unique<ReferenceBackend>(fs);
}

}  // namespace rdmaconf::agent
