// GET /v1/kernel-log (docs/agent.md): the control function with a kernel
// log and without one, and KernelLog reading a text file that grows (what
// it does with /dev/kmsg as well, one record per read).
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "agent/control.hpp"
#include "agent/kernel_log.hpp"

namespace rdmaconf::agent {
namespace {

using nlohmann::json;

class NoBackend : public Backend {
 public:
  void set_event_sink(EventSink) override {}
  Capabilities capabilities() override { return {}; }
  Outcome<Handle> listen(const ListenRequest&) override { return {}; }
  Outcome<Handle> connect(const ConnectRequest&) override { return {}; }
  Outcome<Handle> clc_listen(const ClcListenRequest&) override { return {}; }
  Outcome<Handle> clc_connect(const ClcConnectRequest&) override { return {}; }
  Outcome<bool> close(std::uint64_t) override { return {}; }
  void stop() override {}
};

json get(Control& c, const std::string& target, int status = 200) {
  const HttpResponse r = c.handle({"GET", target, "Bearer t", ""});
  EXPECT_EQ(r.status, status) << target << ": " << r.body;
  return json::parse(r.body);
}

TEST(KernelLogRequest, WithoutALogTheAgentSaysSo) {
  NoBackend b;
  Control c(b, "t");
  const json j = get(c, "/v1/kernel-log");
  EXPECT_EQ(j["available"], false);
  EXPECT_NE(j["reason"].get<std::string>().find("without a kernel log"), std::string::npos);
  EXPECT_EQ(c.handle({"GET", "/v1/kernel-log", "", ""}).status, 401);
  EXPECT_EQ(c.handle({"POST", "/v1/kernel-log", "Bearer t", ""}).status, 405);
  get(c, "/v1/kernel-log?after=x", 400);
}

TEST(KernelLogRequest, LinesAfterANumberAtMostMax) {
  NoBackend b;
  Control c(b, "t");
  std::uint64_t asked_after = 99;
  std::size_t asked_max = 0;
  c.set_kernel_log([&](std::uint64_t after, std::size_t max) {
    asked_after = after;
    asked_max = max;
    KernelLogPage p;
    p.available = true;
    p.boot_id = "b1";
    p.lines = {{after + 1, "[   1.0] BUG: kernel NULL pointer dereference"}, {after + 2, "[   1.1] \xff not UTF-8"}};
    p.next = after + 2;
    return p;
  });
  const json j = get(c, "/v1/kernel-log?after=5&max=999999");
  EXPECT_EQ(asked_after, 5u);
  EXPECT_EQ(asked_max, ControlLimits{}.max_events_per_poll);  // bounded
  EXPECT_EQ(j["available"], true);
  EXPECT_EQ(j["boot_id"], "b1");
  EXPECT_EQ(j["next"], 7);
  ASSERT_EQ(j["lines"].size(), 2u);
  EXPECT_EQ(j["lines"][0]["seq"], 6);
  EXPECT_EQ(j["lines"][0]["text"], "[   1.0] BUG: kernel NULL pointer dereference");
}

TEST(KernelLog, AFileThatGrowsGivesItsNewLinesOnly) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / ("kernel-log-test-" + std::to_string(::getpid()));
  {
    std::ofstream f(path);
    f << "[   0.5] before the agent started\n";
  }
  KernelLog log(path.string());
  ASSERT_EQ(log.unavailable(), "");
  EXPECT_TRUE(log.since(0, 100).lines.empty());
  {
    std::ofstream f(path, std::ios::app);
    f << "[   1.0] one\n[   2.0] two\n[   3.0] half";
  }
  KernelLogPage p = log.since(0, 100);
  ASSERT_EQ(p.lines.size(), 2u);
  EXPECT_EQ(p.lines[0], (std::pair<std::uint64_t, std::string>{1, "[   1.0] one"}));
  EXPECT_EQ(p.lines[1].second, "[   2.0] two");
  EXPECT_FALSE(p.boot_id.empty());
  {
    std::ofstream f(path, std::ios::app);
    f << " a line\n" << std::string(KernelLog::kLineLimit * 2, 'x') << "\n";
  }
  p = log.since(p.next, 1);
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].second, "[   3.0] half a line");
  p = log.since(p.next, 100);
  ASSERT_EQ(p.lines.size(), 1u);
  EXPECT_EQ(p.lines[0].second.size(), KernelLog::kLineLimit);  // cut, not grown without bound
  std::filesystem::remove(path);
}

TEST(KernelLog, AnUnreadableLogSaysWhy) {
  KernelLog log("/nonexistent/kmsg");
  EXPECT_NE(log.unavailable().find("/nonexistent/kmsg"), std::string::npos);
  const KernelLogPage p = log.since(0, 10);
  EXPECT_FALSE(p.available);
  EXPECT_EQ(p.reason, log.unavailable());
}

}  // namespace
}  // namespace rdmaconf::agent
