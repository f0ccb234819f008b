// smcr-probe: the reference SMC-R stack, live, against another host's
// SMC-R over a RoCEv2 device. One connection, either role:
//
//   CLC over TCP (reference/clc: Proposal, Accept, Confirm; RFC 7609 §3.5.1)
//   the first link: RC queue pair connected by hand from CLC (roce_transport.hpp)
//   LLC (reference/smcr/link_group.hpp): CONFIRM LINK and whatever the peer does next
//   CDC (reference/smcr/connection.hpp): data written into the peer's RMB and
//     announced, the peer's echo read back from ours, then the close (§4.8.1)
//   the end of the link group: DELETE LINK with A (§3.5.4)
//
// As client (--connect) the probe sends --bytes octets of a counting pattern
// and expects them back (an echo server on the other side: smc_pair server);
// as server (--listen) it echoes what one client sends until the client
// closes. Every Send either way is printed with its octets; everything the
// peer sent is judged by the reference machines, and what they judged broken
// is printed as a FINDING with its registry row. Exit status 0 when the link
// came up, the data came back intact, the connection closed and no rule was
// broken. docs/interop-6.12.md has a run against Linux 6.12.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/rdma_core/roce_transport.hpp"
#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "engine/clc_identity.hpp"
#include "smcr/connection.hpp"
#include "smcr/link_group.hpp"
#include "smcr/messages.hpp"

namespace {

using namespace rdmaconf;
namespace rc = rdmaconf::agent::rdma_core;
using Clock = std::chrono::steady_clock;

const Clock::time_point kStart = Clock::now();
smcr::Time now() { return std::chrono::duration_cast<smcr::Time>(Clock::now() - kStart); }

// ------------------------------------------------------------------ the log

struct Log {
  int findings = 0;
  void line(const std::string& text) {
    std::printf("%8.3f  %s\n", static_cast<double>(now().count()) / 1000.0, text.c_str());
    std::fflush(stdout);
  }
  void finding(const check::Violation& v, const std::string& where) {
    ++findings;
    std::string t = "FINDING " + where + ": ";
    if (v.rule != nullptr)
      t += std::string(v.rule->id) + " (" + std::string(v.rule->section) + ", " + std::string(v.rule->summary) + ")";
    if (!v.field.empty())
      t += "; " + std::string(v.field) + " = " + std::to_string(v.seen) + ", expected " + std::to_string(v.expected);
    line(t);
  }
};

std::string hex(wire::Bytes b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  const std::size_t shown = std::min<std::size_t>(b.size(), 1024);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i != 0) s += (i % 16 == 0) ? "\n            " : " ";
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  if (shown < b.size()) s += " ... (" + std::to_string(b.size()) + " octets)";
  return s;
}

// One line: the message's name and its fields in short (`rdmaconf decode`
// of the capture shows every field).
std::string describe(wire::Bytes octets) {
  auto m = smcr::decode_send(octets);
  if (!m) return "undecodable (" + m.error().to_string() + ")";
  return smcr::message_name(*m) + ": " + smcr::summarize(*m);
}

// A queue pair that prints every Send it posts and every Send it receives,
// with its octets, and hands everything on unchanged.
class ShownQp final : public smcr::QueuePair {
 public:
  ShownQp(smcr::QueuePair& inner, Log& log) : inner(inner), log_(log) {}
  std::uint32_t qp_number() const override { return inner.qp_number(); }
  bool broken() const override { return inner.broken(); }
  smcr::WorkId post_send(wire::Bytes message) override {
    log_.line("-> QP " + std::to_string(qp_number()) + ": " + describe(message) + "\n            " + hex(message));
    return inner.post_send(message);
  }
  smcr::WorkId post_write(smcr::RToken target, wire::Bytes octets) override {
    log_.line("-> QP " + std::to_string(qp_number()) + ": RDMA Write of " + std::to_string(octets.size()) +
              " octets, rkey " + std::to_string(target.rkey));
    return inner.post_write(target, octets);
  }
  std::optional<smcr::QpEvent> poll() override {
    std::optional<smcr::QpEvent> e = inner.poll();
    if (!e) return e;
    if (e->kind == smcr::QpEvent::Kind::kReceive)
      log_.line("<- QP " + std::to_string(qp_number()) + ": " + describe(e->octets) + "\n            " + hex(e->octets));
    else if (e->kind == smcr::QpEvent::Kind::kError)
      log_.line("QP " + std::to_string(qp_number()) + " entered the error state");
    else if (e->status != smcr::WorkStatus::kSuccess)
      log_.line("QP " + std::to_string(qp_number()) + ": work " + std::to_string(e->work) + " failed");
    return e;
  }
  smcr::QueuePair& inner;

