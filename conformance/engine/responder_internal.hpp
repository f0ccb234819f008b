// Internal to the reference IUT (responder.cpp and the files it serves
// connections with): a connection's socket and the two services.
//
// responder.cpp listens, accepts and connects, one thread per connection;
// responder_mpa.cpp runs MPA startup (RFC 5044 §7.1, RFC 6581) as responder
// or initiator and hands the stream to responder_rdmap.cpp, which runs DDP
// and RDMAP in full operation (RFC 5041, RFC 5040, RFC 7306) as the test ULP;
// responder_clc.cpp runs the CLC handshake (RFC 7609 App. A, SMC v2). Each
// named fault acts where its rule is: at the seams between these machines.
#pragma once

#include <poll.h>
#include <sys/socket.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ddp/headers.hpp"
#include "engine/faults.hpp"
#include "mpa/negotiation.hpp"
#include "rdmap/stream.hpp"
#include "engine/responder.hpp"
#include "engine/test_ulp.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::conformance::iut {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

inline constexpr auto kConnectionLifetime = 20s;  // no connection of a case lives longer
inline constexpr auto kCloseGrace = 1s;
// RFC 5044 §7.1.2 and RFC 7609 App. C.5: the wait for the peer's next
// handshake frame (MPA Request or Reply, CLC message) is bounded. Linux siw
// waits 5 s for a Request and 10 s for a Reply, SMC 2 s per CLC message; the
// reference serves a tester, mostly on loopback, so it waits 2 s.
inline constexpr auto kHandshakeTimer = 2s;
// Keys a connection's registrations may take (register_all makes fewer):
// STag keys repeat only every 256 / 16 = 16 connections.
inline constexpr std::uint8_t kStagKeysPerConnection = 16;
// The work request of the initiator's RTR (RFC 6581 §9.2); the test ULP's
// own work uses small numbers.
inline constexpr rdmap::WorkRequestId kRtrWorkRequest = ~rdmap::WorkRequestId{0};

// A blocking socket with a stop flag: reads give up after 100 ms slices so
// that stop() is noticed.
struct Socket {
  int fd;
  const std::atomic<bool>& stopping;
  Clock::time_point born = Clock::now();
  bool eof = false;
  bool reset_by_peer = false;  // the read that saw the end met the peer's RST
  // A guard against leaked connections. It acts as a timer too, so the
  // faults that drop a handshake timer lift it: the IUT then waits until
  // stop().
  Clock::duration lifetime = kConnectionLifetime;
  // The observer (the agent's view) and this connection's MPA choices.
  const IutObserver* observer = nullptr;
  IutMpaConfig mpa{};
  std::string local{}, peer{};
  // The key of this connection's first STag: the IUT gives each connection
  // its own (kStagKeysPerConnection apart), so that, as on an RNIC, no STag
  // of one stream is an STag of another (RFC 5042 §6.1.1).
  std::uint8_t stag_key = 0;

  void emit(IutEvent::Kind kind, std::string name, std::string status = {}, std::string detail = {},
            std::uint32_t byte_len = 0, std::uint64_t wr_id = 0) const {
    if (!observer || !*observer) return;
    (*observer)(IutEvent{kind, local, peer, std::move(name), std::move(status), byte_len, wr_id, std::move(detail)});
  }

  bool alive() const { return !stopping && Clock::now() - born < lifetime; }

