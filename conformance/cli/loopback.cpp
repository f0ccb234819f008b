#include "cli/loopback.hpp"

#include <array>
#include <cstdio>
#include <cstring>
#include <future>
#include <iostream>
#include <mutex>
#include <numeric>
#include <sstream>

#include "cli/command.hpp"
#include "cli/sctp_stack_option.hpp"
#include "endpoint/iwarp_endpoint.hpp"
#ifdef RDMACONF_HAVE_USRSCTP
#include "endpoint/sctp_endpoint.hpp"
#endif
#include "rdmap/error_codes.hpp"

namespace rdmaconf::cli {

using endpoint::IwarpConfig;
using endpoint::IwarpEndpoint;
using namespace std::chrono_literals;

namespace {

void add_loopback_command(CLI::App& app, int& exit_code) {
  static LoopbackOptions o;
  CLI::App* sub = app.add_subcommand(
      "loopback",
      "Run two reference endpoints over loopback TCP (or SCTP) through every RDMAP operation, printing the wire");
  sub->add_option("--transport", o.transport,
                  "What carries DDP: tcp (MPA, RFC 5044) or sctp (the DDP/SCTP adaptation layer of RFC 5043, over "
                  "usrsctp's UDP encapsulation, RFC 6951, or the kernel's SCTP: --sctp-stack)")
      ->check(CLI::IsMember({"tcp", "sctp"}));
  add_sctp_stack_option(*sub, o.sctp_stack);
  sub->add_option("--rev", o.revision, "MPA revision the initiator asks for (1: RFC 5044, 2: RFC 6581)")
      ->check(CLI::IsMember({1, 2}));
  sub->add_flag("--markers", o.markers, "Both sides ask for MPA Markers (RFC 5044 §4.3)");
  sub->add_flag("--no-crc", o.no_crc, "Neither side asks for the MPA CRC (RFC 5044 §4.4)");
  sub->add_flag("-v,--verbose", o.verbose, "Print every header field of every frame");
  sub->add_option("--fpdu-budget", o.fpdu_budget, "Octets per FPDU the endpoints aim for (the EMSS of RFC 5044 §4.1)")
      ->check(CLI::Range(64, 65535));
  sub->final_callback([&exit_code] { exit_code = run_loopback(o); });
}

}  // namespace

RDMACONF_COMMAND(loopback, add_loopback_command);

namespace {

class Printer {
 public:
  explicit Printer(bool verbose) : verbose_(verbose) {}
  void wire(const endpoint::WireEvent& e) {
    std::lock_guard lock(mu_);
    std::cout << "  initiator " << e.headline << "\n";
    if (verbose_ || (e.unit != "FPDU" && e.unit != "DDP Segment Chunk")) std::cout << e.detail;
    else std::cout << e.detail.substr(0, e.detail.find('\n') + 1) << first_rdmap_line(e.detail);
    std::cout.flush();
  }
  void step(const std::string& s) {
    std::lock_guard lock(mu_);
    std::cout << "\n" << s << "\n";
  }
  void note(const std::string& s) {
    std::lock_guard lock(mu_);
    std::cout << "  " << s << "\n";
  }

 private:
  // Beyond the DDP header, the lines that say what the message is about.
  static std::string first_rdmap_line(const std::string& detail) {
    std::string out;
    std::istringstream in(detail);
    std::string line;
    std::getline(in, line);  // DDP header, already printed
    while (std::getline(in, line))
      if (line.find("RDMAP control") == std::string::npos) out += line + "\n";
    return out;
  }
  std::mutex mu_;
  bool verbose_;
};

std::string describe(const rdmap::Completion& c) {
  static constexpr std::string_view kTypes[] = {"Send",    "RDMA Write",    "RDMA Read",        "Atomic",
                                                "Immediate Data", "Receive", "Receive Immediate", "Terminate received"};
  std::string s = std::string(kTypes[static_cast<std::size_t>(c.type)]) + " wr=" + std::to_string(c.wr_id);
  s += c.status == rdmap::CompletionStatus::kSuccess ? " success" : " flushed";
  if (c.byte_len) s += " len=" + std::to_string(c.byte_len);
  if (c.solicited_event) s += " solicited";
  if (c.invalidated_stag) s += " invalidated STag " + std::to_string(ddp::value(*c.invalidated_stag));
  if (c.immediate_data) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " immediate=0x%016llx", static_cast<unsigned long long>(*c.immediate_data));
    s += buf;
  }
  if (c.atomic_original) s += " original=" + std::to_string(*c.atomic_original);
  if (c.terminate) {
    const auto* row = rdmap::find_error(c.terminate->code);
    s += " code=" + std::string(rdmap::layer_name(c.terminate->code.layer)) + "/" +
         std::to_string(c.terminate->code.etype) + "/" + std::to_string(c.terminate->code.code);
    if (row) s += " (" + std::string(row->etype_name) + ": " + std::string(row->name) + ", " +
                  std::string(row->rfc_section) + ")";
  }
  return s;
}

