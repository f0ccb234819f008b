// The rdma-core backend: the test ULP profile (docs/conformance.md, "Test
// ULP") on a real device through librdmacm and libibverbs.
//
// One thread owns every rdma_cm id, queue pair, completion queue and memory
// region: it waits on the rdma_cm event channel, the device's async event
// fd, the shared completion channel and a wake-up eventfd, and runs the
// control channel's requests (listen, connect, close) as tasks between
// events. So no verbs object is ever touched by two threads, and an rdma_cm
// id is destroyed only by the thread that acknowledges its events (a
// destroy waiting for an unacknowledged event would never return).
// Events for the agent are collected while an event is handled and given to
// the sink afterwards, with no lock held.
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "agent/backend.hpp"
#include "agent/rdma_core/caps.hpp"
#include "agent/rdma_core/connection.hpp"
#include "agent/rdma_core/device.hpp"
#include "agent/rdma_core/names.hpp"
#include "agent/rdma_core/net.hpp"
#include "agent/rdma_core/plan.hpp"
#include "agent/rdma_core/smc.hpp"

namespace rdmaconf::agent::rdma_core {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMaxConnections = 32;   // live rdma_cm connections
constexpr int kListenBacklog = 16;
constexpr int kResolveTimeoutMs = 2000;       // address and route resolution
constexpr auto kCallTimeout = 5s;             // a control request waiting for the loop

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string errno_text(const char* what, int err) { return std::string(what) + ": " + std::strerror(err); }

class RdmaCoreBackend final : public Backend {
 public:
  RdmaCoreBackend() = default;
  ~RdmaCoreBackend() override { stop(); }

  bool open(const std::string& device, std::string& error);

  void set_event_sink(EventSink sink) override {
    std::lock_guard lock(sink_mu_);
    sink_ = std::move(sink);
  }
  Capabilities capabilities() override {
    std::lock_guard lock(facts_mu_);
    Capabilities c = map_capabilities(facts_, template_ad_, budget_);
    if (!problems_.empty()) c.notes.push_back("device query: " + problems_);
    return c;
  }
  Outcome<Handle> listen(const ListenRequest& r) override;
  Outcome<Handle> connect(const ConnectRequest& r) override;
  Outcome<Handle> clc_listen(const ClcListenRequest& r) override { return smc_->listen(r, facts_.address); }
  Outcome<Handle> clc_connect(const ClcConnectRequest& r) override { return smc_->connect(r); }
  Outcome<bool> close(std::uint64_t id) override;
  void stop() override;

 private:
  // ---- called on the loop thread only
  void loop();
  void run_tasks();
  void on_cm_event();
  void on_async_event();
  void on_completion_event();
  void on_connect_request(rdma_cm_id* id, rdma_cm_id* listen_id, const ConnectInfo& info);
  void teardown(Connection& c, const std::string& why, bool report);
  void teardown_all();
  Connection* find(rdma_cm_id* id);
  void emit(Event e) { pending_.push_back(std::move(e)); }
  void flush_events();
  // Applies a listen/connect request's MPA configuration (siw parameters);
  // what cannot be chosen becomes an event for `handle`. A listener refuses
  // a configuration the device is known not to run (the pass would be
  // mislabelled); a connect goes on with the driver's setting, and the
  // tester judges the Request it sees (a case whose needs the Request does
  // not offer is unimplemented, docs/conformance.md).
  std::string apply(const MpaConfig& m, std::uint64_t handle, bool lenient);

  // Runs `fn` on the loop thread and waits for its result (bounded).
  template <typename T>
  Outcome<T> call(std::function<Outcome<T>()> fn);

