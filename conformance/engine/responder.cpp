#include "responder.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <utility>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/mulpdu.hpp"
#include "mpa/negotiation.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/rtr.hpp"
#include "rdmap/stream.hpp"
#include "test_ulp.hpp"

namespace rdmaconf::conformance {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kConnectionLifetime = 20s;  // no connection of a case lives longer
constexpr auto kCloseGrace = 1s;
// RFC 5044 §7.1.2 and RFC 7609 App. C.5: the wait for the peer's next
// handshake frame (MPA Request or Reply, CLC message) is bounded. Linux siw
// waits 5 s for a Request and 10 s for a Reply, SMC 2 s per CLC message; the
// reference serves a tester, mostly on loopback, so it waits 2 s.
constexpr auto kHandshakeTimer = 2s;
// The work request of the initiator's RTR (RFC 6581 §9.2); the test ULP's
// own work uses small numbers.
constexpr rdmap::WorkRequestId kRtrWorkRequest = ~rdmap::WorkRequestId{0};

// A blocking socket with a stop flag: reads give up after 100 ms slices so
// that stop() is noticed.
struct Socket {
  int fd;
  const std::atomic<bool>& stopping;
  Clock::time_point born = Clock::now();
  bool eof = false;
  // A guard against leaked connections. It acts as a timer too, so the
  // faults that drop a handshake timer lift it: the IUT then waits until
  // stop().
  Clock::duration lifetime = kConnectionLifetime;
  // The observer (the agent's view) and this connection's MPA choices.
  const IutObserver* observer = nullptr;
  IutMpaConfig mpa{};
  std::string local{}, peer{};

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

// ------------------------------------------------------------- iWARP side

struct Memory {
  static constexpr std::uint64_t kRwBaseTo = 0x10000;
  std::array<std::uint8_t, 4096> rw{};
  ddp::Stag rw_stag{};  // also the Data Sink of the test ULP's own RDMA Reads
  std::array<std::uint8_t, 1024> ro{}, wo{}, local{};
  std::array<std::uint8_t, 512> inv{}, noinv{}, otherpd{}, stale{};
  std::array<std::array<std::uint8_t, 256>, 8> recv{};
};

std::vector<AdvertisedBuffer> register_all(rdmap::Stream& st, Memory& m) {
  using A = ddp::Access;
  const A remote_all = A::kLocalRead | A::kLocalWrite | A::kRemoteRead | A::kRemoteWrite | A::kRemoteAtomic;
  const A local = A::kLocalRead | A::kLocalWrite;
  for (std::size_t i = 0; i < m.ro.size(); ++i) m.ro[i] = static_cast<std::uint8_t>(i * 3 + 5);
  std::vector<AdvertisedBuffer> ads;
  auto add = [&](std::string name, ddp::Stag s, std::uint64_t to, std::size_t len) {
    ads.push_back({std::move(name), ddp::value(s), to, static_cast<std::uint32_t>(len)});
  };
  m.rw_stag = st.register_memory(m.rw, Memory::kRwBaseTo, remote_all);
  add("rw", m.rw_stag, Memory::kRwBaseTo, m.rw.size());
  add("ro", st.register_memory(m.ro, 0x20000, local | A::kRemoteRead), 0x20000, m.ro.size());
  add("wo", st.register_memory(m.wo, 0x30000, local | A::kRemoteWrite), 0x30000, m.wo.size());
  add("local", st.register_memory(m.local, 0x40000, local), 0x40000, m.local.size());
  add("inv", st.register_memory(m.inv, 0x50000, remote_all, true), 0x50000, m.inv.size());
  add("noinv", st.register_memory(m.noinv, 0x60000, remote_all, false), 0x60000, m.noinv.size());
  // RFC 5042 §5.1: a region of another protection domain, not associated
  // with this stream.
  add("otherpd", st.memory().register_region(m.otherpd, 0x70000, remote_all, ddp::ProtectionDomain{2}), 0x70000,
      m.otherpd.size());
  // A region registered and deregistered again: its STag is invalid.
  const ddp::Stag stale = st.register_memory(m.stale, 0x80000, remote_all);
  st.deregister_memory(stale);
  add("stale", stale, 0x80000, m.stale.size());
  for (std::size_t i = 0; i < m.recv.size(); ++i) st.post_receive(i, m.recv[i]);
  ads.push_back({"recv", static_cast<std::uint32_t>(m.recv.size()), 0, static_cast<std::uint32_t>(m.recv[0].size())});
  return ads;
}

// Fault (RFC 5041 §5.2): the segments of the untagged messages in `segs` go
// out in turns, one segment of each message at a time, instead of message
// after message.
std::vector<ddp::Segment> interleave_messages(std::vector<ddp::Segment> segs) {
  std::vector<std::vector<ddp::Segment>> messages;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keys;  // QN, MSN
  for (ddp::Segment& seg : segs) {
    std::pair<std::uint64_t, std::uint64_t> key{~std::uint64_t{0}, messages.size()};  // tagged: alone
    if (seg.header_size >= ddp::kUntaggedHeaderSize && (seg.header_octets[0] & 0x80) == 0) {
      const ddp::UntaggedHeader u(wire::Bytes(seg.header_octets).first<ddp::kUntaggedHeaderSize>());
      key = {u.get(ddp::UntaggedSpec::Field::QN), u.get(ddp::UntaggedSpec::Field::MSN)};
    }
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      messages.emplace_back();
      messages.back().push_back(std::move(seg));
    } else {
      messages[static_cast<std::size_t>(at - keys.begin())].push_back(std::move(seg));
    }
  }
  std::vector<ddp::Segment> out;
  for (std::size_t i = 0; out.size() < segs.size(); ++i)
    for (auto& m : messages)
      if (i < m.size()) out.push_back(std::move(m[i]));
  return out;
}

// Outgoing seams: a segment about to be framed.
bool rewrite_outgoing(const FaultSet& f, ddp::Segment& seg) {
  if (seg.header_size < 2) return true;
  const std::uint8_t opcode = seg.header_octets[1] & 0x0f;
  auto& h = seg.header_octets;
  const bool tagged = (h[0] & 0x80) != 0;
  if (!tagged && seg.header_size >= ddp::kUntaggedHeaderSize) {
    // RFC 5040 §4.1 / RFC 7306 §4: RDMAP Rsvd and the 32-bit RsvdULP go out as zero.
    const bool carries_no_stag = opcode == 0x3 || opcode == 0x5 || opcode == 0x8 || opcode == 0x9 || opcode == 0xb;
    if (f.has(FaultId::kSendReservedSet) && carries_no_stag) {
      h[1] |= 0x30;
      wire::store_be(wire::MutableBytes(h).subspan(2, 4), std::uint32_t{0x5a5a5a5a});
    }
    // Untagged header fields through their declaration (RFC 5041 §4.3).
    using UF = ddp::UntaggedSpec::Field;
    using rdmap::Opcode;
    ddp::UntaggedHeader u(wire::Bytes(h).first<ddp::kUntaggedHeaderSize>());
    const auto op = static_cast<Opcode>(opcode);
    // RFC 5041 §5.2: each queue's first MSN is 1.
    if (f.has(FaultId::kUntaggedMsnFromZero)) u.set(UF::MSN, u.get(UF::MSN) - 1);
    // RFC 7306 §5: Atomic Responses have their own queue.
    if (op == Opcode::kAtomicResponse && f.has(FaultId::kAtomicResponseWrongQueue)) u.set(UF::QN, 0);
    // RFC 5040 §4.2: RDMA Read Requests go on queue 1.
    if (op == Opcode::kRdmaReadRequest && f.has(FaultId::kReadRequestWrongQueue)) u.set(UF::QN, 0);
    // RFC 5041 §5.2: MO counts the message octets before the segment.
    if ((op == Opcode::kSend || op == Opcode::kSendWithSe) && f.has(FaultId::kUntaggedMoOffByOne))
      u.set(UF::MO, u.get(UF::MO) + 1);
    std::copy(u.bytes().begin(), u.bytes().end(), h.begin());
    // RFC 7306 §5: the reserved bits before the atomic opcode go out as zero.
    if (op == Opcode::kAtomicRequest && f.has(FaultId::kAtomicRequestReservedSet) &&
        seg.header_size >= ddp::kUntaggedHeaderSize + rdmap::kAtomicRequestHeaderSize) {
      const auto at = wire::MutableBytes(h).subspan(ddp::kUntaggedHeaderSize, rdmap::kAtomicRequestHeaderSize);
      rdmap::AtomicRequestHeader a(wire::Bytes(at).first<rdmap::kAtomicRequestHeaderSize>());
      a.set(rdmap::AtomicRequestSpec::Field::Reserved, 1);
      std::copy(a.bytes().begin(), a.bytes().end(), at.begin());
    }
  }
  if (opcode == 0x7) {
    if (f.has(FaultId::kTerminateOmitted)) return false;
    if (seg.header_size >= ddp::kUntaggedHeaderSize + 4) {
      if (f.has(FaultId::kTerminateWrongCode)) h[ddp::kUntaggedHeaderSize + 1] ^= 0x01;
      if (f.has(FaultId::kTerminateLeBitfield)) {
        const auto at = wire::MutableBytes(h).subspan(ddp::kUntaggedHeaderSize, rdmap::kTerminateControlSize);
        const auto le = rdmap::encode_control_as_le_bitfield(wire::Bytes(at));
        std::copy(le.begin(), le.end(), at.begin());
      }
      if (f.has(FaultId::kTerminateNoCopies)) {
        h[ddp::kUntaggedHeaderSize + 2] &= 0x1f;
        seg.header_size = ddp::kUntaggedHeaderSize + 4;
      }
    }
  } else if (opcode == 0x2 && f.has(FaultId::kReadResponseWrongStag)) {
    h[5] ^= 0x01;  // STag's low octet (RFC 5041 §4.2: octets 2-5)
  } else if (opcode == 0xb && f.has(FaultId::kAtomicResponseWrongId) && seg.header_size >= ddp::kUntaggedHeaderSize + 4) {
    h[ddp::kUntaggedHeaderSize + 3] ^= 0x01;
  }
  return true;
}

// The test ULP as requester (test_ulp.hpp, UlpCommandSpec): the operations a
// command asks for, posted in order. A post the ORD refuses (RFC 5040
// §5.2.1: no more outstanding Read and Atomic Requests than ORD) waits until
// a Response completes one. Every payload is a view of one shared counting
// pattern, so a command's length and count never drive allocation.
class Requester {
 public:
  Requester(rdmap::Stream& st, Memory& mem) : st_(st), mem_(mem) {}