// Collects the run's verdict: each expectation that failed is printed and
// makes the exit code 1.
struct Verdict {
  Printer& out;
  int failures = 0;
  void expect(bool ok, const std::string& what) {
    out.note(std::string(ok ? "ok    " : "FAIL  ") + what);
    if (!ok) ++failures;
  }
};

std::optional<rdmap::Completion> next(endpoint::Verbs& ep, Printer& out, const char* who) {
  auto c = ep.wait_completion(5s);
  if (c) out.note(std::string(who) + " completion: " + describe(*c));
  else out.note(std::string(who) + ": no completion within 5 s");
  return c;
}

bool is(const std::optional<rdmap::Completion>& c, rdmap::CompletionType t, rdmap::WorkRequestId id) {
  return c && c->type == t && c->wr_id == id && c->status == rdmap::CompletionStatus::kSuccess;
}

// The two connected endpoints, the responder's posted buffers and the
// memory the operations use, with the printer and the verdict: what every
// step below works on.
struct Session {
  Printer& out;
  Verdict& verdict;
  endpoint::Verbs& initiator;
  endpoint::Verbs& responder;
  std::array<std::vector<std::uint8_t>, 8>& rx;
  // The responder's memory: one region the initiator may write, read and
  // update atomically. The initiator's: the sink for its RDMA Read.
  std::vector<std::uint8_t> region = std::vector<std::uint8_t>(4096, 0);
  ddp::Access remote_rw = ddp::Access::kLocalRead | ddp::Access::kLocalWrite | ddp::Access::kRemoteRead |
                          ddp::Access::kRemoteWrite | ddp::Access::kRemoteAtomic;
  ddp::Stag region_stag{};
  std::vector<std::uint8_t> sink = std::vector<std::uint8_t>(1024, 0);
  ddp::Stag sink_stag{};
  std::vector<std::uint8_t> payload = std::vector<std::uint8_t>(3000);

  std::optional<rdmap::Completion> at_initiator() { return next(initiator, out, "initiator"); }
  std::optional<rdmap::Completion> at_responder() { return next(responder, out, "responder"); }
};

// 1. Send, and Send with Solicited Event (RFC 5040 §5.3).
void exercise_sends(Session& s) {
  s.out.step("Send (RFC 5040 §5.3)");
  const std::string hello = "hello from the initiator";
  (void)s.initiator.post_send(1, {reinterpret_cast<const std::uint8_t*>(hello.data()), hello.size()});
  s.verdict.expect(is(s.at_initiator(), rdmap::CompletionType::kSend, 1), "Send completed at the initiator");
  auto rc = s.at_responder();
  s.verdict.expect(is(rc, rdmap::CompletionType::kReceive, 100) && rc->byte_len == hello.size() &&
                       std::memcmp(s.rx[0].data(), hello.data(), hello.size()) == 0,
                   "Send delivered into the first posted buffer");

  s.out.step("Send with Solicited Event (RFC 5040 §5.3)");
  (void)s.initiator.post_send(2, {reinterpret_cast<const std::uint8_t*>(hello.data()), 5},
                              {.solicited_event = true, .invalidate = std::nullopt});
  (void)s.at_initiator();
  rc = s.at_responder();
  s.verdict.expect(is(rc, rdmap::CompletionType::kReceive, 101) && rc->solicited_event, "solicited event reported");
}

