// The wire fuzzer's other two targets (FuzzTarget): the IUT as MPA initiator
// (it connects to the tester; initiator-role cases are the seeds) and the
// IUT's SMC CLC server (responder-role clc cases). Their fuzz cases, the
// clean reference yielding no finding as either, and a crash planted in
// each found, minimized and reproduced.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/responder.hpp"
#include "crashing_iut.hpp"
#include "fuzz_test_support.hpp"
#include "wirefuzz/case_text.hpp"
#include "wirefuzz/fuzzer.hpp"
#include "wirefuzz/mutator.hpp"

namespace rdmaconf::conformance::wirefuzz {
namespace {

using namespace std::chrono_literals;

std::vector<const Case*> seeds_of(FuzzTarget t) {
  std::vector<const Case*> out;
  for (const Case& c : catalogue().cases)
    if (fuzz_case(c, {Duration(40), t})) out.push_back(&c);
  return out;
}

const Case& by_id(std::string_view id) {
  for (const Case& c : catalogue().cases)
    if (c.id == id) return c;
  ADD_FAILURE() << "no case " << id;
  return catalogue().cases.front();
}

TEST(FuzzTargets, InitiatorCasesReadTheRequestAndEndWithAnotherConnection) {
  const std::optional<Case> f = fuzz_case(by_id("mpa-initiator-sends-first-fpdu"), {Duration(40), FuzzTarget::kMpaInitiator});
  ASSERT_TRUE(f);
  const std::string text = case_text(*f);
  EXPECT_NE(text.find("role:        initiator"), std::string::npos) << text;
  EXPECT_NE(text.find("\n< mpa.request\n> mpa.reply\n< anything within 40ms\n"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("connection 2\n< mpa.request\n")) << text;
  EXPECT_TRUE(check_case(parse_one(text, "mpa")).empty());
  // What the seed checks in the Request is read as a Request, no more.
  const std::optional<Case> r = fuzz_case(by_id("mpa-initiator-rev1-reply"), {Duration(40), FuzzTarget::kMpaInitiator});
  ASSERT_TRUE(r);
  EXPECT_NE(case_text(*r).find("\n< mpa.request\n> mpa.reply rev=1\n"), std::string::npos) << case_text(*r);
  // Each target takes its own cases only.
  EXPECT_FALSE(fuzz_case(by_id("mpa-initiator-sends-first-fpdu"), {}));
  EXPECT_FALSE(fuzz_case(by_id("ddp-echo-msn-increment"), {Duration(40), FuzzTarget::kMpaInitiator}));
  EXPECT_FALSE(fuzz_case(by_id("clc-accept-v1"), {Duration(40), FuzzTarget::kMpaInitiator}));
  EXPECT_GE(seeds_of(FuzzTarget::kMpaInitiator).size(), 8u);
}

TEST(FuzzTargets, ClcCasesEndWithAProposalThatMustBeAnswered) {
  const std::optional<Case> f = fuzz_case(by_id("clc-confirm-accepted-v1"), {Duration(40), FuzzTarget::kClcServer});
  ASSERT_TRUE(f);
  const std::string text = case_text(*f);
  EXPECT_NE(text.find("> clc.proposal offer=v1\n< anything within 40ms\n> clc.confirm\n"), std::string::npos) << text;
  // The liveness check offers what the seed offered.
  EXPECT_TRUE(text.ends_with("connection 2\n> clc.proposal offer=v1\n< clc.accept | clc.decline\n")) << text;
  EXPECT_TRUE(check_case(parse_one(text, "clc")).empty());
  EXPECT_FALSE(fuzz_case(by_id("clc-accept-v1"), {}));
  EXPECT_GE(seeds_of(FuzzTarget::kClcServer).size(), 40u);
}

TEST(FuzzTargets, EveryInputOfTheNewTargetsIsAScriptTheEngineTakes) {
  for (FuzzTarget t : {FuzzTarget::kMpaInitiator, FuzzTarget::kClcServer}) {
    std::vector<Case> fuzz_seeds;
    for (const Case* c : seeds_of(t)) fuzz_seeds.push_back(*fuzz_case(*c, {Duration(40), t}));
    int fields = 0;
    for (std::uint64_t n = 0; n < 200; ++n) {
      const auto a = make_input(fuzz_seeds, 5, n), b = make_input(fuzz_seeds, 5, n);
      ASSERT_TRUE(a && b);
      const std::string text = case_text(a->c);
      EXPECT_EQ(text, case_text(b->c));
      ASSERT_FALSE(a->mutations.empty()) << text;
      for (const Mutation& m : a->mutations) fields += m.what.starts_with("set ") ? 1 : 0;
      const auto problems = check_case(parse_one(text, a->c.protocol));
      EXPECT_TRUE(problems.empty()) << text << (problems.empty() ? "" : problems.front());
    }
    // Declared fields are set (the CLC messages' too), not only framing.
    EXPECT_GT(fields, 60) << to_string(t);
  }
}

// The reference as MPA initiator: each connection the fuzzer waits for is a
// listener of its own that the reference connects to (as `run --reference`
// does). With `plant`, it "crashes" when a Reply asks it for Markers (its
// connection comes up with markers=on): for the next 300 ms it connects to
// nobody, as an initiator whose process is being restarted.
//
// The crash is ordered with what the tester does, as a real one is: the
// tester asks for its next connection only after it sent the Reply, from
// the same thread, and the connector lets the reference connect only once
// the reference's threads have acted on all they were sent (ServingThreads,
// crashing_iut.hpp, counting each connection's thread from its start: it
// reports its connection only once it took the Reply). Otherwise a loaded
// machine may run the thread that takes the Reply after the liveness
// check's connection was made, and the death falls in a later input.
class CrashingInitiator {
 public:
  explicit CrashingInitiator(bool plant) {
    iut_.set_observer([this, plant](const IutEvent& e) {
      serving_.on_event(e);
      if (plant && e.kind == IutEvent::Kind::kConnection && e.name == "established" &&
          e.detail.find("markers=on") != std::string::npos) {
        ++crashes_;
        down_until_ = std::chrono::steady_clock::now().time_since_epoch().count() +
                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(300ms).count();
      }
    });
  }
  ~CrashingInitiator() { iut_.stop(); }
  int crashes() const { return crashes_; }
  Connector connector() {
    return [this](const Case& c, std::string& error) -> int {
      Listener l;
      if (!listen_on("127.0.0.1", 0, l, error)) return -1;
      const auto port = static_cast<std::uint16_t>(std::stoi(l.address.substr(l.address.rfind(':') + 1)));
      serving_.wait_idle(2000ms);
      if (std::chrono::steady_clock::now().time_since_epoch().count() >= down_until_) {
        InitiatorProfile profile;
        profile.rev2_peer_to_peer = c.needs_item("rev2");
        serving_.started_by([&] { iut_.connect("127.0.0.1", port, false, profile); });
      }
      return accept_connector(l, 1000ms)(c, error);
    };
  }

 private:
  test_support::ServingThreads serving_;  // before iut_: its threads report to it until iut_ stops
  ReferenceIut iut_;
  std::atomic<std::int64_t> down_until_{0};
  std::atomic<int> crashes_{0};
};

FuzzOptions initiator_options(Connector connect) {
  FuzzOptions o;
  o.connect = std::move(connect);
  o.shape.target = FuzzTarget::kMpaInitiator;
  o.seeds = seeds_of(FuzzTarget::kMpaInitiator);
  o.time_scale = 0.25;
  o.revive = 5000ms;
  return o;
}

TEST(FuzzTargets, TheCleanReferenceInitiatorYieldsNoFinding) {
  CrashingInitiator iut(false);
  FuzzOptions o = initiator_options(iut.connector());
  o.seed = 4;
  o.iterations = 120;
  const FuzzSummary s = run_fuzz(o);
  EXPECT_EQ(s.target, FuzzTarget::kMpaInitiator);
  EXPECT_EQ(s.progress.iterations, 120u);
  EXPECT_EQ(s.stopped, "iterations");
  for (const Finding& f : s.findings) ADD_FAILURE() << f.signature << ": " << f.what << "\n" << f.found_script;
  EXPECT_LT(s.progress.skipped, 30u);
}

TEST(FuzzTargets, AnInitiatorThatStopsConnectingIsFoundMinimizedAndReproduced) {
  CrashingInitiator iut(true);
  FuzzOptions o = initiator_options(iut.connector());
  o.seeds = {&by_id("mpa-initiator-sends-first-fpdu")};
  o.iterations = 150;
  const FuzzSummary s = run_fuzz(o);
  std::string found;
  for (const Finding& g : s.findings) found += "\n  " + g.signature;
  ASSERT_EQ(s.findings.size(), 1u) << s.stopped << ", skipped " << s.progress.skipped << found;
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_TRUE(f.reproduced) << f.script;
  EXPECT_EQ(f.signature, "stops answering after > mpa.reply m") << f.script;
  // Run alone, the script fails at its liveness check: nobody connected.
  RunOptions ro;
  ro.accept_initiator = iut.connector();
  ro.time_scale = 0.25;
  const Case min = parse_one(f.script, "mpa");
  std::this_thread::sleep_for(400ms);
  const int before = iut.crashes();
  const CaseResult r = run_case(min, ro);
  EXPECT_GE(r.failed_line, min.steps[liveness_step(min)].line) << r.reason;
  EXPECT_EQ(iut.crashes(), before + 1);
}

// The reference CLC server behind a relay that "crashes" when a Proposal
// (type 1) comes with a version above 2 in its header (RFC 7609 App. A.1:
// the version nibble of octet 7): the relay drops every connection and
// refuses new ones for 300 ms, then listens again. One thread polls every
// connection and the listener, and reads what the connections carry before
// it accepts: what the tester sent before it opened its next connection is
// judged before that connection is let in, however loaded the machine.
//
// Whether the tester's next connection is refused, or taken by the listener
// and then reset, depends on when the dying thread closes the listener: a
// loaded host may run the tester's connect and Proposal first. With
// `listener_outlives_crash` the relay makes the second order certain: it
// dies only once it took the next connection and that connection's
// Proposal arrived, which it closes unread (a reset), as a server whose
// listening socket outlives its crash for a moment (a process still
// exiting) does.
class CrashingClcServer {
 public:
  explicit CrashingClcServer(bool listener_outlives_crash = false) : listener_outlives_crash_(listener_outlives_crash) {
    std::string error;
    EXPECT_TRUE(iut_.listen_clc("127.0.0.1", 0, error)) << error;
    listen(0);
    thread_ = std::thread([this] { run(); });
  }
  ~CrashingClcServer() {
    stop_ = true;
    thread_.join();
    drop_all();
    if (fd_ >= 0) ::close(fd_);
    iut_.stop();
  }
  std::uint16_t port() const { return port_; }
  int crashes() const { return crashes_; }
  // Every octet the tester sent, on every connection.
  std::vector<std::uint8_t> sent() const {
    std::lock_guard lock(mu_);
    return sent_;
  }

 private:
  struct Pair {
    int client = -1, server = -1;
    std::vector<std::uint8_t> from_client;
  };
  void listen(std::uint16_t port) {
    const test_support::LoopbackListener l = test_support::listen_loopback(port);
    fd_ = l.fd;
    port_ = l.port;
  }
  void drop_all() {
    for (Pair& p : pairs_) {
      ::close(p.client);
      if (p.server >= 0) ::close(p.server);
    }
    pairs_.clear();
  }
  static bool deadly(const std::vector<std::uint8_t>& in) {
    static constexpr std::uint8_t kSmcr[] = {0xe2, 0xd4, 0xc3, 0xd9};  // "SMCR" in EBCDIC
    for (std::size_t i = 0; i + 8 <= in.size(); ++i)
      if (std::equal(std::begin(kSmcr), std::end(kSmcr), in.begin() + static_cast<std::ptrdiff_t>(i)) && in[i + 4] == 1 &&
          (in[i + 7] >> 4) > 2)
        return true;
    return false;
  }
  // Forwards what one side sent; false when that connection is done.
  bool forward(Pair& p, bool from_client) {
    std::uint8_t buf[16384];
    const ssize_t n = ::recv(from_client ? p.client : p.server, buf, sizeof buf, 0);
    if (n <= 0) return false;
    if (from_client) {
      p.from_client.insert(p.from_client.end(), buf, buf + n);
      {
        std::lock_guard lock(mu_);
        sent_.insert(sent_.end(), buf, buf + n);
      }
      if (deadly(p.from_client)) {
        crashed_ = true;
        return false;
      }
    }
    return ::send(from_client ? p.server : p.client, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) == n;
  }
  void run() {
    while (!stop_) {
      if (crashed_) {
        if (listener_outlives_crash_) {
          // The next connection is taken, and its first message read into
          // the socket, before the crash resets it (each wait bounded: a
          // run that opens none still sees the crash).
          pollfd next{fd_, POLLIN, 0};
          if (::poll(&next, 1, 2000) > 0) {
            if (const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); c >= 0) {
              pollfd sent{c, POLLIN, 0};
              (void)::poll(&sent, 1, 2000);
              pairs_.push_back({c, -1, {}});  // closed with its octets unread: a reset
            }
          }
        }
        ++crashes_;
        drop_all();
        ::close(fd_);  // pending connections are reset with it
        std::this_thread::sleep_for(300ms);
        crashed_ = false;
        listen(port_);
        continue;
      }
      std::vector<pollfd> fds;
      for (const Pair& p : pairs_) {
        fds.push_back({p.client, POLLIN, 0});
        fds.push_back({p.server, POLLIN, 0});
      }
      fds.push_back({fd_, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
      // The connections' data first, then a new connection.
      for (std::size_t k = 0; k < pairs_.size() && !crashed_;) {
        const bool done = ((fds[2 * k].revents != 0) && !forward(pairs_[k], true)) ||
                          ((fds[2 * k + 1].revents != 0) && !crashed_ && !forward(pairs_[k], false));
        if (!done) {
          ++k;
          continue;
        }
        ::close(pairs_[k].client);
        ::close(pairs_[k].server);
        pairs_.erase(pairs_.begin() + static_cast<std::ptrdiff_t>(k));
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(2 * k), fds.begin() + static_cast<std::ptrdiff_t>(2 * k + 2));
      }
      if (crashed_ || fds.back().revents == 0) continue;
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      const int u = tcp_connector("127.0.0.1", iut_.clc_port(), 1000ms)(Case{}, error_);
      if (u < 0) {
        ::close(c);
        continue;
      }
      pairs_.push_back({c, u, {}});
    }
  }

  const bool listener_outlives_crash_;
  ReferenceIut iut_;
  int fd_ = -1;
  std::vector<Pair> pairs_;  // the relay thread's
  std::atomic<std::uint16_t> port_{0};
  std::atomic<bool> crashed_{false}, stop_{false};
  std::atomic<int> crashes_{0};
  std::string error_;
  mutable std::mutex mu_;
  std::vector<std::uint8_t> sent_;
  std::thread thread_;
};

FuzzOptions clc_options(std::uint16_t port, std::vector<const Case*> seeds) {
  FuzzOptions o;
  o.connect = tcp_connector("127.0.0.1", port, 2000ms);
  o.shape.target = FuzzTarget::kClcServer;
  o.seeds = std::move(seeds);
  o.time_scale = 0.25;
  o.revive = 5000ms;
  return o;
}

TEST(FuzzTargets, TheCleanReferenceClcServerYieldsNoFinding) {
  ReferenceIut iut;
  std::string error;
  ASSERT_TRUE(iut.listen_clc("127.0.0.1", 0, error)) << error;
  FuzzOptions o = clc_options(iut.clc_port(), seeds_of(FuzzTarget::kClcServer));
  o.seed = 6;
  o.iterations = 150;
  const FuzzSummary s = run_fuzz(o);
  iut.stop();
  EXPECT_EQ(s.target, FuzzTarget::kClcServer);
  EXPECT_EQ(s.progress.iterations, 150u);
  EXPECT_EQ(s.stopped, "iterations");
  for (const Finding& f : s.findings) ADD_FAILURE() << f.signature << ": " << f.what << "\n" << f.found_script;
  EXPECT_LT(s.progress.skipped, 40u);
}

// Fuzzing from clc-confirm-accepted-v1 finds the deadly version, minimizes
// it to the Proposal alone and reproduces it; the script alone fails at its
// liveness check.
void expect_the_deadly_version_found(CrashingClcServer& server) {
  FuzzOptions o = clc_options(server.port(), {&by_id("clc-confirm-accepted-v1")});
  o.iterations = 200;
  const FuzzSummary s = run_fuzz(o);
  // Other Proposals can carry the deadly octets too (appended, or what a
  // truncated one leaves where the header was): each its own signature.
  auto version = std::find_if(s.findings.begin(), s.findings.end(), [](const Finding& f) {
    return f.signature == "stops answering after > clc.proposal version";
  });
  std::string found;
  for (const Finding& g : s.findings) found += "\n  " + g.signature;
  ASSERT_NE(version, s.findings.end()) << s.stopped << ", " << s.findings.size() << " findings:" << found;
  for (const Finding& g : s.findings) EXPECT_EQ(g.kind, Finding::Kind::kUnresponsive) << g.signature;
  const Finding& f = *version;
  EXPECT_TRUE(f.reproduced) << f.script;
  // Minimized to the Proposal alone, its version the smallest that kills.
  EXPECT_NE(f.script.find("\n> clc.proposal version=3\n"), std::string::npos) << f.script;
  const Case min = parse_one(f.script, "clc");
  ASSERT_EQ(send_steps(min).size(), 1u) << f.script;
  // Run alone, it fails at its liveness check, whether that connection was
  // refused or reset.
  RunOptions ro;
  ro.connect_clc = tcp_connector("127.0.0.1", server.port(), 2000ms);
  ro.time_scale = 1.0;
  std::this_thread::sleep_for(400ms);
  const int before = server.crashes();
  const CaseResult r = run_case(min, ro);
  EXPECT_GE(r.failed_line, min.steps[liveness_step(min)].line) << r.reason;
  // The liveness check failed after the relay counted its crash.
  EXPECT_EQ(server.crashes(), before + 1);
}

TEST(FuzzTargets, AClcServerThatDiesOfAProposalIsFoundMinimizedAndReproduced) {
  CrashingClcServer server;
  expect_the_deadly_version_found(server);
}

// The liveness check's connection taken by the dying server's listener and
// then reset, on every run: the server did not answer (docs/fuzzing.md, the
// oracles), whichever order a loaded host ran the crash and the connect in.
TEST(FuzzTargets, AClcServerWhoseListenerOutlivesItsCrashIsFoundMinimizedAndReproduced) {
  CrashingClcServer server(true);
  expect_the_deadly_version_found(server);
}

// A real SMC server judges the identity a Proposal carries (RFC 7609
// §3.5.1.2: the prefix; SMC v2: the EID, the GID it must route to), so the
// identity given to the fuzzer is the one every Proposal carries: the fuzz
// cases' and the liveness checks'.
TEST(FuzzTargets, TheClcIdentityGivenIsTheOneOnTheWire) {
  CrashingClcServer server;  // a relay here: what it forwards is kept
  // A Proposal offering v1 and v2: the v1 prefix, GID and MAC, the v2 EID.
  FuzzOptions o = clc_options(server.port(), {&by_id("clc-accept-v2-header")});
  o.iterations = 4;
  o.minimize_budget = 2;
  o.clc_identity.eid = "RDMACONF-FUZZ-EID";
  o.clc_identity.ipv4 = clc::Ipv4Prefix{0xc6336400, 24};  // 198.51.100.0/24
  o.clc_identity.gid = clc::Gid{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0};
  o.clc_identity.mac = clc::Mac{0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
  const FuzzSummary s = run_fuzz(o);
  EXPECT_EQ(s.progress.iterations, 4u) << s.stopped;
  const std::vector<std::uint8_t> sent = server.sent();
  auto carries = [&sent](std::vector<std::uint8_t> octets) {
    return std::search(sent.begin(), sent.end(), octets.begin(), octets.end()) != sent.end();
  };
  auto text = [](std::string_view t) { return std::vector<std::uint8_t>(t.begin(), t.end()); };
  EXPECT_TRUE(carries(text("RDMACONF-FUZZ-EID")));
  EXPECT_FALSE(carries(text("RDMACONF-TEST-EID")));  // the default is gone
  EXPECT_TRUE(carries({0xc6, 0x33, 0x64, 0x00, 24}));  // App. A.2.2: the prefix and its length
  EXPECT_TRUE(carries({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0}));
  EXPECT_TRUE(carries({0x02, 0x11, 0x22, 0x33, 0x44, 0x55}));
}

}  // namespace
}  // namespace rdmaconf::conformance::wirefuzz