  void obey(const UlpCommand& c) {
    using F = UlpCommandSpec::Field;
    // Work the ORD holds back waits here; a peer that keeps asking without
    // answering is not followed past a bound.
    if (queue_.size() > kMaxWaiting) return;
    const auto count = std::max<std::uint64_t>(1, c.get(F::Count));
    const auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(c.get(F::Length), kMaxLength));
    const ddp::Stag stag{static_cast<std::uint32_t>(c.get(F::Stag))};
    const std::uint64_t to = c.get(F::TaggedOffset);
    for (std::uint64_t i = 0; i < count; ++i) {
      switch (static_cast<UlpOperation>(c.get(F::Operation))) {
        case UlpOperation::kRead:  // into our rw buffer
          queue_.push_back([this, stag, to, length] {
            return st_.post_read(next_id_++, {mem_.rw_stag, Memory::kRwBaseTo,
                                              std::min<std::uint32_t>(length, mem_.rw.size()), stag, to});
          });
          break;
        case UlpOperation::kSend:  // `length` octets of a counting pattern
          queue_.push_back([this, p = payload(length)] { return st_.post_send(next_id_++, wire::Chunks(p)); });
          break;
        case UlpOperation::kWrite:  // `length` octets into the tester's buffer
          queue_.push_back([this, p = payload(length), stag, to] { return st_.post_write(next_id_++, wire::Chunks(p), stag, to); });
          break;
        case UlpOperation::kAtomic: {  // RFC 7306 §5
          rdmap::AtomicRequest a;
          a.op = static_cast<rdmap::AtomicOpcode>(c.get(F::AtomicOpcode) & 0x0f);
          a.remote_stag = stag;
          a.remote_to = to;
          a.add_or_swap_data = c.get(F::Data);
          a.compare_data = c.get(F::Compare);
          queue_.push_back([this, a] { return st_.post_atomic(next_id_++, a); });
          break;
        }
        default:
          return;  // not an operation of the profile: nothing is done
      }
    }
    if (c.get(F::Fence)) {
      queue_.push_back([this, p = payload(4)] {
        return st_.post_send(next_id_++, wire::Chunks(p), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true});
      });
    }
    run();
  }

  // Posts what waits, in order, until the ORD refuses one.
  void run() {
    while (!queue_.empty()) {
      const wire::Status s = queue_.front()();
      if (!s.ok() && s.error().field == "ORD") return;
      queue_.pop_front();
    }
  }

 private:
  static constexpr std::uint64_t kMaxLength = 1u << 20;
  static constexpr std::size_t kMaxWaiting = 1024;
  static wire::Bytes payload(std::uint32_t n) {
    static const std::vector<std::uint8_t> pattern = [] {
      std::vector<std::uint8_t> p(kMaxLength);
      for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i);
      return p;
    }();
    return wire::Bytes(pattern).first(std::min<std::size_t>(n, pattern.size()));
  }
  rdmap::Stream& st_;
  Memory& mem_;
  std::deque<std::function<wire::Status()>> queue_;
  rdmap::WorkRequestId next_id_ = 5000;
};