  // Appends what arrives to `rx`; false on EOF/error/stop or after `wait`.
  bool read(std::vector<std::uint8_t>& rx, std::chrono::milliseconds wait = 100ms) {
    const auto deadline = Clock::now() + wait;
    while (alive()) {
      pollfd p{fd, POLLIN, 0};
      const int r = ::poll(&p, 1, 100);
      if (r < 0 && errno != EINTR) return false;
      if (r > 0) {
        std::array<std::uint8_t, 65536> buf;
        const ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) {
          eof = true;
          reset_by_peer = n < 0 && errno == ECONNRESET;
          return false;
        }
        rx.insert(rx.end(), buf.begin(), buf.begin() + n);
        return true;
      }
      if (Clock::now() >= deadline) return true;  // nothing yet, still open
    }
    return false;
  }
  void send(wire::Bytes b) {
    std::size_t at = 0;
    while (at < b.size()) {
      const ssize_t n = ::send(fd, b.data() + at, b.size() - at, MSG_NOSIGNAL);
      if (n <= 0) {
        if (n < 0 && errno == EINTR) continue;
        return;
      }
      at += static_cast<std::size_t>(n);
    }
  }
  // FIN, then wait for the peer's close for a grace period.
  void close_gracefully() {
    ::shutdown(fd, SHUT_WR);
    const auto until = Clock::now() + kCloseGrace;
    std::vector<std::uint8_t> sink;
    while (Clock::now() < until && read(sink, 100ms)) sink.clear();
  }
  void reset() {
    linger l{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  }
};

// ---- MPA startup (responder_mpa.cpp)

// Runs MPA startup on `sock`, then full operation: the iWARP IUT.
void serve_iwarp(Socket& sock, const FaultSet& f, bool initiator, const InitiatorProfile& profile);

// ---- full operation (responder_rdmap.cpp)

// The test ULP's registered memory (test_ulp.hpp: advertised in the MPA
// Reply or the initiator's first Send).
struct Memory {
  static constexpr std::uint64_t kRwBaseTo = 0x10000;
  std::array<std::uint8_t, 4096> rw{};
  ddp::Stag rw_stag{};  // also the Data Sink of the test ULP's own RDMA Reads
  std::array<std::uint8_t, 1024> ro{}, wo{}, local{};
  std::array<std::uint8_t, 512> inv{}, noinv{}, otherpd{}, stale{};
  std::array<std::array<std::uint8_t, 256>, 8> recv{};
};

// Registers every buffer of `m` with `st`; what the advertisement names.
std::vector<AdvertisedBuffer> register_all(rdmap::Stream& st, Memory& m);
// Outgoing seams: a segment about to be framed, rewritten as the faults
// ask; false when it must not be sent at all.
bool rewrite_outgoing(const FaultSet& f, ddp::Segment& seg);
class Requester;  // the test ULP as requester (responder_rdmap.cpp)

// The test ULP above one rdmap::Stream, whatever lower layer carries its
// segments (MPA over TCP in run_full_operation, RFC 5043's adaptation layer
// in sctp_memory.cpp): after the stream took segments it reports the
// completions, obeys commands and echoes Sends and Immediate Data; what it
// posts goes out through take_segments(), the outgoing faults applied.
class TestUlp {
 public:
  // `flush` sends what take_segments() gives (called whenever the test ULP
  // posted work); `report` sees every completion, and may be empty.
  TestUlp(const FaultSet& f, rdmap::Stream& st, Memory& mem, std::function<void()> flush,
          std::function<void(const rdmap::Completion&)> report);
  ~TestUlp();
  TestUlp(const TestUlp&) = delete;
  TestUlp& operator=(const TestUlp&) = delete;
  // Takes every completion the stream has and acts on it.
  void on_completions();
  // The stream's outgoing segments in the order they go out, each through
  // rewrite_outgoing (dropped when that says so).
  std::vector<ddp::Segment> take_segments();

 private:
  const FaultSet& f_;
  rdmap::Stream& st_;
  Memory& mem_;
  std::function<void()> flush_;
  std::function<void(const rdmap::Completion&)> report_;
  std::unique_ptr<Requester> requester_;
};

// Full operation after a negotiation that ended in `o`: deframes what the
// peer sends into `st`, obeys and echoes as the test ULP, frames the output.
void run_full_operation(Socket& sock, const FaultSet& f, const mpa::NegotiationOutcome& o, rdmap::Stream& st,
                        Memory& mem, std::vector<std::uint8_t> rx);

// ---- CLC (responder_clc.cpp)

// Runs the CLC handshake as server, or as client when `client`.
void serve_clc(Socket& sock, const FaultSet& f, bool client);

}  // namespace rdmaconf::conformance::iut
