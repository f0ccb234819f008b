// The probe before a run (probe.hpp).
#include "engine/probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <vector>

#include "clc/decline_codes.hpp"
#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "engine/clc_identity.hpp"
#include "mpa/req_rep.hpp"
#include "wire/show.hpp"

namespace rdmaconf::conformance {
namespace {

using Clock = std::chrono::steady_clock;
using Outcome = ProbeResult::Outcome;

// "127.0.0.1:5000" as the runner names a case's endpoints (the agent view
// ties events by these), "[::1]:5000" for IPv6.
std::string address_of(int fd, bool peer) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  const int rc = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
                      : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  if (rc != 0) return "?";
  char host[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
  }
  if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  return "?";
}

bool send_all(int fd, const std::vector<std::uint8_t>& octets) {
  std::size_t at = 0;
  while (at < octets.size()) {
    const ssize_t n = ::send(fd, octets.data() + at, octets.size() - at, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

enum class ReadEnd : std::uint8_t { kEnough, kClosed, kReset, kTimeout };

// Appends what arrives to `got` (at most `limit` octets in all) until
// `enough()` says so, the peer closes, or the deadline passes.
ReadEnd read_until(int fd, std::vector<std::uint8_t>& got, std::size_t limit, Clock::time_point deadline,
                   const std::function<bool()>& enough) {
  while (!enough()) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || got.size() >= limit) return ReadEnd::kTimeout;
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(left));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return ReadEnd::kTimeout;
    std::uint8_t buf[1024];
    const ssize_t n = ::recv(fd, buf, std::min(sizeof buf, limit - got.size()), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno == ECONNRESET ? ReadEnd::kReset : ReadEnd::kClosed;
    if (n == 0) return ReadEnd::kClosed;
    got.insert(got.end(), buf, buf + n);
  }
  return ReadEnd::kEnough;
}

// The tester's end of the probe: half-close, read what the IUT still sends
// (unread octets would turn the close into an RST), then close.
void close_cleanly(int fd, std::chrono::milliseconds bound) {
  ::shutdown(fd, SHUT_WR);
  std::vector<std::uint8_t> rest;
  (void)read_until(fd, rest, 1 << 20, Clock::now() + bound, [] { return false; });
  ::close(fd);
}

struct Protocol {
  const char* request;  // "an MPA Request"
  const char* name;     // "MPA"
  const char* section;  // where the answer is required
};
constexpr Protocol kMpa{"an MPA Request", "MPA", "RFC 5044 §7.1.2"};
constexpr Protocol kClc{"a CLC Proposal", "SMC-R CLC", "RFC 7609 §3.5.1"};

std::string does_not_speak(const ProbeResult& r, const Protocol& p, const std::string& what) {
  return "the target at " + r.target + " " + what + "; it does not speak " + p.name + " (" + p.section + ")";
}

// What ended the wait without an answer, in words.
std::string no_answer(ReadEnd end, const std::vector<std::uint8_t>& got, const Protocol& p,
                      std::chrono::milliseconds waited) {
  const std::string sent = got.empty() ? std::string() : "answered `" + wire::show_octets(got) + "` and then ";
  switch (end) {
    case ReadEnd::kClosed: return sent + "closed the connection without answering " + p.request;
    case ReadEnd::kReset: return sent + "reset the connection without answering " + p.request;
    default: break;
  }
  return (got.empty() ? std::string("sent nothing") : "sent only `" + wire::show_octets(got) + "`") + " within " +
         std::to_string(waited.count()) + " ms of " + p.request;
}

// MPA: the Request, then any Reply (key, header and private data).
ProbeResult probe_mpa(int fd, ProbeResult r, std::chrono::milliseconds wait, std::chrono::milliseconds settle) {
  mpa::ReqRepFields request;
  request.kind = mpa::FrameKind::kRequest;
  request.crc = true;
  if (!send_all(fd, mpa::encode_req_rep(request))) {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kMpa, "closed the connection before it took " + std::string(kMpa.request));
    close_cleanly(fd, settle);
    return r;
  }
  std::vector<std::uint8_t> got;
  std::optional<wire::DecodeError> wrong;
  std::size_t need = 0;
  const ReadEnd end = read_until(fd, got, mpa::kReqRepHeaderSize + mpa::kMaxPrivateDataLength, Clock::now() + wait, [&] {
    if (got.empty()) return false;
    auto size = mpa::required_frame_size(wire::Bytes(got), mpa::FrameKind::kReply);
    if (!size) {
      wrong = size.error();
      return true;
    }
    need = *size;
    return got.size() >= mpa::kReqRepHeaderSize && got.size() >= need;
  });
  if (end == ReadEnd::kEnough && !wrong) {
    const auto frame = mpa::decode_req_rep(wire::Bytes(got).first(need), {mpa::FrameKind::kReply});
    if (frame)
      r.text = std::string(frame->reject ? "a rejecting" : "an accepting") + " MPA Reply, Rev " +
               std::to_string(frame->revision);
    else
      r.text = "an MPA Reply that does not decode (" + frame.error().to_string() + "; the cases judge it)";
  } else if (wrong) {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kMpa, "answered `" + wire::show_octets(got) + "` to " + kMpa.request);
  } else {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kMpa, no_answer(end, got, kMpa, wait));
  }
  close_cleanly(fd, settle);
  return r;
}