std::string describe(const ddp::TerminateCode& code) {
  std::string out = "layer=" + std::string(rdmap::layer_name(code.layer)) + " etype=" + std::to_string(code.etype) +
                    " code=" + std::to_string(code.code);
  if (const auto* row = rdmap::find_error(code)) out += " (" + std::string(row->name) + ")";
  return out;
}

// The completion as a device's host would report it (verbs opcode names).
void report_completion(const Socket& sock, const rdmap::Completion& c) {
  using T = rdmap::CompletionType;
  const std::string status = c.status == rdmap::CompletionStatus::kSuccess ? "success" : "flushed";
  switch (c.type) {
    case T::kTerminateReceived:
      sock.emit(IutEvent::Kind::kAsync, "terminate_received", {},
                c.terminate ? describe(c.terminate->code) : "undecodable Terminate");
      return;
    case T::kSend: sock.emit(IutEvent::Kind::kCompletion, "send", status, {}, c.byte_len, c.wr_id); return;
    case T::kRdmaWrite: sock.emit(IutEvent::Kind::kCompletion, "rdma_write", status, {}, c.byte_len, c.wr_id); return;
    case T::kRdmaRead: sock.emit(IutEvent::Kind::kCompletion, "rdma_read", status, {}, c.byte_len, c.wr_id); return;
    case T::kAtomic: sock.emit(IutEvent::Kind::kCompletion, "atomic", status, {}, c.byte_len, c.wr_id); return;
    case T::kImmediateData: sock.emit(IutEvent::Kind::kCompletion, "immediate", status, {}, c.byte_len, c.wr_id); return;
    case T::kReceive: sock.emit(IutEvent::Kind::kCompletion, "recv", status, {}, c.byte_len, c.wr_id); return;
    case T::kReceiveImmediate: sock.emit(IutEvent::Kind::kCompletion, "recv_imm", status, {}, c.byte_len, c.wr_id); return;
  }
}