  std::mutex facts_mu_;  // facts_ changes (siw parameters) on the loop thread only
  DeviceFacts facts_;
  std::string problems_;
  FittedAdvertisement template_ad_;
  std::size_t budget_ = 0;
  rdma_event_channel* channel_ = nullptr;
  ibv_context** devices_ = nullptr;
  ibv_context* ctx_ = nullptr;  // librdmacm's context of the device
  ibv_comp_channel* comp_ = nullptr;
  int wake_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> next_handle_{1};
  std::mutex tasks_mu_;
  std::deque<std::function<void()>> tasks_;
  std::mutex sink_mu_;
  EventSink sink_;
  std::unique_ptr<SmcSide> smc_;
  std::once_flag stopped_;

  // ---- owned by the loop thread
  std::map<std::uint64_t, rdma_cm_id*> listeners_;  // handle -> id
  std::map<rdma_cm_id*, std::unique_ptr<Connection>> conns_;
  std::vector<Event> pending_;
};

bool RdmaCoreBackend::open(const std::string& device, std::string& error) {
  int n = 0;
  devices_ = rdma_get_devices(&n);
  if (!devices_ || n == 0) {
    error = "no RDMA device on this host (for soft-iWARP: modprobe siw; rdma link add siw0 type siw netdev eth0)";
    return false;
  }
  for (int i = 0; i < n && !ctx_; ++i)
    if (device.empty() ? devices_[i]->device->transport_type == IBV_TRANSPORT_IWARP
                       : device == ibv_get_device_name(devices_[i]->device))
      ctx_ = devices_[i];
  if (!ctx_ && device.empty()) ctx_ = devices_[0];
  if (!ctx_) {
    error = "no RDMA device named " + device + " (see `rdma link show`)";
    return false;
  }
  facts_ = query_device_facts(ctx_, problems_);
  facts_.smc = SmcSide::available();
  budget_ = reply_private_data_budget(driver_reply_private_data_limit(facts_));
  template_ad_ = fit_advertisement(Connection::advertised_buffers_template(facts_), budget_);
  channel_ = rdma_create_event_channel();
  comp_ = ibv_create_comp_channel(ctx_);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (!channel_ || !comp_ || wake_fd_ < 0) {
    error = errno_text("rdma_create_event_channel/ibv_create_comp_channel/eventfd", errno);
    return false;
  }
  set_nonblocking(channel_->fd);
  set_nonblocking(comp_->fd);
  set_nonblocking(ctx_->async_fd);
  smc_ = std::make_unique<SmcSide>([this] { return next_handle_++; }, [this](Event e) {
    std::lock_guard lock(sink_mu_);
    if (sink_) sink_(std::move(e));
  });
  thread_ = std::thread([this] { loop(); });
  return true;
}

template <typename T>
Outcome<T> RdmaCoreBackend::call(std::function<Outcome<T>()> fn) {
  auto promise = std::make_shared<std::promise<Outcome<T>>>();
  auto future = promise->get_future();
  {
    std::lock_guard lock(tasks_mu_);
    if (stopping_) {
      Outcome<T> out;
      out.error.message = "the backend is stopping";
      return out;
    }
    tasks_.push_back([promise, fn = std::move(fn)] { promise->set_value(fn()); });
  }
  const std::uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  if (future.wait_for(kCallTimeout) != std::future_status::ready) {
    Outcome<T> out;
    out.error.message = "the rdma-core backend did not answer in time";
    return out;
  }
  return future.get();
}

std::string RdmaCoreBackend::apply(const MpaConfig& m, std::uint64_t handle, bool lenient) {
  ConfigPlan plan = plan_mpa_config(m, facts_);
  if (!plan.error.empty() && !lenient) return plan.error;
  if (!plan.error.empty()) plan.notes.push_back(plan.error + "; connecting with the driver's setting");
  std::string error;
  if (plan.error.empty() && !plan.writes.empty() && !write_siw_parameters(plan.writes, error)) return error;
  if (plan.error.empty() && !plan.writes.empty()) {
    std::lock_guard lock(facts_mu_);
    facts_.siw = read_siw_parameters();
  }
  for (const std::string& n : plan.notes) {
    Event e;
    e.kind = EventKind::kAsync;
    e.handle = handle;
    e.name = "mpa_config_not_applied";
    e.detail = n;
    emit(std::move(e));
  }
  return "";
}

Outcome<Handle> RdmaCoreBackend::listen(const ListenRequest& r) {
  return call<Handle>([this, r]() -> Outcome<Handle> {
    Outcome<Handle> out;
    const std::uint64_t handle = next_handle_++;
    if (std::string e = apply(r.mpa, handle, false); !e.empty()) {
      out.error.message = e;
      return out;
    }
    // rdma_cm listens only on RDMA devices, so the wildcard address reaches
    // the tester through this device (requests arriving on another device
    // are rejected).
    const std::string host = !r.host.empty() ? r.host : !facts_.address.empty() ? facts_.address : "0.0.0.0";
    sockaddr_storage sa{};
    socklen_t len = 0;
    if (!resolve_numeric(host, r.port, sa, len, out.error.message)) return out;
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_, &id, nullptr, RDMA_PS_TCP) != 0) {
      out.error.message = errno_text("rdma_create_id", errno);
      return out;
    }
    if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&sa)) != 0 || rdma_listen(id, kListenBacklog) != 0) {
      out.error.message = errno_text(("rdma_bind_addr/rdma_listen on " + host + ":" + std::to_string(r.port)).c_str(), errno);
      rdma_destroy_id(id);
      return out;
    }
    listeners_[handle] = id;
    out.value = Handle{handle, format_sockaddr(rdma_get_local_addr(id))};
    return out;
  });
}