// 2. RDMA Write of 3000 octets: several DDP segments at the MULPDU; 3. RDMA
// Read of 512 octets back.
void exercise_write_and_read(Session& s) {
  s.out.step("RDMA Write, 3000 octets into the responder's region (RFC 5040 §5.1, RFC 5041 §5.1 segmentation)");
  std::iota(s.payload.begin(), s.payload.end(), std::uint8_t{1});
  (void)s.initiator.post_write(3, s.payload, s.region_stag, 0x10000 + 64);
  s.verdict.expect(is(s.at_initiator(), rdmap::CompletionType::kRdmaWrite, 3), "RDMA Write completed");
  // An RDMA Write completes nothing at the Data Sink; a Send behind it
  // proves placement happened first (RFC 5040 §5.5 ordering).
  (void)s.initiator.post_send(4, {reinterpret_cast<const std::uint8_t*>("fence"), 5});
  (void)s.at_initiator();
  (void)s.at_responder();
  s.verdict.expect(std::equal(s.payload.begin(), s.payload.end(), s.region.begin() + 64),
                   "written octets placed at TO 0x10040");

  s.out.step("RDMA Read, 512 octets from the responder's region (RFC 5040 §5.2)");
  rdmap::ReadRequest read{.sink_stag = s.sink_stag, .sink_to = 0, .size = 512, .source_stag = s.region_stag,
                          .source_to = 0x10000 + 64};
  (void)s.initiator.post_read(5, read);
  s.verdict.expect(is(s.at_initiator(), rdmap::CompletionType::kRdmaRead, 5) &&
                       std::equal(s.sink.begin(), s.sink.begin() + 512, s.payload.begin()),
                   "Read Response placed into the initiator's sink");
}

// 4. Atomics (RFC 7306 §5): Fetch-and-Add, then Compare-and-Swap.
void exercise_atomics(Session& s) {
  s.out.step("Atomic Fetch-and-Add and Compare-and-Swap (RFC 7306 §5)");
  rdmap::AtomicRequest add{.op = rdmap::AtomicOpcode::kFetchAdd, .remote_stag = s.region_stag,
                           .remote_to = 0x10000 + 8, .add_or_swap_data = 5};
  (void)s.initiator.post_atomic(6, add);
  auto ac = s.at_initiator();
  s.verdict.expect(is(ac, rdmap::CompletionType::kAtomic, 6) && ac->atomic_original == 0u,
                   "Fetch-and-Add returned the original value 0");
  rdmap::AtomicRequest cas{.op = rdmap::AtomicOpcode::kCompareSwap, .remote_stag = s.region_stag,
                           .remote_to = 0x10000 + 8, .add_or_swap_data = 42,
                           .add_or_swap_mask = ~std::uint64_t{0}, .compare_data = 5};
  (void)s.initiator.post_atomic(7, cas);
  ac = s.at_initiator();
  std::uint64_t target = 0;
  for (int i = 0; i < 8; ++i) target = (target << 8) | s.region[8 + i];
  s.verdict.expect(is(ac, rdmap::CompletionType::kAtomic, 7) && ac->atomic_original == 5u && target == 42u,
                   "Compare-and-Swap saw 5 and swapped in 42");
}

// 5. Immediate Data (RFC 7306 §6), with and without Solicited Event.
void exercise_immediate(Session& s) {
  s.out.step("Immediate Data, and Immediate Data with Solicited Event (RFC 7306 §6)");
  (void)s.initiator.post_immediate(8, 0x0123456789abcdefull);
  (void)s.at_initiator();
  auto rc = s.at_responder();
  s.verdict.expect(rc && rc->type == rdmap::CompletionType::kReceiveImmediate &&
                       rc->immediate_data == 0x0123456789abcdefull,
                   "Immediate Data delivered");
  (void)s.initiator.post_immediate(9, 0xfeedull, true);
  (void)s.at_initiator();
  rc = s.at_responder();
  s.verdict.expect(rc && rc->type == rdmap::CompletionType::kReceiveImmediate && rc->solicited_event,
                   "Immediate Data with Solicited Event delivered");
}

// 6. Send with Invalidate, then Send with SE and Invalidate: the
// responder's region STag is invalidated by the initiator (RFC 5040 §5.3).
void exercise_invalidate(Session& s) {
  s.out.step("Send with Invalidate (RFC 5040 §5.3): the initiator invalidates the responder's region");
  (void)s.initiator.post_send(10, {reinterpret_cast<const std::uint8_t*>("done"), 4}, {.invalidate = s.region_stag});
  (void)s.at_initiator();
  auto rc = s.at_responder();
  s.verdict.expect(rc && rc->invalidated_stag == s.region_stag, "region STag invalidated at the responder");

  s.out.step("Send with Solicited Event and Invalidate (RFC 5040 §5.3)");
  const ddp::Stag second = s.responder.register_memory(s.region, 0, s.remote_rw);
  (void)s.initiator.post_send(11, {reinterpret_cast<const std::uint8_t*>("bye"), 3},
                              {.solicited_event = true, .invalidate = second});
  (void)s.at_initiator();
  rc = s.at_responder();
  s.verdict.expect(rc && rc->invalidated_stag == second && rc->solicited_event, "second STag invalidated, solicited");
}