void run_full_operation(Socket& sock, const FaultSet& f, const mpa::NegotiationOutcome& o, rdmap::Stream& st,
                        Memory& mem, std::vector<std::uint8_t> rx) {
  mpa::FramerConfig fc;
  fc.markers = (o.markers_send && !f.has(FaultId::kMpaIgnoreMarkerRequest)) || f.has(FaultId::kMpaMarkersUnasked);
  fc.crc = (o.crc && !f.has(FaultId::kMpaIgnoreCrcRequest)) || f.has(FaultId::kMpaCrcWhenOff);
  mpa::Framer framer(fc);
  mpa::DeframerConfig dc;
  dc.markers = o.markers_receive;
  dc.crc = (o.crc && !f.has(FaultId::kMpaIgnoreCrcRequest) && !f.has(FaultId::kMpaSkipCrcCheck)) ||
           f.has(FaultId::kMpaCheckCrcWhenOff);
  dc.fail_on_error = !f.has(FaultId::kMpaSkipMarkerCheck);
  // RFC 5044 §6: a ULPDU_Length no TCP segment could carry is a framing error.
  if (!f.has(FaultId::kMpaSkipLengthCheck)) dc.max_ulpdu_length = static_cast<std::uint16_t>(mpa::kLargestMulpdu);
  mpa::Deframer deframer(dc);
  // Sender-side MPA faults (RFC 5044 §4.1, §4.2).
  mpa::FramerOverrides fo;
  if (f.has(FaultId::kMpaPadNonzero)) fo.pad_octet = 0xa5;
  if (f.has(FaultId::kMpaNoPad)) fo.pad_length = 0;
  if (f.has(FaultId::kMpaMarkerReservedSet)) fo.marker_reserved = 0x0001;

  auto flush = [&] {
    std::vector<ddp::Segment> segs;
    while (auto seg = st.take_outgoing()) segs.push_back(std::move(*seg));
    if (f.has(FaultId::kDdpInterleaveMessages)) segs = interleave_messages(std::move(segs));
    std::vector<std::uint8_t> out;
    for (ddp::Segment& seg : segs) {
      if (!rewrite_outgoing(f, seg)) continue;
      wire::Chunks ulpdu;
      ulpdu.append(seg.header());
      seg.payload.for_each([&](wire::Bytes b) { ulpdu.append(b); });
      mpa::FramerOverrides this_fo = fo;
      // Fault (RFC 5044 §4.3): a Marker in front of an FPDU that is its only
      // Marker points 512 octets back, into the previous FPDU, not 0.
      if (f.has(FaultId::kMpaStartMarkerPointsBack) && fc.markers &&
          framer.stream_position() % mpa::kMarkerInterval == 0 &&
          framer.fpdu_size(ulpdu.size()) <= mpa::kMarkerInterval)
        this_fo.fpdu_ptr = mpa::kMarkerInterval;
      framer.frame(ulpdu, out, this_fo);
    }
    if (!out.empty()) sock.send(out);
  };
  Requester requester(st, mem);
  auto completions = [&] {
    while (auto c = st.poll_completion()) {
      report_completion(sock, *c);
      if (c->status != rdmap::CompletionStatus::kSuccess || f.has(FaultId::kEchoDropped)) continue;
      if (c->type == rdmap::CompletionType::kRdmaRead || c->type == rdmap::CompletionType::kAtomic) {
        requester.run();  // the ORD has room again
        flush();
        continue;
      }
      if (c->type == rdmap::CompletionType::kReceive && c->wr_id < mem.recv.size()) {
        const wire::Bytes got = wire::Bytes(mem.recv[c->wr_id]).first(std::min<std::size_t>(c->byte_len, mem.recv[c->wr_id].size()));
        if (auto command = parse_command(got)) {
          // A test ULP command is obeyed, not echoed.
          requester.obey(*command);
          flush();
          st.post_receive(c->wr_id, mem.recv[c->wr_id]);
          continue;
        }
        // The test ULP echoes every Send, then gives the buffer back.
        std::vector<std::uint8_t> copy(mem.recv[c->wr_id].begin(), mem.recv[c->wr_id].begin() + std::min<std::size_t>(c->byte_len, 256));
        (void)st.post_send(1000 + c->wr_id, wire::Chunks(wire::Bytes(copy)));
        flush();
        st.post_receive(c->wr_id, mem.recv[c->wr_id]);
      } else if (c->type == rdmap::CompletionType::kReceiveImmediate && c->immediate_data) {
        (void)st.post_immediate(2000 + c->wr_id, *c->immediate_data);
        flush();
        if (c->wr_id < mem.recv.size()) st.post_receive(c->wr_id, mem.recv[c->wr_id]);
      }
    }
  };

  std::optional<mpa::RtrKinds> awaiting_rtr;
  if (!o.rtr_to_expect.empty()) awaiting_rtr = o.rtr_to_expect;
  std::size_t pos = 0;
  for (;;) {
    while (pos < rx.size() && st.state() == rdmap::StreamState::kOperational) {
      mpa::DeframeResult r = deframer.next(wire::Bytes(rx).subspan(pos));
      if (std::holds_alternative<mpa::NeedMore>(r)) break;
      if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
        st.report_llp_error(e->terminate_code);
        pos = rx.size();
        break;
      }
      const auto& fp = std::get<mpa::Fpdu>(r);
      if (fp.crc_status == mpa::CrcStatus::kMismatch && !f.has(FaultId::kMpaSkipCrcCheck)) {
        // Markers unchecked (fault), but the CRC still is.
        st.report_llp_error(mpa::LlpErrorCode::kCrcError);
        pos = rx.size();
        break;
      }
      // RFC 6581 §9.2: in the peer-to-peer model the first FPDU is an RTR
      // of a kind the Reply set; anything else is "no matching RTR" (code
      // 0x07, rdmap/rtr.hpp).
      if (awaiting_rtr) {
        const mpa::RtrKinds expected = *std::exchange(awaiting_rtr, std::nullopt);
        if (!rdmap::is_rtr(expected, fp.ulpdu()) && !f.has(FaultId::kMpaAnyFirstFpdu)) {
          st.report_llp_error(mpa::LlpErrorCode::kNoMatchingRtr);
          pos = rx.size();
          break;
        }
      }
      st.on_segment(fp.ulpdu());
      pos += fp.consumed;
      completions();
      flush();
    }
    flush();
    if (st.state() != rdmap::StreamState::kOperational) {
      if (const auto& t = st.terminate_sent()) sock.emit(IutEvent::Kind::kAsync, "terminate_sent", {}, describe(t->code));
      // RFC 5040 §6.2: the stream is over once a Terminate went either way.
      if (f.has(FaultId::kNoCloseAfterTerminate)) {
        std::vector<std::uint8_t> sink;
        while (sock.read(sink, 200ms)) sink.clear();
        return;
      }
      sock.close_gracefully();
      return;
    }
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(pos));
    pos = 0;
    if (rx.size() > (1u << 20)) return;  // a peer that never completes an FPDU
    if (!sock.read(rx)) {
      if (sock.eof) st.close();
      return;
    }
  }
}

// Patches the peer's Request before the negotiation sees it (MPA seams).
void patch_request(const FaultSet& f, std::vector<std::uint8_t>& frame) {
  if (frame.size() < 20) return;
  mpa::ReqRepHeader h(wire::Bytes(frame).first<20>());
  using F = mpa::ReqRepSpec::Field;
  if (f.has(FaultId::kMpaAcceptBadKey)) h.set_octets(F::Key, mpa::kRequestKey);
  const auto rev = h.get(F::Rev);
  if (f.has(FaultId::kMpaAcceptAnyRevision) && rev != 1 && rev != 2) h.set(F::Rev, 1).set(F::S, 0);
  // RFC 5044 §7.1.1: R is not checked in a received Request (the codec's
  // decoder does check it, so the reference clears it first).
  if (!f.has(FaultId::kMpaCheckRInRequest)) h.set(F::R, 0);
  std::copy(h.bytes().begin(), h.bytes().end(), frame.begin());
}