Outcome<Handle> RdmaCoreBackend::connect(const ConnectRequest& r) {
  return call<Handle>([this, r]() -> Outcome<Handle> {
    Outcome<Handle> out;
    const std::uint64_t handle = next_handle_++;
    if (std::string e = apply(r.mpa, handle, true); !e.empty()) {
      out.error.message = e;
      return out;
    }
    if (conns_.size() >= kMaxConnections) {
      out.error.message = "too many connections (" + std::to_string(kMaxConnections) + ")";
      return out;
    }
    sockaddr_storage dst{}, src{};
    socklen_t len = 0;
    if (!resolve_numeric(r.host, r.port, dst, len, out.error.message)) return out;
    const bool bind_src = !facts_.address.empty() && resolve_numeric(facts_.address, 0, src, len, out.error.message);
    rdma_cm_id* id = nullptr;
    if (rdma_create_id(channel_, &id, nullptr, RDMA_PS_TCP) != 0) {
      out.error.message = errno_text("rdma_create_id", errno);
      return out;
    }
    if (rdma_resolve_addr(id, bind_src ? reinterpret_cast<sockaddr*>(&src) : nullptr, reinterpret_cast<sockaddr*>(&dst),
                          kResolveTimeoutMs) != 0) {
      out.error.message = errno_text(("rdma_resolve_addr " + r.host).c_str(), errno);
      rdma_destroy_id(id);
      return out;
    }
    auto c = std::make_unique<Connection>(handle, id, true, facts_);
    c->peer = format_sockaddr(reinterpret_cast<sockaddr*>(&dst));
    conns_[id] = std::move(c);
    out.value = Handle{handle, ""};
    return out;
  });
}

Outcome<bool> RdmaCoreBackend::close(std::uint64_t id) {
  if (smc_->owns(id)) return smc_->close(id);
  return call<bool>([this, id]() -> Outcome<bool> {
    Outcome<bool> out;
    bool found = false;
    if (auto it = listeners_.find(id); it != listeners_.end()) {
      rdma_destroy_id(it->second);
      listeners_.erase(it);
      found = true;
    }
    std::vector<Connection*> victims;
    for (auto& [cm, c] : conns_)
      if (c->handle == id) victims.push_back(c.get());
    for (Connection* c : victims) teardown(*c, "closed by the agent", true);
    found = found || !victims.empty();
    if (!found) out.error.message = "no listener or connection " + std::to_string(id);
    else out.value = true;
    return out;
  });
}

