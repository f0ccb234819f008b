#include "endpoint/kernel_sctp_link.hpp"

// The socket API's declarations come before the kernel's SCTP header, which
// uses them (struct sockaddr_storage).
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
// clang-format off
#include <linux/sctp.h>
// clang-format on

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "endpoint/sctp_link_impl.hpp"

namespace rdmaconf::endpoint {
namespace kernel_sctp {

std::optional<Notification> decode_notification(wire::Bytes octets) {
  sctp_notification n{};
  if (octets.size() < sizeof n.sn_header) return std::nullopt;
  std::memcpy(&n, octets.data(), std::min(octets.size(), sizeof n));
  // Each kind is read only when all the fields the link uses arrived.
  const auto has = [&](std::size_t end) { return octets.size() >= end; };
  Notification out;
  switch (n.sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
      if (!has(offsetof(sctp_assoc_change, sac_assoc_id))) return std::nullopt;
      out.state = n.sn_assoc_change.sac_state;
      out.outbound_streams = n.sn_assoc_change.sac_outbound_streams;
      out.inbound_streams = n.sn_assoc_change.sac_inbound_streams;
      out.kind = out.state == SCTP_COMM_UP   ? Notification::Kind::kCommUp
                 : out.state == SCTP_RESTART ? Notification::Kind::kRestart
                                             : Notification::Kind::kEnded;
      return out;
    case SCTP_ADAPTATION_INDICATION:
      if (!has(offsetof(sctp_adaptation_event, sai_assoc_id))) return std::nullopt;
      out.kind = Notification::Kind::kAdaptation;
      out.indication = n.sn_adaptation_event.sai_adaptation_ind;
      return out;
    case SCTP_SENDER_DRY_EVENT:
      out.kind = Notification::Kind::kSenderDry;
      return out;
    default:
      return out;
  }
}

std::optional<ReceiveInfo> receive_info(wire::Bytes control) {
  // CMSG_* walk a msghdr over aligned storage: copy the octets into some.
  std::vector<cmsghdr> storage((control.size() + sizeof(cmsghdr) - 1) / sizeof(cmsghdr) + 1);
  std::memcpy(storage.data(), control.data(), control.size());
  msghdr mh{};
  mh.msg_control = storage.data();
  mh.msg_controllen = control.size();
  for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
    if (c->cmsg_level != IPPROTO_SCTP || c->cmsg_type != SCTP_RCVINFO) continue;
    if (c->cmsg_len < CMSG_LEN(sizeof(sctp_rcvinfo))) return std::nullopt;
    sctp_rcvinfo info{};
    std::memcpy(&info, CMSG_DATA(c), sizeof info);
    // The PPID is passed through as it was on the wire (RFC 6458 §5.3.5).
    return ReceiveInfo{info.rcv_sid, ntohl(info.rcv_ppid), (info.rcv_flags & SCTP_UNORDERED) != 0};
  }
  return std::nullopt;
}

}  // namespace kernel_sctp

namespace {

std::string errno_text(const char* what, int e) { return std::string(what) + ": " + std::strerror(e); }

using Descriptor = asio::posix::stream_descriptor;

}  // namespace

bool kernel_sctp_available(std::string& why) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
  if (fd < 0) {
    why = errno_text("this kernel offers no SCTP socket (socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP))", errno);
    return false;
  }
  ::close(fd);
  return true;
}

struct KernelSctpLink::Impl {
  // One association's socket: the active side's own, or one the listener accepted.
  struct Assoc {
    std::shared_ptr<Descriptor> sd;
    bool comm_up = false;
    bool reported_up = false;
    bool gone = false;
    SctpUp up;
    std::vector<std::uint8_t> message;  // a message arriving in pieces
  };