void serve_iwarp(Socket& sock, const FaultSet& f, bool initiator, const InitiatorProfile& profile) {
  if (f.has(FaultId::kMpaNoHandshakeTimer)) sock.lifetime = Clock::duration::max() / 2;
  std::vector<std::uint8_t> rx;
  Memory mem;
  rdmap::StreamConfig sc;
  sc.mulpdu = 1024;
  sc.faults = f.stream_faults();
  rdmap::Stream st(sc);
  const std::vector<std::uint8_t> ad = make_advertisement(register_all(st, mem));

  mpa::NegotiationConfig nc;
  nc.role = initiator ? mpa::Role::kInitiator : mpa::Role::kResponder;
  // As initiator, Rev 2 with the peer-to-peer model and every RTR kind
  // offered when the profile says so (RFC 6581 §9.2), Rev 1 otherwise.
  nc.revision = initiator && profile.rev2_peer_to_peer ? 2 : 1;
  nc.peer_to_peer = initiator && profile.rev2_peer_to_peer;
  nc.rtr = {true, true, true};
  // RFC 5044 §7.1.1: Res is not checked on receipt.
  nc.check_reserved = f.has(FaultId::kMpaCheckResBits);
  nc.ird = 4;
  nc.ord = 4;
  // RFC 5044 §7.1.1: CRCs are used when either side asks; the test ULP asks
  // for none itself, so a tester that asks for none can see MPA without them.
  nc.want_crc = sock.mpa.want_crc.value_or(false);
  if (!initiator && sock.mpa.revision) {
    nc.accept_rev1 = *sock.mpa.revision == 1;
    nc.accept_rev2 = *sock.mpa.revision == 2;
  }
  std::vector<std::uint8_t> frame;
  const auto handshake_deadline = Clock::now() + kHandshakeTimer;
  if (!initiator) {
    // Gather the whole Request first: the test ULP's hint (in its private
    // data) decides whether we ask for Markers.
    for (;;) {
      std::vector<std::uint8_t> probe = rx;
      patch_request(f, probe);
      auto need = mpa::required_frame_size(probe, mpa::FrameKind::kRequest);
      const std::size_t pd = probe.size() >= 20 ? wire::load_be(wire::Bytes(probe).subspan(18, 2)) : 0;
      if (!need && f.has(FaultId::kMpaIgnorePdLimit) && pd > mpa::kMaxPrivateDataLength) {
        if (probe.size() >= 20 + pd) {
          // Swallow the oversized private data and go on as if it were empty.
          rx.erase(rx.begin() + 20, rx.begin() + 20 + static_cast<std::ptrdiff_t>(pd));
          rx[18] = rx[19] = 0;
          continue;
        }
      } else if (!need || probe.size() >= *need) {
        frame = rx;
        break;
      }
      // RFC 5044 §7.1.2: no Request in time, the connection is closed.
      if (Clock::now() >= handshake_deadline && !f.has(FaultId::kMpaNoHandshakeTimer)) {
        sock.close_gracefully();
        return;
      }
      if (!sock.read(rx)) return;
    }
    patch_request(f, frame);
    if (auto req = mpa::decode_req_rep(frame, {.expect = mpa::FrameKind::kRequest, .check_reserved = false})) {
      if (parse_hint(req->ulp_private_data) & kHintMarkers) nc.want_markers = true;
    }
  }
  if (sock.mpa.want_markers) nc.want_markers = *sock.mpa.want_markers;
  mpa::Negotiation n(nc);
  auto send_output = [&](bool accepting) {
    std::vector<std::uint8_t> out(n.pending_output().begin(), n.pending_output().end());
    n.output_sent(out.size());
    if (out.size() >= 20 && !initiator) {
      mpa::ReqRepHeader h(wire::Bytes(out).first<20>());
      using F = mpa::ReqRepSpec::Field;
      if (f.has(FaultId::kMpaReplyBadKey)) h.set_octets(F::Key, mpa::kRequestKey);
      if (accepting && f.has(FaultId::kMpaReplyWrongRevision)) h.set(F::Rev, h.get(F::Rev) == 1 ? 2 : 1);
      if (accepting && f.has(FaultId::kMpaIgnoreCrcRequest)) h.set(F::C, 0);
      if (!accepting && f.has(FaultId::kMpaRejectWithoutR)) h.set(F::R, 0);
      std::copy(h.bytes().begin(), h.bytes().end(), out.begin());
    }
    if (out.size() >= 24 && initiator && nc.peer_to_peer) {
      // Faults in the initiator's enhanced data (RFC 6581 §9.2).
      mpa::EnhancedDataHeader e(wire::Bytes(out).subspan(20).first<4>());
      using E = mpa::EnhancedDataSpec::Field;
      if (f.has(FaultId::kMpaP2pNoRtrOffered)) e.set(E::B, 0).set(E::C, 0).set(E::D, 0);
      if (f.has(FaultId::kMpaRtrReadWithoutOrd)) e.set(E::ORD, 0);
      std::copy(e.bytes().begin(), e.bytes().end(), out.begin() + 20);
    }
    if (!out.empty()) sock.send(out);
  };
  if (initiator) send_output(false);
  std::size_t used = 0;
  if (!initiator) {
    used = n.receive(frame);
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(std::min(used, rx.size())));
  }
  for (;;) {
    if (n.state() == mpa::NegotiationState::kRequestReceived) n.accept(ad);
    if (n.state() == mpa::NegotiationState::kFullOperation) {
      send_output(true);
      break;
    }
    if (n.state() == mpa::NegotiationState::kFailed) {
      const auto& fail = *n.failure();
      sock.emit(IutEvent::Kind::kConnection, "rejected", {}, "MPA negotiation failed");
      if (!(fail.action == mpa::FailureAction::kSendRejectThenClose && f.has(FaultId::kMpaCloseWithoutReject)))
        send_output(false);
      if (fail.action == mpa::FailureAction::kSendTerminateThenClose && fail.terminate_code) {
        // RFC 6581 §10 / RFC 5044 §8: the Terminate follows, framed as the
        // two frames asked.
        mpa::Framer framer(mpa::FramerConfig{.markers = false, .crc = true, .stream_position = 0});
        st.report_llp_error(*fail.terminate_code);
        std::vector<std::uint8_t> out;
        while (auto seg = st.take_outgoing()) {
          if (!rewrite_outgoing(f, *seg)) continue;
          wire::Chunks ulpdu;
          ulpdu.append(seg->header());
          framer.frame(ulpdu, out);
        }
        sock.send(out);
      }
      sock.close_gracefully();
      return;
    }
    // RFC 5044 §7.1.2: the initiator's wait for the Reply is bounded.
    if (n.timer_running() && Clock::now() >= handshake_deadline && !f.has(FaultId::kMpaNoHandshakeTimer)) {
      n.timer_expired();
      continue;
    }
    if (!sock.read(rx)) return;
    used = n.receive(rx);
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(std::min(used, rx.size())));
  }
  const mpa::NegotiationOutcome o = *n.outcome();
  sock.emit(IutEvent::Kind::kConnection, "established", {},
            "rev " + std::to_string(o.revision) + (o.crc ? " crc=on" : " crc=off") +
                (o.markers_send || o.markers_receive ? " markers=on" : " markers=off") +
                (o.peer_to_peer ? " p2p" : ""));
  // RFC 6581 §5: with the IRD/ORD exchange, our ORD is what it settled (never
  // above the peer's IRD).
  if (o.enhanced) st.settle_ird_ord(o.ird, o.ord);
  // RFC 5044 §7.1.2, RFC 5040 §6.1: in the client/server model the initiator
  // sends the first FPDU. The test ULP as initiator opens with a Send that
  // carries its advertisement; in the peer-to-peer model the RTR the Reply
  // chose comes before it (RFC 6581 §9.2).
  mpa::RtrKind rtr = o.rtr_to_send;
  if (rtr != mpa::RtrKind::kNone && f.has(FaultId::kMpaInitiatorWrongRtr))
    rtr = rtr == mpa::RtrKind::kZeroLengthSend    ? mpa::RtrKind::kZeroLengthWrite
          : rtr == mpa::RtrKind::kZeroLengthWrite ? mpa::RtrKind::kZeroLengthRead
                                                  : mpa::RtrKind::kZeroLengthSend;
  (void)rdmap::post_rtr(st, rtr, kRtrWorkRequest);
  if (initiator && !f.has(FaultId::kMpaInitiatorWaits)) (void)st.post_send(900, wire::Chunks(wire::Bytes(ad)));
  run_full_operation(sock, f, o, st, mem, std::move(rx));
}