// CLC: the Proposal, then any CLC message; an Accept is declined so that the
// server falls back to TCP instead of waiting for a Confirm.
ProbeResult probe_clc(int fd, ProbeResult r, const RunOptions& o, std::chrono::milliseconds wait,
                      std::chrono::milliseconds settle) {
  const ClcResolved identity = resolve_identity(o.clc_identity, fd);
  const clc::ClientConfig config = tester_client(identity);
  clc::ClientHandshake client(config);
  if (!send_all(fd, client.start(true).send)) {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kClc, "closed the connection before it took " + std::string(kClc.request));
    close_cleanly(fd, settle);
    return r;
  }
  std::vector<std::uint8_t> got;
  clc::MessageReader reader;
  std::size_t fed = 0;
  const ReadEnd end = read_until(fd, got, clc::kMaxMessageLength, Clock::now() + wait, [&] {
    fed += reader.put(wire::Bytes(got).subspan(fed));
    return reader.has_message() || reader.error().has_value();
  });
  if (end == ReadEnd::kEnough && reader.has_message()) {
    const auto message = clc::decode(reader.message(), clc::DecodeRules::kReceiver);
    if (!message) {
      r.text = "a CLC message that does not decode (" + message.error().to_string() + "; the cases judge it)";
    } else {
      static constexpr const char* kNames[] = {"?", "Proposal", "Accept", "Confirm", "Decline"};
      const auto type = static_cast<unsigned>(clc::message_type(*message));
      r.text = std::string("a CLC ") + kNames[type < 5 ? type : 0];
      if (const auto* d = std::get_if<clc::Decline>(&*message)) {
        char code[16];
        std::snprintf(code, sizeof code, "0x%08x", d->diagnosis());
        r.text += std::string(" (peer diagnosis ") + code + ")";
      }
      if (clc::message_type(*message) == clc::MessageType::kAccept) {
        const auto* accept = std::get_if<clc::AcceptConfirm>(&*message);
        // In lieu of the Confirm (RFC 7609 App. C.1): the tester has no link
        // to offer for this connection. INTERR, as any code on the wire
        // makes the server fall back; no local-only code may be sent.
        const clc::Decline decline = clc::build_decline(accept ? accept->version() : clc::kVersion1,
                                                        config.link.peer_id, clc::kDeclInterr, config.v2.os_type);
        (void)send_all(fd, clc::encode(clc::Message{decline}));
      }
    }
  } else if (reader.error()) {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kClc, "answered `" + wire::show_octets(got) + "` to " + kClc.request);
  } else {
    r.outcome = Outcome::kDoesNotSpeak;
    r.text = does_not_speak(r, kClc, no_answer(end, got, kClc, wait));
  }
  close_cleanly(fd, settle);
  return r;
}

}  // namespace

std::chrono::milliseconds probe_wait(double time_scale) {
  const auto scaled = std::chrono::milliseconds(static_cast<std::int64_t>(3000 * time_scale));
  return std::max(scaled, std::chrono::milliseconds(500));
}

ProbeResult probe_target(ProbeProtocol protocol, const Connector& connect, const RunOptions& o) {
  ProbeResult r;
  // The connector serves cases; a case of the suite, by name only.
  Case probe;
  probe.id = "probe";
  probe.protocol = protocol == ProbeProtocol::kClc ? "clc" : "mpa";
  probe.role = Role::kResponder;
  std::string error;
  const int fd = connect ? connect(probe, error) : -1;
  if (fd < 0) {
    r.outcome = Outcome::kUnreachable;
    r.text = error.empty() ? "no connection to the target" : error;
    return r;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  r.target = address_of(fd, true);
  const std::string tester = address_of(fd, false);
  // The IUT's events about this connection are the probe's (agent_view.hpp).
  if (o.agent) o.agent->begin_case(tester, r.target);
  const auto wait = probe_wait(o.time_scale);
  const auto settle = std::chrono::milliseconds(static_cast<std::int64_t>(500 * o.time_scale));
  r = protocol == ProbeProtocol::kClc ? probe_clc(fd, std::move(r), o, wait, settle)
                                      : probe_mpa(fd, std::move(r), wait, settle);
  if (o.agent) {
    CaseResult bracket;
    bracket.exchange.tester_address = tester;
    bracket.exchange.iut_address = r.target;
    collect_agent_view(*o.agent, bracket, 0,
                       std::chrono::milliseconds(static_cast<std::int64_t>(o.agent_settle.count() * o.time_scale)));
  }
  return r;
}

}  // namespace rdmaconf::conformance