void RdmaCoreBackend::stop() {
  std::call_once(stopped_, [this] {
    if (smc_) smc_->stop();
    {
      std::lock_guard lock(tasks_mu_);
      stopping_ = true;
    }
    if (wake_fd_ >= 0) {
      const std::uint64_t one = 1;
      (void)!::write(wake_fd_, &one, sizeof one);
    }
    if (thread_.joinable()) thread_.join();
    if (comp_) ibv_destroy_comp_channel(comp_);
    if (channel_) rdma_destroy_event_channel(channel_);
    if (devices_) rdma_free_devices(devices_);
    if (wake_fd_ >= 0) ::close(wake_fd_);
    comp_ = nullptr;
    channel_ = nullptr;
    devices_ = nullptr;
    wake_fd_ = -1;
  });
}

// ------------------------------------------------------------------ the loop

void RdmaCoreBackend::loop() {
  for (;;) {
    pollfd fds[4] = {{wake_fd_, POLLIN, 0}, {channel_->fd, POLLIN, 0}, {ctx_->async_fd, POLLIN, 0}, {comp_->fd, POLLIN, 0}};
    const int r = ::poll(fds, 4, 200);
    if (r < 0 && errno != EINTR) break;
    if (fds[0].revents) {
      std::uint64_t v = 0;
      (void)!::read(wake_fd_, &v, sizeof v);
    }
    if (fds[1].revents) on_cm_event();
    if (fds[2].revents) on_async_event();
    if (fds[3].revents) on_completion_event();
    run_tasks();
    flush_events();
    if (stopping_) break;
  }
  run_tasks();  // answer what is still queued (the callers wait)
  teardown_all();
  flush_events();
}

void RdmaCoreBackend::run_tasks() {
  std::deque<std::function<void()>> tasks;
  {
    std::lock_guard lock(tasks_mu_);
    tasks.swap(tasks_);
  }
  for (auto& t : tasks) t();
}

void RdmaCoreBackend::flush_events() {
  if (pending_.empty()) return;
  std::vector<Event> events;
  events.swap(pending_);
  EventSink sink;
  {
    std::lock_guard lock(sink_mu_);
    sink = sink_;
  }
  if (!sink) return;
  for (Event& e : events) sink(std::move(e));
}

Connection* RdmaCoreBackend::find(rdma_cm_id* id) {
  auto it = conns_.find(id);
  return it == conns_.end() ? nullptr : it->second.get();
}