// --------------------------------------------------------------- CLC side

template <typename Fn>
std::vector<std::uint8_t> patch_clc(std::vector<std::uint8_t> octets, Fn fn) {
  auto m = clc::decode(octets);
  if (!m) return octets;
  clc::Message msg = std::move(*m);
  if (!fn(msg)) return octets;
  return clc::encode(msg);
}

clc::ServerConfig reference_server() {
  clc::ServerConfig c;
  c.link.peer_id = 0x5245465300000001ull;  // "REFS" + 1
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x03};
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x03};
  c.link.qp_number = 0x000400;
  c.link.rmb_rkey = 0x4321;
  c.link.rmb_virtual_address = 0x200000;
  c.link.initial_psn = 0x20;
  c.v2.user_eids = {clc::make_eid("RDMACONF-TEST-EID")};
  c.v2.rocev2_gid = c.link.gid;
  c.ipv4 = {0x7f000000, 8};
  return c;
}

clc::ClientConfig reference_client() {
  clc::ClientConfig c;
  const clc::ServerConfig s = reference_server();
  c.link = s.link;
  c.link.peer_id = 0x5245464300000001ull;
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x04};
  c.link.qp_number = 0x000500;
  c.v2 = s.v2;
  c.ipv4 = s.ipv4;
  return c;
}

std::vector<std::uint8_t> patch_incoming_clc(const FaultSet& f, std::vector<std::uint8_t> m) {
  using HF = clc::ClcHeaderSpec::Field;
  if (f.has(FaultId::kClcAcceptBadEyecatcher) && m.size() >= 8) {
    wire::store_be(wire::MutableBytes(m).first(4), clc::kEyecatcherSmcr);
    if (m.size() >= 12) wire::store_be(wire::MutableBytes(m).last(4), clc::kEyecatcherSmcr);
  }
  return patch_clc(std::move(m), [&](clc::Message& msg) {
    bool changed = false;
    if (auto* p = std::get_if<clc::Proposal>(&msg)) {
      using PF = clc::ProposalBodySpec::Field;
      if (f.has(FaultId::kClcSkipPeerIdCheck) && p->body.get(PF::PeerId) == 0) {
        p->body.set(PF::PeerId, 1);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipGidMacCheck)) {
        const auto ref = reference_client();
        p->body.set_octets(PF::Gid, ref.link.gid).set_octets(PF::Mac, ref.link.mac);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipPrefixCheck) && p->ip_prefix) {
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0x7f000000).set(clc::IpPrefixSpec::Field::PrefixLength, 8);
        p->ipv6_prefixes.clear();
        changed = true;
      }
      if (f.has(FaultId::kClcCheckReserved) && p->ip_prefix &&
          p->ip_prefix->get(clc::IpPrefixSpec::Field::Reserved) != 0) {
        // Refused the way a prefix the server does not share is refused.
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0);
        changed = true;
      }
      if (f.has(FaultId::kClcRefuseGrowth) && !p->v1_growth_area.empty() && p->ip_prefix) {
        // Octets of future growth taken for the prefix area: no prefix in common.
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipEidCheck) && p->v2_ext && !p->user_eids.empty()) {
        p->user_eids[0].set_octets(clc::EidSpec::Field::Eid, clc::make_eid("RDMACONF-TEST-EID"));
        changed = true;
      }
    } else if (auto* a = std::get_if<clc::AcceptConfirm>(&msg)) {
      if (a->type() == clc::MessageType::kAccept) {
        // Client-side checks switched off by rewriting the Accept into one
        // that passes them.
        const clc::V2Settings own = reference_client().v2;
        if (a->fce && f.has(FaultId::kClcSkipAcceptReleaseCheck) &&
            a->fce->get(clc::FirstContactExtSpec::Field::Release) > own.release) {
          a->fce->set(clc::FirstContactExtSpec::Field::Release, own.release);
          changed = true;
        }
        if (a->fce_v2x && f.has(FaultId::kClcSkipAcceptLimitsCheck)) {
          using XF = clc::FirstContactExtV2xSpec::Field;
          a->fce_v2x->set(XF::MaxConns, std::max<std::uint64_t>(a->fce_v2x->get(XF::MaxConns), 16));
          a->fce_v2x->set(XF::MaxLinks, std::clamp<std::uint64_t>(a->fce_v2x->get(XF::MaxLinks), 1, 2));
          changed = true;
        }
        if (!a->first_contact() && f.has(FaultId::kClcSkipFirstContactCheck)) {
          a->header.set(clc::ClcHeaderSpec::Field::TypeBits, a->header.get(clc::ClcHeaderSpec::Field::TypeBits) | 0x8);
          changed = true;
        }
      }
      if (f.has(FaultId::kClcSkipConfirmQpCheck) && a->smcr && a->smcr->get(clc::SmcrAcceptConfirmSpec::Field::QpNumber) < 2) {
        a->smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpNumber, 0x600);
        changed = true;
      }
    }
    (void)HF::Type;
    if (changed) std::visit([](auto& x) { clc::finalize(x); }, msg);
    return changed;
  });
}