 private:
  Log& log_;
};

class ShownHost final : public smcr::Host {
 public:
  ShownHost(rc::RoceHost& inner, Log& log) : inner_(inner), log_(log) {}
  smcr::QueuePair* create_qp(const smcr::Gid& local) override {
    smcr::QueuePair* q = inner_.create_qp(local);
    flush_notes();
    if (q == nullptr) return nullptr;
    qps_.push_back(std::make_unique<ShownQp>(*q, log_));
    log_.line("queue pair " + std::to_string(q->qp_number()) + " created");
    return qps_.back().get();
  }
  bool connect(smcr::QueuePair& qp, std::uint32_t peer_qp_number) override {
    return inner_.connect(unwrap(qp), peer_qp_number);
  }
  bool connect_path(smcr::QueuePair& qp, std::uint32_t peer_qp_number, const smcr::PeerPath& path) override {
    const bool ok = inner_.connect_path(unwrap(qp), peer_qp_number, path);
    log_.line("queue pair " + std::to_string(qp.qp_number()) + (ok ? " connected" : " NOT connected") +
              " to QP " + std::to_string(peer_qp_number) + " (peer PSN " + std::to_string(path.psn) +
              ", ours " + std::to_string(path.local_psn) + ", MTU code " + std::to_string(path.mtu) + ")");
    flush_notes();
    return ok;
  }
  void destroy_qp(smcr::QueuePair& qp) override {
    log_.line("queue pair " + std::to_string(qp.qp_number()) + " destroyed");
    inner_.destroy_qp(unwrap(qp));
  }
  std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override { return inner_.allocate_rmb(size); }
  wire::MutableBytes rmb(std::uint32_t id) override { return inner_.rmb(id); }
  std::optional<smcr::RToken> register_rmb(std::uint32_t id, smcr::QueuePair& qp) override {
    return inner_.register_rmb(id, unwrap(qp));
  }
  void deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) override { inner_.deregister_rmb(id, unwrap(qp)); }
  void flush_notes() {
    for (const std::string& n : inner_.take_notes()) log_.line("verbs: " + n);
  }

 private:
  smcr::QueuePair& unwrap(smcr::QueuePair& qp) {
    for (const auto& q : qps_)
      if (q.get() == &qp) return q->inner;
    return qp;
  }
  rc::RoceHost& inner_;
  Log& log_;
  std::vector<std::unique_ptr<ShownQp>> qps_;
};

// ---------------------------------------------------------------- TCP

bool parse_endpoint(const std::string& text, sockaddr_in& out) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  out = {};
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(std::atoi(text.c_str() + colon + 1)));
  return ::inet_pton(AF_INET, text.substr(0, colon).c_str(), &out.sin_addr) == 1;
}