// 7. A protection error: an RDMA Write to the invalidated STag. The
// responder must answer with a Terminate (RFC 5040 §4.8, RFC 5041 §7.2:
// DDP layer, tagged buffer error, invalid STag) and the stream ends.
void exercise_protection_error(Session& s) {
  s.out.step("RDMA Write to the invalidated STag: the responder must Terminate (RFC 5041 §7.2, RFC 5040 §4.8)");
  (void)s.initiator.post_write(12, {s.payload.data(), 16}, s.region_stag, 0x10000);
  std::optional<rdmap::Completion> term;
  for (int i = 0; i < 4 && !term; ++i) {
    auto c = s.at_initiator();
    if (!c) break;
    if (c->type == rdmap::CompletionType::kTerminateReceived) term = c;
  }
  const ddp::TerminateCode invalid_stag{ddp::Layer::kDdp, 0x1, 0x00};
  s.verdict.expect(term && term->terminate && term->terminate->code == invalid_stag,
                   "Terminate: DDP / Tagged Buffer Error / Invalid STag");
  s.verdict.expect(s.initiator.wait_closed(5s) && s.responder.wait_closed(5s),
                   "both ends closed the TCP connection (over SCTP: ended the DDP Stream Session)");
}

// Every RDMAP operation between two connected endpoints, whatever carries
// them; returns the exit code.
int exercise_all(Printer& out, Verdict& verdict, endpoint::Verbs& initiator, endpoint::Verbs& responder,
                 std::array<std::vector<std::uint8_t>, 8>& rx) {
  Session s{out, verdict, initiator, responder, rx};
  s.region_stag = responder.register_memory(s.region, 0x10000, s.remote_rw);
  s.sink_stag = initiator.register_memory(s.sink, 0, ddp::Access::kLocalRead | ddp::Access::kLocalWrite);
  exercise_sends(s);
  exercise_write_and_read(s);
  exercise_atomics(s);
  exercise_immediate(s);
  exercise_invalidate(s);
  exercise_protection_error(s);

  std::cout << "\nrdmaconf loopback: " << (verdict.failures == 0 ? "every operation behaved as the RFCs say"
                                                                   : std::to_string(verdict.failures) + " check(s) failed")
            << "; initiator sent " << initiator.octets_sent() << " octets, received " << initiator.octets_received()
            << "\n";
  return verdict.failures == 0 ? 0 : 1;
}

// Receives are posted before the connection exists, as a ULP does.
void post_receives(endpoint::Verbs& responder, endpoint::Verbs& initiator, std::array<std::vector<std::uint8_t>, 8>& rx,
                   std::vector<std::uint8_t>& initiator_rx) {
  for (std::size_t i = 0; i < rx.size(); ++i) {
    rx[i].assign(2048, 0);
    responder.post_receive(100 + i, rx[i]);
  }
  initiator.post_receive(900, initiator_rx);
}

int run_sctp_loopback(const LoopbackOptions& o) {
#ifdef RDMACONF_HAVE_USRSCTP
  Printer out(o.verbose);
  Verdict verdict{out};
  endpoint::SctpConfig base;
  base.stack = *endpoint::parse_sctp_stack(o.sctp_stack);
  base.rdmap.ird = 4;
  base.rdmap.ord = 4;
  base.setup_timeout = 5s;
  std::unique_ptr<endpoint::SctpEndpoint> responder, initiator;
  try {
    base.private_data = {'r', 'e', 's', 'p', 'o', 'n', 'd', 'e', 'r'};
    responder = std::make_unique<endpoint::SctpEndpoint>(base);
    endpoint::SctpConfig ic = base;
    ic.private_data = {'i', 'n', 'i', 't', 'i', 'a', 't', 'o', 'r'};
    ic.observer = [&out](const endpoint::WireEvent& e) { out.wire(e); };
    initiator = std::make_unique<endpoint::SctpEndpoint>(ic);
  } catch (const std::exception& e) {
    std::cerr << "rdmaconf loopback: cannot open SCTP (" << sctp_stack_words(o.sctp_stack) << ") on 127.0.0.1: "
              << e.what() << "\n";
    return 2;
  }
  std::cout << "rdmaconf loopback: responder listening on " << (o.sctp_stack == "kernel" ? "SCTP " : "UDP ")
            << responder->local_address() << ", SCTP port " << responder->local_sctp_port()
            << "; DDP over SCTP (RFC 5043), " << sctp_stack_words(o.sctp_stack) << "\n";
  std::array<std::vector<std::uint8_t>, 8> rx;
  std::vector<std::uint8_t> initiator_rx(256, 0);
  post_receives(*responder, *initiator, rx, initiator_rx);

  out.step("SCTP association with the Adaptation Layer Indication for DDP, then the DDP Stream Session: "
           "Initiate, Accept (RFC 5043 §5.1, §6.2, §11.1)");
  if (!responder->listen()) {
    std::cerr << "rdmaconf loopback: the responder cannot listen: " << responder->failure() << "\n";
    return 1;
  }
  std::future<bool> accepted = std::async(std::launch::async, [&] { return responder->accept(); });
  const bool connected = initiator->connect(responder->local_address(), responder->local_sctp_port());
  const bool answered = accepted.get();
  if (!connected || !answered) {
    std::cerr << "rdmaconf loopback: the DDP Stream Session did not start: initiator: " << initiator->failure()
              << "; responder: " << responder->failure() << "\n";
    return 1;
  }
  const auto pd = initiator->peer_private_data();
  out.note("session established on SCTP stream 0; the responder's private data: \"" +
           std::string(pd.begin(), pd.end()) + "\"; every DATA chunk unordered, DDP-SSN from 0 (RFC 5043 §6.1, §10)");
  return exercise_all(out, verdict, *initiator, *responder, rx);
#else
  (void)o;
  std::cerr << "rdmaconf loopback: this build has no SCTP (usrsctp was not found when it was configured)\n";
  return 2;
#endif
}

}  // namespace