// A 48-bit MAC (a numeric field) with the IEEE 802 I/G bit set, the least
// significant bit of its first octet: a group address.
std::uint64_t group_mac(std::uint64_t mac) { return mac | (std::uint64_t{1} << 40); }

std::vector<std::uint8_t> patch_outgoing_clc(const FaultSet& f, std::vector<std::uint8_t> m) {
  using HF = clc::ClcHeaderSpec::Field;
  m = patch_clc(std::move(m), [&](clc::Message& msg) {
    bool changed = false;
    if (auto* a = std::get_if<clc::AcceptConfirm>(&msg); a && f.has(FaultId::kClcInconsistentAccept) &&
                                                         a->type() == clc::MessageType::kAccept) {
      a->header.set(HF::Version, a->version() == clc::kVersion1 ? clc::kVersion2 : clc::kVersion1);
      changed = true;
    }
    if (auto* d = std::get_if<clc::Decline>(&msg); d && f.has(FaultId::kClcDeclineZeroDiagnosis)) {
      d->body.set(clc::DeclineSpec::Field::PeerDiagnosis, 0);
      changed = true;
    }
    if (auto* p = std::get_if<clc::Proposal>(&msg)) {
      if (f.has(FaultId::kClcMulticastMac)) {
        p->body.set(clc::ProposalBodySpec::Field::Mac, group_mac(p->body.get(clc::ProposalBodySpec::Field::Mac)));
        changed = true;
      }
      if (f.has(FaultId::kClcProposalNoPath)) {
        // Header bits 60-61 SMCv2 type, 62-63 SMCv1 type; 2 is "none".
        p->header.set(HF::TypeBits, (static_cast<std::uint64_t>(clc::SmcType::kNone) << 2) |
                                        static_cast<std::uint64_t>(clc::SmcType::kNone));
        changed = true;
      }
    }
    if (auto* a = std::get_if<clc::AcceptConfirm>(&msg)) {
      using RF = clc::SmcrAcceptConfirmSpec::Field;
      const bool accept = a->type() == clc::MessageType::kAccept;
      if (a->smcr && f.has(FaultId::kClcMulticastMac)) {
        a->smcr->set(RF::Mac, group_mac(a->smcr->get(RF::Mac)));
        changed = true;
      }
      if (a->smcr && f.has(FaultId::kClcRmbWraps)) {
        // 4 KiB below 2^64: smaller than any RMB (16 KiB and up).
        a->smcr->set(RF::RmbVirtualAddress, ~std::uint64_t{0} - 0xfff);
        changed = true;
      }
      if (accept && f.has(FaultId::kClcAcceptWrongPath)) {
        // Header bits 62-63 of an Accept: the path; First Contact stays.
        a->header.set(HF::TypeBits, (a->header.get(HF::TypeBits) & ~std::uint64_t{3}) |
                                        static_cast<std::uint64_t>(clc::SmcType::kD));
        changed = true;
      }
      if (accept && a->fce_v2x && f.has(FaultId::kClcV21LimitsOutOfRange)) {
        a->fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 8).set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 3);
        changed = true;
      }
      if (!accept && a->smcr && f.has(FaultId::kClcConfirmPeerIdChanged)) {
        a->smcr->set(RF::PeerId, a->smcr->get(RF::PeerId) ^ 1);
        changed = true;
      }
      if (!accept && f.has(FaultId::kClcConfirmOtherVersion)) {
        a->header.set(HF::Version, a->version() == clc::kVersion1 ? clc::kVersion2 : clc::kVersion1);
        changed = true;
      }
      if (!accept && f.has(FaultId::kClcConfirmIgnoresAccept)) {
        const clc::V2Settings own = reference_client().v2;
        if (a->fce) a->fce->set(clc::FirstContactExtSpec::Field::Release, own.release);
        if (a->fce_v2x)
          a->fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, own.max_conns)
              .set(clc::FirstContactExtV2xSpec::Field::MaxLinks, own.max_links);
        changed = a->fce.has_value();
      }
    }
    return changed;
  });
  // Fault (RFC 7609 App. A.2.2): the Proposal's IP Area Offset names four
  // octets of future growth that are not there.
  if (f.has(FaultId::kClcProposalOffsetWrong) && m.size() >= clc::kHeaderSize + clc::ProposalBodySpec::decl.size_octets &&
      m[4] == static_cast<std::uint8_t>(clc::MessageType::kProposal)) {
    const wire::MutableBytes at = wire::MutableBytes(m).subspan(clc::kHeaderSize, clc::ProposalBodySpec::decl.size_octets);
    wire::Header<clc::ProposalBodySpec> body(wire::Bytes(at).first<clc::ProposalBodySpec::decl.size_octets>());
    using PF = clc::ProposalBodySpec::Field;
    body.set(PF::IpAreaOffset, body.get(PF::IpAreaOffset) + 4);
    std::copy(body.bytes().begin(), body.bytes().end(), at.begin());
  }
  if (f.has(FaultId::kClcWrongTrailer) && m.size() >= 12) wire::store_be(wire::MutableBytes(m).last(4), clc::kEyecatcherSmcd);
  // RFC 7609 App. A.2: header bit 61 of an Accept or Decline is reserved (octet 7, 0x04).
  const bool accept_or_decline = m.size() >= 8 && (m[4] == static_cast<std::uint8_t>(clc::MessageType::kAccept) ||
                                                   m[4] == static_cast<std::uint8_t>(clc::MessageType::kDecline));
  if (f.has(FaultId::kClcReservedSet) && accept_or_decline) m[7] |= 0x04;
  return m;
}