  Impl(SctpLinkConfig c, SctpEvents e) : config(std::move(c)), events(std::move(e)), work(asio::make_work_guard(io)) {
    rx.resize(config.max_message + 1);
    const std::uint16_t port = config.sctp_port ? config.sctp_port : config.local.port();
    if (config.sctp_port && config.local.port() && config.sctp_port != config.local.port())
      throw std::runtime_error("over the kernel's SCTP the SCTP port is the address's port (" +
                               std::to_string(config.local.port()) + ", not " + std::to_string(config.sctp_port) + ")");
    const int family = config.local.address().is_v6() ? AF_INET6 : AF_INET;
    const int fd = ::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_SCTP);
    if (fd < 0) throw std::runtime_error(errno_text("this kernel offers no SCTP socket", errno));
    main = std::make_shared<Descriptor>(io, fd);
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    set_options(fd);
    udp::endpoint local(config.local.address(), port);
    if (::bind(fd, local.data(), static_cast<socklen_t>(local.size())) != 0)
      throw std::runtime_error(errno_text(("bind to SCTP " + local.address().to_string() + " port " +
                                           std::to_string(port)).c_str(),
                                          errno));
    udp::endpoint bound;
    socklen_t len = static_cast<socklen_t>(bound.capacity());
    if (::getsockname(fd, bound.data(), &len) != 0) throw std::runtime_error(errno_text("getsockname", errno));
    bound.resize(len);
    config.local = bound;
    config.sctp_port = bound.port();
    thread = std::thread([this] { io.run(); });
  }

  ~Impl() {
    work.reset();
    io.stop();
    if (thread.joinable()) thread.join();
    std::lock_guard lock(mu);
    // An association still open ends with an ABORT (RFC 9260 §9.1) rather
    // than a SHUTDOWN this link would not be there to finish.
    const linger abort_on_close{1, 0};
    for (auto& [id, a] : assocs)
      if (a.sd && a.sd->is_open() && !a.gone)
        ::setsockopt(a.sd->native_handle(), SOL_SOCKET, SO_LINGER, &abort_on_close, sizeof abort_on_close);
    assocs.clear();
    main.reset();
  }

  // The options of RFC 6458 §8 the link needs; an accepted socket inherits
  // them from the listener.
  void set_options(int fd) {
    const int on = 1;
    // RFC 5043 §11.2: untagged messages are not held back for bundling.
    check(::setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on), "SCTP_NODELAY");
    check(::setsockopt(fd, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on), "SCTP_RECVRCVINFO");
    if (config.indication) {
      sctp_setadaptation adaptation{*config.indication};
      check(::setsockopt(fd, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &adaptation, sizeof adaptation),
            "SCTP_ADAPTATION_LAYER");
    }
    sctp_initmsg init{};
    init.sinit_num_ostreams = config.outbound_streams;
    init.sinit_max_instreams = config.inbound_streams;
    check(::setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof init), "SCTP_INITMSG");
    for (std::uint16_t type : {std::uint16_t{SCTP_ASSOC_CHANGE}, std::uint16_t{SCTP_ADAPTATION_INDICATION},
                               std::uint16_t{SCTP_SENDER_DRY_EVENT}}) {
      sctp_event e{};
      e.se_assoc_id = SCTP_FUTURE_ASSOC;
      e.se_type = type;
      e.se_on = 1;
      check(::setsockopt(fd, IPPROTO_SCTP, SCTP_EVENT, &e, sizeof e), "SCTP_EVENT");
    }
  }

  static void check(int rc, const char* option) {
    if (rc != 0) throw std::runtime_error(errno_text((std::string("setsockopt ") + option).c_str(), errno));
  }

  // ---- reading what the kernel delivered (I/O thread) ----

  void watch(AssociationId id, std::shared_ptr<Descriptor> sd) {
    sd->async_wait(Descriptor::wait_read, [this, id, sd](const boost::system::error_code& ec) {
      if (ec) return;
      if (drain_one(id)) watch(id, sd);
    });
  }

  void watch_listener() {
    main->async_wait(Descriptor::wait_read, [this](const boost::system::error_code& ec) {
      if (ec) return;
      accept_new();
      watch_listener();
    });
  }

  void accept_new() {
    for (;;) {
      const int fd = ::accept4(main->native_handle(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      std::shared_ptr<Descriptor> sd;
      AssociationId id = 0;
      {
        std::lock_guard lock(mu);
        if (!sctp_link_impl::room_for_another(*this)) {
          ::close(fd);  // a graceful SHUTDOWN of the association beyond the limit
          continue;
        }
        sd = std::make_shared<Descriptor>(io, fd);
        id = next_id++;
        assocs[id].sd = sd;
      }
      watch(id, sd);
    }
  }

  // Reads what is there; false once the association has ended (it is then
  // let go).
  bool drain_one(AssociationId id) {
    std::shared_ptr<Descriptor> sd;
    Assoc* a = nullptr;
    {
      std::lock_guard lock(mu);
      auto it = assocs.find(id);
      if (it == assocs.end() || it->second.gone) return false;
      a = &it->second;
      sd = a->sd;
    }
    std::string ended;
    for (;;) {
      iovec iov{rx.data(), rx.size()};
      alignas(cmsghdr) std::uint8_t control[CMSG_SPACE(sizeof(sctp_rcvinfo)) + CMSG_SPACE(sizeof(sctp_sndrcvinfo))];
      msghdr mh{};
      mh.msg_iov = &iov;
      mh.msg_iovlen = 1;
      mh.msg_control = control;
      mh.msg_controllen = sizeof control;
      const ssize_t n = ::recvmsg(sd->native_handle(), &mh, 0);
      if (n < 0) {
        if (errno != EWOULDBLOCK && errno != EAGAIN && errno != EINTR) ended = errno_text("SCTP receive failed", errno);
        if (errno == EINTR) continue;
        break;
      }
      if (n == 0) {
        ended = "the peer shut the SCTP association down";
        break;
      }
      const wire::Bytes got(rx.data(), static_cast<std::size_t>(n));
      if (mh.msg_flags & MSG_NOTIFICATION) {
        if (mh.msg_flags & MSG_EOR) notification(id, *a, got, ended);
        if (!ended.empty()) break;
        continue;
      }
      // A message may arrive in pieces; keep at most one octet more than
      // the largest message taken, the rest is never stored.
      const std::size_t room = rx.size() - std::min(rx.size(), a->message.size());
      a->message.insert(a->message.end(), got.begin(),
                        got.begin() + static_cast<std::ptrdiff_t>(std::min(room, got.size())));
      if (!(mh.msg_flags & MSG_EOR)) continue;
      report_up(id, *a);
      octets_received += a->message.size();
      const auto info = kernel_sctp::receive_info(wire::Bytes(control, mh.msg_controllen));
      if (info && events.message)
        events.message(id, SctpMessage{info->stream, info->ppid, info->unordered, std::move(a->message)});
      a->message.clear();
    }
    report_up(id, *a);
    if (ended.empty()) return true;
    {
      std::lock_guard lock(mu);
      a->gone = true;
    }
    if (events.gone) events.gone(id, ended);
    // Let go of the socket (not the active side's, which is the link's own
    // and closes with it).
    std::lock_guard lock(mu);
    if (sd != main) assocs.erase(id);
    return false;
  }

  // The kernel queues the peer's indication right behind COMM_UP: the
  // association is reported up once what came with it has been read (at
  // the end of a drain, or before the first message).
  void report_up(AssociationId id, Assoc& a) {
    if (!a.comm_up || a.reported_up) return;
    a.reported_up = true;
    if (events.up) events.up(id, a.up);
  }

  void notification(AssociationId id, Assoc& a, wire::Bytes octets, std::string& ended) {
    auto n = kernel_sctp::decode_notification(octets);
    if (!n) return;
    using Kind = kernel_sctp::Notification::Kind;
    switch (n->kind) {
      case Kind::kCommUp:
        a.comm_up = true;
        a.up.outbound_streams = n->outbound_streams;
        a.up.inbound_streams = n->inbound_streams;
        return;
      case Kind::kEnded:
        ended = "SCTP association ended (SCTP_ASSOC_CHANGE state " + std::to_string(n->state) + ")";
        return;
      case Kind::kAdaptation:
        a.up.peer_indication = n->indication;
        return;
      case Kind::kSenderDry:
        if (events.dry) events.dry(id);
        return;
      case Kind::kRestart:
      case Kind::kOther:
        return;
    }
  }

  SctpLinkConfig config;
  SctpEvents events;
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work;
  std::thread thread;

  // Guards assocs and the sockets' lifetime against send() and shutdown()
  // from other threads; never held while a callback runs.
  mutable std::mutex mu;
  std::shared_ptr<Descriptor> main;  // active: the association's; passive: the listener
  bool listening = false;
  std::map<AssociationId, Assoc> assocs;
  AssociationId next_id = 0;
  std::vector<std::uint8_t> rx;
  std::atomic<std::uint64_t> octets_sent{0};
  std::atomic<std::uint64_t> octets_received{0};
};

KernelSctpLink::KernelSctpLink(SctpLinkConfig config, SctpEvents events)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(events))) {}
KernelSctpLink::~KernelSctpLink() = default;

