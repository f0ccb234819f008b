// Live exchanges on loopback: two reference endpoints talk through a
// recording relay; the capture it writes is analyzed (no violations, counts
// equal to the operations sent), then replayed against a fresh reference
// responder (every answer matches), and against one configured differently
// (the differences are found). As root, `rdmaconf analyze -i lo` captures a
// session between two reference endpoints live.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <future>
#include <thread>

#include "analysis/analyzer.hpp"
#include "capture/source.hpp"
#include "endpoint/iwarp_endpoint.hpp"
#include "replay/replay.hpp"

namespace rdmaconf::analysis::testing {
namespace {

using namespace std::chrono_literals;
using endpoint::IwarpConfig;
using endpoint::IwarpEndpoint;
namespace asio = boost::asio;
using asio::ip::tcp;

// The responder's side of the scenario: one region and posted receives,
// set up identically each time so that STags and buffers line up.
struct Responder {
  explicit Responder(IwarpConfig cfg) : ep(std::make_unique<IwarpEndpoint>(cfg)) {
    const auto rights = ddp::Access::kLocalRead | ddp::Access::kLocalWrite | ddp::Access::kRemoteRead |
                        ddp::Access::kRemoteWrite | ddp::Access::kRemoteAtomic;
    stag = ep->register_memory(region, 0x4000, rights);
    for (std::size_t i = 0; i < rx.size(); ++i) ep->post_receive(10 + i, rx[i]);
  }
  std::vector<std::uint8_t> region = std::vector<std::uint8_t>(16384, 0);
  std::vector<std::vector<std::uint8_t>> rx = std::vector<std::vector<std::uint8_t>>(8, std::vector<std::uint8_t>(4096));
  std::unique_ptr<IwarpEndpoint> ep;
  ddp::Stag stag{};
};

IwarpConfig config(bool markers) {
  IwarpConfig c;
  c.mpa.want_markers = markers;
  c.fpdu_budget = 700;
  c.negotiation_timeout = 5s;
  return c;
}

bool completes(IwarpEndpoint& ep) {
  auto c = ep.wait_completion(5s);
  return c && c->status == rdmap::CompletionStatus::kSuccess;
}

// Initiator: 3 Sends, 2 Writes, 2 Reads, 1 Atomic, 1 Immediate Data.
void run_operations(IwarpEndpoint& ini, ddp::Stag remote) {
  std::vector<std::uint8_t> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> sink(8192);
  const ddp::Stag sink_stag = ini.register_memory(sink, 0, ddp::Access::kLocalWrite);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(ini.post_send(static_cast<rdmap::WorkRequestId>(i), wire::Bytes(data).first(100u + i * 1000u)).ok());
    ASSERT_TRUE(completes(ini));
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(ini.post_write(10 + i, data, remote, 0x4000 + i * 4000u).ok());
    ASSERT_TRUE(completes(ini));
  }
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(ini.post_read(20 + i, {.sink_stag = sink_stag, .sink_to = 0, .size = 2500u + i,
                                       .source_stag = remote, .source_to = 0x4000})
                    .ok());
    ASSERT_TRUE(completes(ini));
  }
  ASSERT_TRUE(ini.post_atomic(30, {.op = rdmap::AtomicOpcode::kFetchAdd, .remote_stag = remote,
                                   .remote_to = 0x4000 + 8192, .add_or_swap_data = 1})
                  .ok());
  ASSERT_TRUE(completes(ini));
  ASSERT_TRUE(ini.post_immediate(40, 0x55).ok());
  ASSERT_TRUE(completes(ini));
}

// Records initiator <-> relay <-> responder into `path`.
void record_session(const std::string& path, bool markers) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  Responder rsp(config(markers));
  replay::RecordingRelay relay("127.0.0.1", acceptor.local_endpoint().port(), path);
  auto accepted = std::async(std::launch::async, [&] { return rsp.ep->accept(acceptor); });
  IwarpEndpoint ini(config(markers));
  ASSERT_TRUE(ini.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), relay.port()))) << ini.failure();
  ASSERT_TRUE(accepted.get());
  run_operations(ini, rsp.stag);
  ini.close();
  rsp.ep->wait_closed(3s);
  relay.stop();
}