void RdmaCoreBackend::on_cm_event() {
  for (;;) {
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(channel_, &ev) != 0) return;  // EAGAIN: none left
    // Everything is copied, then the event acknowledged at once: rdma_cm
    // frees its private data, and destroying an id waits for its events.
    const rdma_cm_event_type type = ev->event;
    const int status = ev->status;
    rdma_cm_id* id = ev->id;
    rdma_cm_id* listen_id = ev->listen_id;
    ConnectInfo info;
    info.peer_ird = ev->param.conn.initiator_depth;
    info.peer_ord = ev->param.conn.responder_resources;
    if (ev->param.conn.private_data && ev->param.conn.private_data_len > 0) {
      const auto* pd = static_cast<const std::uint8_t*>(ev->param.conn.private_data);
      info.private_data.assign(pd, pd + ev->param.conn.private_data_len);
    }
    rdma_ack_cm_event(ev);

    if (type == RDMA_CM_EVENT_CONNECT_REQUEST) {
      on_connect_request(id, listen_id, info);
      continue;
    }
    Connection* c = find(id);
    if (!c) {
      // A listener's own event (device removal): report it, the listener stays.
      for (auto& [handle, lid] : listeners_)
        if (lid == id) {
          Event e;
          e.kind = EventKind::kAsync;
          e.handle = handle;
          e.name = cm_event_name(type);
          e.detail = std::string(cm_event_id(type)) + " on the listener, status " + cm_status_text(status);
          emit(std::move(e));
        }
      continue;
    }
    const std::string detail = std::string(cm_event_id(type)) + " status " + cm_status_text(status);
    switch (type) {
      case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(id, kResolveTimeoutMs) != 0) teardown(*c, errno_text("rdma_resolve_route", errno), true);
        break;
      case RDMA_CM_EVENT_ROUTE_RESOLVED: {
        if (id->verbs != ctx_) {
          teardown(*c, std::string("the route to the tester goes through device ") + ibv_get_device_name(id->verbs->device) +
                           ", not " + facts_.name, true);
          break;
        }
        std::string error;
        if (!c->create_resources(comp_, error)) {
          teardown(*c, error, true);
          break;
        }
        c->local = format_sockaddr(rdma_get_local_addr(id));
        const Depths d = connect_depths(facts_.depths);
        rdma_conn_param p{};
        p.initiator_depth = d.initiator_depth;
        p.responder_resources = d.responder_resources;
        if (rdma_connect(id, &p) != 0) teardown(*c, errno_text("rdma_connect", errno), true);
        break;
      }
      case RDMA_CM_EVENT_ESTABLISHED: {
        c->established = true;
        c->local = format_sockaddr(rdma_get_local_addr(id));
        c->peer = format_sockaddr(rdma_get_peer_addr(id));
        Event e = c->event(EventKind::kConnection, "established");
        // What the driver reports here differs (siw: its own negotiated
        // IRD and ORD), so the fields are named as rdma_cm names them.
        e.detail = detail + "; initiator_depth " + std::to_string(info.peer_ird) + ", responder_resources " +
                   std::to_string(info.peer_ord) +
                   (c->notes.empty() ? "" : "; " + c->notes);
        emit(std::move(e));
        // RFC 5044 §7.1.2: in the client/server model the initiator sends
        // the first FPDU; the test ULP's is a Send with its advertisement.
        if (c->initiator) c->send_advertisement(pending_);
        break;
      }
      case RDMA_CM_EVENT_DISCONNECTED:
        c->disconnected = true;
        teardown(*c, detail, true);
        break;
      case RDMA_CM_EVENT_REJECTED: {
        Event e = c->event(EventKind::kConnection, "rejected");
        e.detail = detail + "; private data " + std::to_string(info.private_data.size()) + " octets";
        emit(std::move(e));
        teardown(*c, detail, false);
        break;
      }
      case RDMA_CM_EVENT_ADDR_ERROR:
      case RDMA_CM_EVENT_ROUTE_ERROR:
      case RDMA_CM_EVENT_CONNECT_ERROR:
      case RDMA_CM_EVENT_UNREACHABLE:
      case RDMA_CM_EVENT_DEVICE_REMOVAL:
        teardown(*c, detail, true);
        break;
      default:
        break;  // TIMEWAIT_EXIT, CONNECT_RESPONSE (no QP: never), multicast, ADDR_CHANGE
    }
  }
}