udp::endpoint KernelSctpLink::local_address() const { return impl_->config.local; }
std::uint16_t KernelSctpLink::local_sctp_port() const { return impl_->config.sctp_port; }

bool KernelSctpLink::connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error) {
  Impl* p = impl_.get();
  return sctp_link_impl::connect_active(
      *p, [p](Impl::Assoc& a) { a.sd = p->main; },
      [p, peer, peer_sctp_port]() -> std::string {
        const udp::endpoint them(peer.address(), peer_sctp_port);
        if (::connect(p->main->native_handle(), them.data(), static_cast<socklen_t>(them.size())) != 0 &&
            errno != EINPROGRESS)
          return errno_text("SCTP connect failed", errno);
        p->watch(0, p->main);
        return {};
      },
      error);
}

bool KernelSctpLink::listen(std::string& error) {
  Impl* p = impl_.get();
  return sctp_link_impl::listen_passive(
      *p,
      [p](int backlog) -> std::string {
        if (::listen(p->main->native_handle(), backlog) != 0) return errno_text("SCTP listen failed", errno);
        p->watch_listener();
        return {};
      },
      error);
}

bool KernelSctpLink::send(AssociationId id, const SctpMessage& m, std::string& error) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->assocs.find(id);
  if (it == impl_->assocs.end() || it->second.gone || !it->second.sd) return error = "the association is gone", false;
  // RFC 6458 §5.3.4: stream, U flag and PPID of this one message.
  alignas(cmsghdr) std::uint8_t control[CMSG_SPACE(sizeof(sctp_sndinfo))] = {};
  iovec iov{const_cast<std::uint8_t*>(m.octets.data()), m.octets.size()};
  msghdr mh{};
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = control;
  mh.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&mh);
  c->cmsg_level = IPPROTO_SCTP;
  c->cmsg_type = SCTP_SNDINFO;
  c->cmsg_len = CMSG_LEN(sizeof(sctp_sndinfo));
  sctp_sndinfo info{};
  info.snd_sid = m.stream;
  info.snd_flags = m.unordered ? SCTP_UNORDERED : 0;
  info.snd_ppid = htonl(m.ppid);
  std::memcpy(CMSG_DATA(c), &info, sizeof info);
  const int fd = it->second.sd->native_handle();
  // The socket does not block; a full send buffer is waited out a while
  // (the kernel empties it as the peer's SACKs come, without this thread).
  for (int tries = 0;; ++tries) {
    const ssize_t n = ::sendmsg(fd, &mh, MSG_NOSIGNAL);
    if (n >= 0) break;
    if ((errno != EAGAIN && errno != EWOULDBLOCK) || tries == 50)
      return error = errno_text("SCTP send failed", errno), false;
    pollfd pfd{fd, POLLOUT, 0};
    ::poll(&pfd, 1, 100);
  }
  impl_->octets_sent += m.octets.size();
  return true;
}

void KernelSctpLink::shutdown(AssociationId id) {
  std::lock_guard lock(impl_->mu);
  auto it = impl_->assocs.find(id);
  // RFC 6458 §4.1.7: SHUT_WR on a one-to-one socket starts SCTP's SHUTDOWN.
  if (it != impl_->assocs.end() && !it->second.gone && it->second.sd)
    ::shutdown(it->second.sd->native_handle(), SHUT_WR);
}

std::uint64_t KernelSctpLink::octets_sent() const { return impl_->octets_sent; }
std::uint64_t KernelSctpLink::octets_received() const { return impl_->octets_received; }

}  // namespace rdmaconf::endpoint