TEST(LiveAnalysis, RecordedLoopbackSessionHasNoViolationsAndExactCounts) {
  for (bool markers : {false, true}) {
    const std::string path = ::testing::TempDir() + (markers ? "live-markers.pcapng" : "live.pcapng");
    record_session(path, markers);
    std::string error;
    auto r = analyze_file(path, AnalysisOptions{}, nullptr, error);
    ASSERT_TRUE(r) << error;
    std::string dump;
    for (const ViolationRecord& v : r->violations) dump += std::string(v.rule->id) + ": " + v.text + "\n";
    EXPECT_EQ(r->summary.violations, 0u) << dump;
    EXPECT_EQ(r->summary.mpa_connections, 1u);
    EXPECT_EQ(r->summary.mpa_frames, 2u);
    EXPECT_EQ(r->summary.rdmap_messages[0x3], 3u) << "Sends";
    EXPECT_EQ(r->summary.rdmap_messages[0x0], 2u) << "RDMA Writes";
    EXPECT_EQ(r->summary.rdmap_messages[0x1], 2u) << "Read Requests";
    EXPECT_EQ(r->summary.rdmap_messages[0x2], 2u) << "Read Responses";
    EXPECT_EQ(r->summary.rdmap_messages[0xa], 1u) << "Atomic Requests";
    EXPECT_EQ(r->summary.rdmap_messages[0xb], 1u) << "Atomic Responses";
    EXPECT_EQ(r->summary.rdmap_messages[0x8], 1u) << "Immediate Data";
    EXPECT_EQ(r->summary.resyncs, 0u);
  }
}

replay::ReplayResult replay_against(const std::string& path, IwarpConfig cfg) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  Responder rsp(cfg);
  auto accepted = std::async(std::launch::async, [&] { return rsp.ep->accept(acceptor); });
  replay::ReplayOptions o;
  o.capture = path;
  o.port = acceptor.local_endpoint().port();
  o.answer_timeout = 2000ms;
  replay::ReplayResult r = replay::replay(o);
  accepted.get();
  return r;
}

TEST(LiveAnalysis, ReplayAgainstALiveReferenceResponder) {
  const std::string path = ::testing::TempDir() + "replay-source.pcapng";
  record_session(path, false);
  const replay::ReplayResult same = replay_against(path, config(false));
  ASSERT_TRUE(same.setup_ok) << same.error;
  std::string diffs;
  for (const auto& d : same.differences) diffs += d.field + ": " + d.recorded + " / " + d.live + "\n";
  EXPECT_TRUE(same.ok()) << diffs;
  EXPECT_GT(same.expected_messages, 5u);
  EXPECT_EQ(same.matched_messages, same.expected_messages);
  EXPECT_TRUE(same.live_violations.empty());

  // A responder that asks for Markers answers with a different Reply (M=1);
  // the replayed initiator's FPDUs then lack the Markers it wants.
  const replay::ReplayResult other = replay_against(path, config(true));
  ASSERT_TRUE(other.setup_ok) << other.error;
  EXPECT_FALSE(other.ok());
  ASSERT_FALSE(other.differences.empty());
  EXPECT_EQ(other.differences.front().index, 0u);
  EXPECT_EQ(other.differences.front().field, "m");
}

// `rdmaconf analyze -i lo`: the CLI captures the loopback interface (root
// only) while the test runs a session between two reference endpoints, is
// stopped with SIGINT, and reports the session's messages. Bounded: the
// capture also stops by itself after --duration.

// Skips the calling test unless this process may capture on lo. Root is
// not always enough (a container without CAP_NET_RAW): libpcap is asked the
// same way the CLI will ask, and the reason is given when it refuses.
#define SKIP_UNLESS_LOOPBACK_CAPTURE()                                                      \
  do {                                                                                      \
    if (::geteuid() != 0) GTEST_SKIP() << "live capture needs root (CAP_NET_RAW)";          \
    std::string why;                                                                        \
    if (!capture::PacketSource::open_live("lo", "", capture::LiveOptions{}, why))           \
      GTEST_SKIP() << "cannot capture on lo: " << why;                                      \
  } while (false)