void RdmaCoreBackend::on_connect_request(rdma_cm_id* id, rdma_cm_id* listen_id, const ConnectInfo& info) {
  std::uint64_t handle = 0;
  for (auto& [h, lid] : listeners_)
    if (lid == listen_id) handle = h;
  Event refused;
  refused.kind = EventKind::kConnection;
  refused.handle = handle;
  refused.name = "failed";
  refused.local = format_sockaddr(rdma_get_local_addr(id));
  refused.peer = format_sockaddr(rdma_get_peer_addr(id));
  auto reject = [&](std::string why) {
    rdma_reject(id, nullptr, 0);
    rdma_destroy_id(id);
    refused.detail = "connection request rejected: " + why;
    emit(refused);
  };
  if (handle == 0) return reject("no such listener");
  if (id->verbs != ctx_) return reject(std::string("it arrived on device ") + ibv_get_device_name(id->verbs->device));
  if (conns_.size() >= kMaxConnections) return reject("too many connections");

  auto owned = std::make_unique<Connection>(handle, id, false, facts_);
  Connection& c = *owned;
  conns_[id] = std::move(owned);
  c.local = refused.local;
  c.peer = refused.peer;
  std::string error;
  if (!c.create_resources(comp_, error)) {
    rdma_reject(id, nullptr, 0);
    return teardown(c, error, true);
  }
  // The tester's hint (test_ulp.hpp) may ask for Markers; rdma_cm cannot.
  if (conformance::parse_hint(info.private_data) & conformance::kHintMarkers)
    c.notes = "the tester's Request asks for Markers; rdma_cm cannot ask the device for them";
  const std::vector<std::uint8_t>& ad = c.reply_advertisement(budget_);
  const Depths d = accept_depths(facts_.depths, info.peer_ird);
  rdma_conn_param p{};
  p.private_data = ad.data();
  p.private_data_len = static_cast<std::uint8_t>(ad.size());
  p.initiator_depth = d.initiator_depth;
  p.responder_resources = d.responder_resources;
  if (rdma_accept(id, &p) != 0) {
    const int err = errno;
    rdma_reject(id, nullptr, 0);
    teardown(c, errno_text("rdma_accept", err), true);
  }
}

void RdmaCoreBackend::on_async_event() {
  for (;;) {
    ibv_async_event ae{};
    if (ibv_get_async_event(ctx_, &ae) != 0) return;
    Event e;
    e.kind = EventKind::kAsync;
    e.name = async_event_name(ae.event_type);
    e.detail = async_event_id(ae.event_type);
    const AsyncScope scope = async_event_scope(ae.event_type);
    for (auto& [cm, c] : conns_) {
      const bool mine = (scope == AsyncScope::kQp && cm->qp && ae.element.qp == cm->qp) ||
                        (scope == AsyncScope::kCq && ae.element.cq == c->cq());
      if (!mine) continue;
      e.handle = c->handle;
      e.local = c->local;
      e.peer = c->peer;
      if (cm->qp) e.detail += " qp_num " + std::to_string(cm->qp->qp_num);
    }
    if (scope == AsyncScope::kPort) e.detail += " port " + std::to_string(ae.element.port_num);
    ibv_ack_async_event(&ae);
    emit(std::move(e));
  }
}

void RdmaCoreBackend::on_completion_event() {
  for (;;) {
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(comp_, &cq, &context) != 0) return;
    ibv_ack_cq_events(cq, 1);
    for (auto& [cm, c] : conns_)
      if (c->cq() == cq) {
        c->on_cq_event(pending_);
        break;
      }
  }
}

void RdmaCoreBackend::teardown(Connection& c, const std::string& why, bool report) {
  rdma_cm_id* id = c.id();
  if (report) {
    const bool orderly = c.disconnected || why == "closed by the agent";
    Event e = c.event(EventKind::kConnection, orderly ? "closed" : "failed");
    e.detail = why;
    emit(std::move(e));
  }
  c.destroy(pending_);  // disconnects, reports the last completions, frees verbs objects
  rdma_destroy_id(id);
  conns_.erase(id);
}

void RdmaCoreBackend::teardown_all() {
  while (!conns_.empty()) teardown(*conns_.begin()->second, "closed by the agent", true);
  for (auto& [h, id] : listeners_) rdma_destroy_id(id);
  listeners_.clear();
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core

namespace rdmaconf::agent {
std::unique_ptr<Backend> create_rdma_core_backend(const std::string& device, std::string& error) {
  auto b = std::make_unique<rdma_core::RdmaCoreBackend>();
  if (!b->open(device, error)) return nullptr;
  return b;
}
}  // namespace rdmaconf::agent