void serve_clc(Socket& sock, const FaultSet& f, bool client) {
  if (f.has(FaultId::kClcNoTimer)) sock.lifetime = Clock::duration::max() / 2;
  std::unique_ptr<clc::ServerHandshake> server;
  std::unique_ptr<clc::ClientHandshake> cl;
  clc::Step step;
  if (client) {
    cl = std::make_unique<clc::ClientHandshake>(reference_client());
    step = cl->start(true);
  } else {
    server = std::make_unique<clc::ServerHandshake>(reference_server());
    step = server->start(true);
  }
  std::vector<std::uint8_t> rx;
  // RFC 7609 App. C.5: each wait for the peer's next CLC message is bounded.
  auto clc_deadline = Clock::now() + kHandshakeTimer;
  for (;;) {
    if (!step.send.empty()) sock.send(patch_outgoing_clc(f, step.send));
    if (step.outcome) {
      if (step.outcome->kind == clc::OutcomeKind::kFailed) {
        sock.reset();  // Linux resets the connection on a CLC protocol error
        return;
      }
      // SMC or a fallback: the TCP connection stays up until the peer ends it.
      std::vector<std::uint8_t> sink;
      while (sock.read(sink, 200ms)) sink.clear();
      return;
    }
    // One complete message (the header's Length says where it ends).
    for (;;) {
      if (rx.size() >= clc::kHeaderSize) {
        std::vector<std::uint8_t> hdr(rx.begin(), rx.begin() + clc::kHeaderSize);
        if (f.has(FaultId::kClcAcceptBadEyecatcher)) wire::store_be(wire::MutableBytes(hdr).first(4), clc::kEyecatcherSmcr);
        auto len = clc::message_length(hdr);
        if (!len) break;
        if (rx.size() >= *len) break;
      }
      if (Clock::now() > clc_deadline && !f.has(FaultId::kClcNoTimer)) {
        step = client ? cl->on_timeout() : server->on_timeout();
        goto next;
      }
      if (!sock.read(rx)) return;
    }
    {
      std::vector<std::uint8_t> hdr(rx.begin(), rx.begin() + std::min(rx.size(), clc::kHeaderSize));
      if (f.has(FaultId::kClcAcceptBadEyecatcher) && hdr.size() >= 4) wire::store_be(wire::MutableBytes(hdr).first(4), clc::kEyecatcherSmcr);
      auto len = hdr.size() >= clc::kHeaderSize ? clc::message_length(hdr) : wire::Result<std::size_t>(clc::kHeaderSize);
      const std::size_t n = len ? std::min(*len, rx.size()) : rx.size();
      std::vector<std::uint8_t> msg(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(n));
      rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(n));
      const std::uint8_t type = msg.size() > 4 ? msg[4] : 0;
      const bool is_decline = type == static_cast<std::uint8_t>(clc::MessageType::kDecline);
      const bool is_accept_confirm = type == static_cast<std::uint8_t>(clc::MessageType::kAccept) ||
                                     type == static_cast<std::uint8_t>(clc::MessageType::kConfirm);
      // Faults: what a receiver's rules take and a sender's refuse (a
      // Decline's reserved bits, a v2 Accept/Confirm's surplus octets) is
      // taken as a protocol error.
      if (((is_decline && f.has(FaultId::kClcCheckDeclineReserved)) ||
           (is_accept_confirm && f.has(FaultId::kClcRefuseSurplus))) &&
          !clc::decode(msg).ok() && clc::decode(msg, clc::DecodeRules::kReceiver).ok()) {
        sock.reset();
        return;
      }
      msg = patch_incoming_clc(f, std::move(msg));
      clc_deadline = Clock::now() + kHandshakeTimer;
      step = client ? cl->on_message(msg) : server->on_message(msg);
      if (is_decline && f.has(FaultId::kClcAnswerDecline))
        step.send = clc::encode(clc::build_decline(clc::kVersion2, reference_server().link.peer_id, clc::kDeclPeerDecl, clc::kOsLinux));
    }
  next:;
  }
}

std::string socket_address(int fd, bool peer) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if ((peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
            : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len)) != 0)
    return "?";
  char host[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
  ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
}

int open_listener(const std::string& host, std::uint16_t port, std::uint16_t& bound, std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) {
    error = "cannot resolve " + host;
    return -1;
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) < 0 || ::listen(fd, 128) < 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    ::freeaddrinfo(res);
    ::close(fd);
    return -1;
  }
  ::freeaddrinfo(res);
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  bound = a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port)
                                  : ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return fd;
}

}  // namespace

ReferenceIut::ReferenceIut(FaultSet faults) : faults_(faults) {}
ReferenceIut::~ReferenceIut() { stop(); }

bool ReferenceIut::listen(const std::string& host, std::uint16_t port, std::string& error) {
  listen_fd_ = open_listener(host, port, port_, error);
  if (listen_fd_ < 0) return false;
  std::lock_guard lock(mu_);
  threads_.emplace_back([this] { accept_loop(listen_fd_, false); });
  return true;
}

bool ReferenceIut::listen_clc(const std::string& host, std::uint16_t port, std::string& error) {
  clc_listen_fd_ = open_listener(host, port, clc_port_, error);
  if (clc_listen_fd_ < 0) return false;
  std::lock_guard lock(mu_);
  threads_.emplace_back([this] { accept_loop(clc_listen_fd_, true); });
  return true;
}

void ReferenceIut::accept_loop(int lfd, bool clc) {
  while (!stopping_) {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    spawn(fd, clc, false, {});
  }
}

void ReferenceIut::spawn(int fd, bool clc, bool initiator, InitiatorProfile profile) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::lock_guard lock(mu_);
  if (stopping_) {
    ::close(fd);
    return;
  }
  threads_.emplace_back([this, fd, clc, initiator, profile] {
    Socket s{fd, stopping_};
    s.observer = &observer_;
    s.mpa = initiator ? profile.mpa : mpa_;
    if (observer_) {
      s.local = socket_address(fd, false);
      s.peer = socket_address(fd, true);
    }
    if (clc) serve_clc(s, faults_, initiator);
    else serve_iwarp(s, faults_, initiator, profile);
    s.emit(IutEvent::Kind::kConnection, "closed");
    ::close(fd);
  });
}

bool ReferenceIut::connect(const std::string& host, std::uint16_t port, bool clc, InitiatorProfile profile) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) return false;
  const int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool ok = ::connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  if (!ok) {
    ::close(fd);
    return false;
  }
  spawn(fd, clc, true, profile);
  return true;
}

void ReferenceIut::stop() {
  stopping_ = true;
  std::vector<std::thread> ts;
  {
    std::lock_guard lock(mu_);
    ts.swap(threads_);
  }
  for (auto& t : ts)
    if (t.joinable()) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (clc_listen_fd_ >= 0) ::close(clc_listen_fd_);
  listen_fd_ = clc_listen_fd_ = -1;
}

}  // namespace rdmaconf::conformance