int run_loopback(const LoopbackOptions& o) {
  if (o.transport == "sctp") return run_sctp_loopback(o);
  Printer out(o.verbose);
  Verdict verdict{out};

  IwarpConfig base;
  base.mpa.revision = static_cast<std::uint8_t>(o.revision);
  base.mpa.want_markers = o.markers;
  base.mpa.want_crc = !o.no_crc;
  base.mpa.ird = 4;
  base.mpa.ord = 4;
  base.fpdu_budget = o.fpdu_budget;
  base.negotiation_timeout = 5s;
  base.rdmap.ird = 4;
  base.rdmap.ord = 4;

  endpoint::asio::io_context listen_io;
  endpoint::tcp::acceptor acceptor(listen_io);
  try {
    acceptor.open(endpoint::tcp::v4());
    acceptor.bind({endpoint::asio::ip::make_address("127.0.0.1"), 0});
    acceptor.listen();
  } catch (const std::exception& e) {
    std::cerr << "rdmaconf loopback: cannot listen on 127.0.0.1: " << e.what() << "\n";
    return 2;
  }
  const auto where = acceptor.local_endpoint();
  std::cout << "rdmaconf loopback: responder listening on " << where << "; MPA Rev " << o.revision
            << (o.markers ? ", Markers requested" : "") << (o.no_crc ? ", no CRC requested" : ", CRC requested")
            << "\n";

  auto responder = std::make_unique<IwarpEndpoint>(base);
  IwarpConfig initiator_config = base;
  initiator_config.observer = [&out](const endpoint::WireEvent& e) { out.wire(e); };
  auto initiator = std::make_unique<IwarpEndpoint>(initiator_config);
  std::array<std::vector<std::uint8_t>, 8> rx;
  std::vector<std::uint8_t> initiator_rx(256, 0);
  post_receives(*responder, *initiator, rx, initiator_rx);

  out.step("MPA connection setup (RFC 5044 §7.1, RFC 6581)");
  std::future<bool> accepted = std::async(std::launch::async, [&] { return responder->accept(acceptor); });
  initiator->connect(where);
  accepted.get();
  if (initiator->state() == endpoint::ConnectionState::kClosed ||
      responder->state() == endpoint::ConnectionState::kClosed) {
    std::cerr << "rdmaconf loopback: negotiation failed: initiator: " << initiator->failure()
              << "; responder: " << responder->failure() << "\n";
    return 1;
  }
  const auto neg = *initiator->negotiated();
  out.note("negotiated: Rev " + std::to_string(neg.revision) + ", CRC " + (neg.crc ? "on" : "off") +
           ", Markers initiator->responder " + (neg.markers_send ? "on" : "off") + ", responder->initiator " +
           (neg.markers_receive ? "on" : "off") +
           (neg.enhanced ? ", IRD/ORD " + std::to_string(neg.ird) + "/" + std::to_string(neg.ord) : ""));

  return exercise_all(out, verdict, *initiator, *responder, rx);
}

}  // namespace rdmaconf::cli