// `rdmaconf analyze -q -i lo --filter ... --json FILE [extra]` as a child
// process, started once it says it is capturing, stopped with SIGINT.
class LiveCli {
 public:
  LiveCli(const std::string& filter, std::vector<std::string> extra)
      : json_(::testing::TempDir() + "live-lo-" + std::to_string(::getpid()) + ".json") {
    std::remove(json_.c_str());
    // argv is built before fork: no allocation in the child.
    args_ = {RDMACONF_CLI, "analyze", "-q", "-i", "lo", "--filter", filter, "--duration", "60", "--json", json_};
    args_.insert(args_.end(), extra.begin(), extra.end());
    std::vector<char*> argv;
    for (std::string& a : args_) argv.push_back(a.data());
    argv.push_back(nullptr);
    int err[2];
    if (::pipe(err) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(err[1], 2);
      ::close(err[0]);
      ::execv(RDMACONF_CLI, argv.data());
      ::_exit(127);
    }
    ::close(err[1]);
    err_ = err[0];
    // Wait (at most 10 s) until the CLI says it is capturing.
    pollfd p{err_, POLLIN, 0};
    while (!capturing() && ::poll(&p, 1, 10000) > 0) {
      char buf[256];
      const ssize_t n = ::read(err_, buf, sizeof buf);
      if (n <= 0) break;
      said_.append(buf, static_cast<std::size_t>(n));
    }
  }
  ~LiveCli() {
    if (pid_ > 0 && !stopped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (err_ >= 0) ::close(err_);
  }
  bool capturing() const { return said_.find("capturing on lo") != std::string::npos; }
  pid_t pid() const { return pid_; }
  const std::string& said() const { return said_; }

  // SIGINT, then the exit status (-1: it did not exit normally). The CLI
  // reads what the kernel captured before the interrupt, so no grace
  // period is needed before it.
  int stop() {
    ::kill(pid_, SIGINT);
    // Its stderr stays open to the end: a closed pipe would make a late
    // message kill it with SIGPIPE.
    for (char buf[256];;) {
      const ssize_t n = ::read(err_, buf, sizeof buf);
      if (n <= 0) break;
      said_.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    ::waitpid(pid_, &status, 0);
    stopped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string json() const {
    std::ifstream f(json_);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  }

 private:
  std::string json_;
  std::vector<std::string> args_;
  pid_t pid_ = -1;
  int err_ = -1;
  bool stopped_ = false;
  std::string said_;
};

// A session between two reference endpoints through `acceptor`.
void run_session(tcp::acceptor& acceptor) {
  Responder rsp(config(false));
  auto accepted = std::async(std::launch::async, [&] { return rsp.ep->accept(acceptor); });
  IwarpEndpoint ini(config(false));
  EXPECT_TRUE(ini.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), acceptor.local_endpoint().port())))
      << ini.failure();
  EXPECT_TRUE(accepted.get());
  run_operations(ini, rsp.stag);
  ini.close();
  rsp.ep->wait_closed(3s);
}

TEST(LiveAnalysis, AnalyzeLiveOnLoopback) {
  SKIP_UNLESS_LOOPBACK_CAPTURE();
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  LiveCli cli("tcp port " + std::to_string(acceptor.local_endpoint().port()), {});
  ASSERT_TRUE(cli.capturing()) << "rdmaconf analyze -i lo did not start: " << cli.said();
  run_session(acceptor);
  EXPECT_EQ(cli.stop(), 0) << cli.said();
  const std::string text = cli.json();
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["capture"], "live:lo") << text;
  EXPECT_EQ(j["summary"]["mpa_connections"], 1) << text;
  EXPECT_EQ(j["summary"]["mpa_frames"], 2) << text;
  EXPECT_EQ(j["summary"]["violations"], 0) << text;
  EXPECT_EQ(j["summary"]["kernel_drops"], 0) << text;
  EXPECT_EQ(j["rdmap_messages"]["Send"], 3) << text;
  EXPECT_EQ(j["rdmap_messages"]["RDMA Write"], 2) << text;
  EXPECT_EQ(j["rdmap_messages"]["RDMA Read Request"], 2) << text;
  EXPECT_EQ(j["rdmap_messages"]["RDMA Read Response"], 2) << text;
}

// Frames the kernel drops never pass silently: the CLI is frozen (SIGSTOP)
// with a 1 MiB ring while a session runs, so the ring overflows and the
// drops are counted. (Reassembly alone cannot always tell: when the last
// frames of a connection are the ones lost, no later frame shows the hole.)
TEST(LiveAnalysis, KernelDropsAreReported) {
  SKIP_UNLESS_LOOPBACK_CAPTURE();
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  LiveCli cli("tcp port " + std::to_string(acceptor.local_endpoint().port()), {"--buffer-size", "1"});
  ASSERT_TRUE(cli.capturing()) << "rdmaconf analyze -i lo did not start: " << cli.said();
  ASSERT_EQ(::kill(cli.pid(), SIGSTOP), 0);
  run_session(acceptor);
  ASSERT_EQ(::kill(cli.pid(), SIGCONT), 0);
  const int exit_code = cli.stop();
  EXPECT_TRUE(exit_code == 0 || exit_code == 1) << cli.said();
  const std::string text = cli.json();
  const auto j = nlohmann::json::parse(text);
  EXPECT_GT(j["summary"]["kernel_drops"].get<std::uint64_t>(), 0u) << text;
  EXPECT_EQ(j["capture_report_kinds"].value("frames dropped by the kernel", 0), 1) << text;
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