bool send_all(int fd, const std::vector<std::uint8_t>& octets) {
  std::size_t at = 0;
  while (at < octets.size()) {
    const ssize_t n = ::send(fd, octets.data() + at, octets.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

// Reads one CLC message (at most `wait`); nullopt on close, error or time out.
std::optional<std::vector<std::uint8_t>> read_clc(int fd, clc::MessageReader& reader, std::chrono::milliseconds wait) {
  const auto until = Clock::now() + wait;
  std::uint8_t buf[1];  // one octet at a time: nothing past the message is taken from the stream
  while (!reader.has_message() && !reader.error()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    pollfd p{fd, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) return std::nullopt;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return std::nullopt;
    reader.put(wire::Bytes(buf, static_cast<std::size_t>(n)));
  }
  if (reader.error()) return std::nullopt;
  std::vector<std::uint8_t> m(reader.message().begin(), reader.message().end());
  reader = clc::MessageReader();
  return m;
}

// -------------------------------------------------------------- the probe

struct Options {
  std::string connect, listen, device, local;
  std::string eid = "RDMACONF-INTEROP";
  std::size_t bytes = 16384;
  double seconds = 30;
};

constexpr std::uint32_t kRmbSize = 65536;   // one RMBE per RMB, as Linux (App. A.2.3: 64 KiB)
constexpr std::uint32_t kOwnToken = 0x5243;  // our RMBE's alert token
constexpr std::uint32_t kInitialPsn = 0x1000;
constexpr smcr::Time kQuietBeforeEnd{1000};   // nothing received or sent for this long after the close
constexpr clc::PeerId kPeerId = 0x52434e4650000001ull;  // "RCNFP" + 1

std::uint8_t pattern(std::uint64_t i) { return static_cast<std::uint8_t>(i * 7 + (i >> 8)); }

clc::Mac clc_mac(smcr::Mac m) {
  clc::Mac out{};
  for (int i = 0; i < 6; ++i) out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(m >> (40 - 8 * i));
  return out;
}
smcr::Mac smcr_mac(const clc::Mac& m) {
  smcr::Mac out = 0;
  for (std::uint8_t b : m) out = out << 8 | b;
  return out;
}

class Probe {
 public:
  Probe(const Options& o, rc::RoceHost& host) : o_(o), roce_(host), host_(host, log_) {}

  int run() {
    const bool client = !o_.connect.empty();
    qp_ = host_.create_qp(roce_.address().gid);  // the first link: on the device's own port
    const std::optional<std::uint32_t> rmb = host_.allocate_rmb(kRmbSize);
    if (qp_ == nullptr || !rmb) return fail("no queue pair or RMB");
    rmb_ = *rmb;
    const std::optional<smcr::RToken> rt = host_.register_rmb(rmb_, *qp_);
    if (!rt) return fail("the RMB is not registered");
    log_.line("device " + roce_.device_name() + ", GID index " + std::to_string(roce_.gid_index()) + ", MTU code " +
              std::to_string(roce_.active_mtu()) + ", RMB rkey " + std::to_string(rt->rkey));
    clc::SmcrLink link;
    link.peer_id = kPeerId;
    link.gid = roce_.address().gid;
    link.mac = clc_mac(roce_.address().mac);
    link.qp_number = qp_->qp_number();
    link.rmb_rkey = rt->rkey;
    link.rmbe_index = 1;
    link.rmbe_alert_token = kOwnToken;
    link.rmbe_size = kRmbSize;
    link.qp_mtu = roce_.active_mtu();
    link.rmb_virtual_address = rt->virtual_address;
    link.initial_psn = kInitialPsn;
    const int fd = client ? connect_tcp() : accept_tcp();
    if (fd < 0) return fail("no TCP connection");
    const std::optional<clc::Outcome> outcome = clc_exchange(fd, client, link);
    if (!outcome || outcome->kind != clc::OutcomeKind::kSmc || !outcome->peer) {
      ::close(fd);
      return fail("CLC did not end in SMC-R");
    }
    const int rc = link_layer(client, *outcome);
    ::shutdown(fd, SHUT_RDWR);
    ::close(fd);
    return rc;
  }

 private:
  int fail(const std::string& why) {
    log_.line("verdict: fail: " + why);
    return 1;
  }

  int connect_tcp() {
    sockaddr_in to{}, from{};
    if (!parse_endpoint(o_.connect, to) || !parse_endpoint(o_.local + ":0", from)) return -1;
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::close(fd);
      return -1;
    }
    log_.line("TCP connected to " + o_.connect);
    return fd;
  }

  int accept_tcp() {
    sockaddr_in at{};
    if (!parse_endpoint(o_.listen, at)) return -1;
    const int l = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (l < 0 || ::bind(l, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || ::listen(l, 1) != 0) return -1;
    log_.line("listening on " + o_.listen);
    pollfd p{l, POLLIN, 0};
    const int fd = ::poll(&p, 1, static_cast<int>(o_.seconds * 1000)) == 1 ? ::accept(l, nullptr, nullptr) : -1;
    ::close(l);
    if (fd >= 0) log_.line("TCP connection accepted");
    return fd;
  }

  std::optional<clc::Outcome> clc_exchange(int fd, bool client, const clc::SmcrLink& link) {
    clc::V2Settings v2;
    v2.user_eids = {clc::make_eid(o_.eid)};
    v2.rocev2_gid = link.gid;
    const std::optional<conformance::LocalInterface> li = conformance::local_interface(fd);
    const clc::Ipv4Prefix prefix = li ? li->prefix : clc::Ipv4Prefix{};
    std::optional<clc::ClientHandshake> ch;
    std::optional<clc::ServerHandshake> sh;
    clc::Step step;
    if (client) {
      clc::ClientConfig c;
      c.link = link;
      c.v2 = v2;
      c.ipv4 = prefix;
      ch.emplace(c);
      step = ch->start(true);
    } else {
      clc::ServerConfig c;
      c.link = link;
      c.v2 = v2;
      c.ipv4 = prefix;
      sh.emplace(c);
      step = sh->start(true);
    }
    clc::MessageReader reader;
    for (;;) {
      if (step.outcome && step.outcome->kind == clc::OutcomeKind::kSmc && step.outcome->peer) {
        // The queue pair is ready to receive before our last CLC message
        // leaves: the server sends CONFIRM LINK as soon as it has the Confirm.
        if (!connect_first_link(*step.outcome)) return std::nullopt;
      }
      if (!step.send.empty()) {
        show_clc("->", step.send);
        if (!send_all(fd, step.send)) return std::nullopt;
      }
      if (step.outcome) {
        log_.line(std::string("CLC outcome: ") +
                  (step.outcome->kind == clc::OutcomeKind::kSmc ? "SMC-R version " + std::to_string(step.outcome->version) +
                                                                      (step.outcome->first_contact ? ", first contact" : "")
                                                                : step.outcome->kind == clc::OutcomeKind::kFallback ? "fallback"
                                                                                                                    : "failed"));
        return step.outcome;
      }
      const auto m = read_clc(fd, reader, clc::kClcWaitTime);
      if (!m) {
        step = client ? ch->on_timeout() : sh->on_timeout();
        continue;
      }
      show_clc("<-", *m);
      step = client ? ch->on_message(*m) : sh->on_message(*m);
    }
  }

  void show_clc(const char* dir, const std::vector<std::uint8_t>& octets) {
    static constexpr const char* kNames[] = {"?", "Proposal", "Accept", "Confirm", "Decline"};
    const unsigned type = octets.size() > 4 ? octets[4] : 0;
    log_.line(std::string(dir) + " CLC " + kNames[type < 5 ? type : 0] + " (" + std::to_string(octets.size()) +
              " octets)\n            " + hex(octets));
  }

  bool connect_first_link(const clc::Outcome& o) {
    if (connected_) return true;
    connected_ = true;
    const clc::SmcrLink& p = *o.peer;
    smcr::PeerPath path{smcr_mac(p.mac), p.gid, p.initial_psn, o.qp_mtu, kInitialPsn};
    return host_.connect_path(*qp_, p.qp_number, path);
  }

  int link_layer(bool client, const clc::Outcome& o) {
    const clc::SmcrLink& p = *o.peer;
    smcr::LinkGroupConfig cfg;
    cfg.role = client ? smcr::Role::kClient : smcr::Role::kServer;
    cfg.version = o.version >= 2 ? 2 : 1;
    cfg.mtu = o.qp_mtu;
    cfg.add_second_link = false;  // one RoCE port here: an asymmetric link would add nothing
    smcr::LinkGroup group(cfg, host_);
    smcr::FirstLink first;
    first.qp = qp_;
    first.local = roce_.address();
    first.peer = check::LinkEnd{smcr_mac(p.mac), p.gid, p.qp_number};
    first.rmb = rmb_;
    first.peer_rmb = smcr::RToken{p.rmb_rkey, p.rmb_virtual_address};
    group.start(first, now());
    smcr::ConnectionConfig cc;
    cc.own = smcr::RmbeGeometry{kRmbSize, false};  // Linux's and our CONFIRM LINK: no eyecatcher
    cc.peer = smcr::RmbeGeometry{static_cast<std::uint32_t>(p.rmbe_size), false};
    cc.own_alert_token = kOwnToken;
    cc.peer_alert_token = p.rmbe_alert_token;
    std::optional<smcr::Connection> conn;
    // What is still to be sent (the client's pattern, the server's echo),
    // fed to the connection as its send buffer and the peer's window allow.
    std::vector<std::uint8_t> outbox;
    std::size_t outbox_at = 0;
    std::vector<std::uint8_t> received;
    std::uint64_t sent = 0;
    bool closing = false, ended = false;
    smcr::Time last_activity = now();
    const auto deadline = now() + smcr::Time(static_cast<std::int64_t>(o_.seconds * 1000));
    auto emit = [&](smcr::Output out) {
      for (const smcr::RdmaWrite& w : out.writes) group.write(kOwnToken, w.rmbe_offset, w.octets);
      if (out.cdc) group.send_cdc(kOwnToken, out.cdc->header.bytes());
    };
    auto feed = [&] {
      while (conn && outbox_at < outbox.size()) {
        smcr::SendResult r = conn->send(wire::Bytes(outbox).subspan(outbox_at));
        outbox_at += r.accepted;
        sent += r.accepted;
        emit(std::move(r.out));
        if (r.accepted == 0) break;
      }
      if (outbox_at == outbox.size()) {
        outbox.clear();
        outbox_at = 0;
      }
    };
    while (now() < deadline && !ended) {
      bool any = group.poll(now());
      group.on_time(now());
      host_.flush_notes();
      while (std::optional<smcr::Event> e = group.next_event()) {
        any = true;
        if (e->violation) log_.finding(*e->violation, "link group");
        if (e->kind != smcr::Event::Kind::kCdc && e->kind != smcr::Event::Kind::kWorkCompleted)
          log_.line("link group: " + std::string(smcr::name(e->kind)) +
                    (e->kind == smcr::Event::Kind::kDropped ? " (" + std::string(smcr::name(e->drop)) + ")" : "") +
                    " link " + std::to_string(e->link) + " reason " + std::to_string(e->reason));
        if (e->kind == smcr::Event::Kind::kWorkCompleted && e->status != smcr::WorkStatus::kSuccess)
          log_.line("link group: work " + std::to_string(e->work) + " of the connection did not complete");
        if (e->kind == smcr::Event::Kind::kLinkUp && !conn) {
          conn.emplace(cc, host_.rmb(rmb_).first(kRmbSize));
          group.add_connection({kOwnToken, first.peer_rmb, 0});
          if (client) {
            outbox.resize(o_.bytes);
            for (std::size_t i = 0; i < outbox.size(); ++i) outbox[i] = pattern(i);
            log_.line("connection: " + std::to_string(o_.bytes) + " octets to send");
            feed();
          }
        } else if (e->kind == smcr::Event::Kind::kCdc && conn) {
          auto m = smcr::decode_cdc(e->octets);
          if (!m) continue;
          smcr::CdcOutcome r = conn->on_cdc(*m);
          for (const smcr::Finding& f : r.findings) {
            if (f.violation) {
              log_.finding(*f.violation, "connection");
            } else {
              ++log_.findings;
              log_.line("FINDING connection: " + std::string(smcr::name(f.error)));
            }
          }
          log_.line("connection: CDC " + std::string(smcr::name(r.verdict)) + ", " + std::to_string(r.new_octets) +
                    " new octets, state " + std::string(smcr::name(conn->state())) + ", window " +
                    std::to_string(conn->window()));
          emit(std::move(r.out));
          std::vector<std::uint8_t> buf(kRmbSize);
          for (;;) {
            smcr::ReceiveResult rr = conn->receive(buf);
            emit(std::move(rr.out));
            if (rr.octets == 0) break;
            received.insert(received.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(rr.octets));
            if (!client) outbox.insert(outbox.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(rr.octets));
          }
          feed();  // the window may have opened, or there is more to echo
          if (client && !closing && received.size() >= o_.bytes) {
            closing = true;
            log_.line("connection: echo complete, closing");
            emit(conn->close());
          } else if (!client && !closing && conn->peer_done_writing() && outbox.empty()) {
            closing = true;
            log_.line("connection: the peer closed, closing");
            emit(conn->close());
          }
        } else if (e->kind == smcr::Event::Kind::kTerminated) {
          ended = true;
        }
      }
      if (any) last_activity = now();
      if (conn && closing && conn->state() == smcr::ConnectionState::kClosed && group.state() == smcr::LinkGroup::State::kActive &&
          !group.flow_running() && now() - last_activity >= kQuietBeforeEnd) {
        // One connection was the point: the link group ends with it
        // (DELETE LINK with A, §3.5.4), which Linux would do after its
        // link group free delay. First the peer's own steps after the
        // close (Linux: DELETE RKEY of the connection's RMB) are let finish.
        log_.line("connection closed; ending the link group");
        group.remove_connection(kOwnToken, now());
        group.terminate(smcr::delete_reason::kProgramInitiated, now());
      }
      if (group.state() == smcr::LinkGroup::State::kTerminated) {
        // Let the last Sends go before the queue pair goes.
        const auto settle = Clock::now() + std::chrono::milliseconds(500);
        while (Clock::now() < settle) {
          (void)qp_->poll();
          ::usleep(1000);
        }
        ended = true;
      }
      if (!any) ::usleep(1000);
    }
    host_.flush_notes();
    bool intact = true;
    if (client) {
      intact = received.size() == o_.bytes;
      for (std::size_t i = 0; intact && i < received.size(); ++i) intact = received[i] == pattern(i);
    }
    log_.line("link up: " + std::string(conn ? "yes" : "no") + ", octets sent " + std::to_string(sent) +
              ", received " + std::to_string(received.size()) + (client ? (intact ? " (intact)" : " (NOT intact)") : "") +
              ", connection " + (conn ? std::string(smcr::name(conn->state())) : "none") + ", findings " +
              std::to_string(log_.findings));
    const bool pass = conn && sent > 0 && intact && received.size() == sent &&
                      conn->state() == smcr::ConnectionState::kClosed && log_.findings == 0;
    log_.line(std::string("verdict: ") + (pass ? "pass" : "fail"));
    return pass ? 0 : 1;
  }

  const Options& o_;
  Log log_;
  rc::RoceHost& roce_;
  ShownHost host_;
  smcr::QueuePair* qp_ = nullptr;
  std::uint32_t rmb_ = 0;
  bool connected_ = false;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"smcr-probe: the reference SMC-R stack over a RoCEv2 device against another host's SMC-R"};
  auto* c = app.add_option("--connect", o.connect, "be the SMC client: connect to ADDR:PORT (an echo server)");
  auto* l = app.add_option("--listen", o.listen, "be the SMC server: accept one client on ADDR:PORT and echo");
  c->excludes(l);
  app.add_option("--device", o.device, "the RoCE device (rxe1, mlx5_0); default the first");
  app.add_option("--local", o.local, "this side's IPv4 address: its RoCEv2 GID, and the TCP source address")->required();
  app.add_option("--eid", o.eid, "the User Defined EID both sides share (SMC-Rv2)");
  app.add_option("--bytes", o.bytes, "client: octets sent and expected back")->check(CLI::Range(1, 1 << 20));
  app.add_option("--seconds", o.seconds, "the most the link layer runs");
  CLI11_PARSE(app, argc, argv);
  if (o.connect.empty() && o.listen.empty()) {
    std::fprintf(stderr, "smcr-probe: --connect or --listen\n");
    return 2;
  }
  in_addr local{};
  if (::inet_pton(AF_INET, o.local.c_str(), &local) != 1) {
    std::fprintf(stderr, "smcr-probe: --local %s is not an IPv4 address\n", o.local.c_str());
    return 2;
  }
  std::string error;
  rc::RoceDeviceConfig dc;
  dc.device = o.device;
  dc.ipv4 = ntohl(local.s_addr);
  std::unique_ptr<rc::RoceHost> host = rc::RoceHost::open(dc, error);
  if (!host) {
    std::fprintf(stderr, "smcr-probe: %s\n", error.c_str());
    return 2;
  }
  Probe probe(o, *host);
  return probe.run();
}
