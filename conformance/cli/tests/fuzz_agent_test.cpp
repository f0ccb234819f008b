// The host oracle of `rdmaconf fuzz --agent` (fuzz_agent.hpp) against a fake
// agent over loopback: the agent's own control channel with a backend that
// only reports events and a kernel log the test writes. A device-wide async
// event, a kernel crash (lasting until the host boots again) and an agent
// that went away are each a problem; a queue pair in error is not.
#include <gtest/gtest.h>

#include <mutex>

#include "agent/control.hpp"
#include "agent/server.hpp"
#include "cli/fuzz_agent.hpp"

namespace rdmaconf::cli {
namespace {

class EventsOnly : public agent::Backend {
 public:
  void set_event_sink(agent::EventSink s) override { sink = std::move(s); }
  agent::Capabilities capabilities() override { return {}; }
  agent::Outcome<agent::Handle> listen(const agent::ListenRequest&) override { return {}; }
  agent::Outcome<agent::Handle> connect(const agent::ConnectRequest&) override { return {}; }
  agent::Outcome<agent::Handle> clc_listen(const agent::ClcListenRequest&) override { return {}; }
  agent::Outcome<agent::Handle> clc_connect(const agent::ClcConnectRequest&) override { return {}; }
  agent::Outcome<bool> close(std::uint64_t) override { return {}; }
  void stop() override {}
  void async(const std::string& name) {
    agent::Event e;
    e.kind = agent::EventKind::kAsync;
    e.name = name;
    e.detail = "test";
    sink(e);
  }
  agent::EventSink sink;
};

struct FakeKernel {
  std::mutex mu;
  std::string boot = "boot-1";
  std::vector<std::string> lines;
  void log(std::initializer_list<std::string> l) {
    std::lock_guard lock(mu);
    lines.insert(lines.end(), l);
  }
  void reboot() {
    std::lock_guard lock(mu);
    boot = "boot-2";
    lines.clear();
  }
  agent::KernelLogPage page(std::uint64_t after, std::size_t max) {
    std::lock_guard lock(mu);
    agent::KernelLogPage p;
    p.available = true;
    p.boot_id = boot;
    p.next = after;
    for (std::size_t i = after; i < lines.size() && p.lines.size() < max; ++i) {
      p.lines.emplace_back(i + 1, lines[i]);
      p.next = i + 1;
    }
    return p;
  }
};

struct FakeAgent {
  EventsOnly backend;
  FakeKernel kernel;
  agent::Control control{backend, "tok"};
  std::unique_ptr<agent::Server> server;
  explicit FakeAgent(bool with_log = true) {
    if (with_log) control.set_kernel_log([this](std::uint64_t a, std::size_t m) { return kernel.page(a, m); });
    agent::ServerOptions o;
    o.port = 0;
    server = std::make_unique<agent::Server>(control, o);
    std::string error;
    EXPECT_TRUE(server->start(error)) << error;
  }
  agent::AgentUrl url() const { return {"127.0.0.1", server->port()}; }
};

const std::initializer_list<std::string> kSplat = {
    "[  10.0] BUG: kernel NULL pointer dereference, address: 00000000000003e0",
    "[  10.1] RIP: 0010:siw_rtr_data_ready+0x3a/0xb0 [siw]", "[  10.2] Call Trace:", "[  10.3]  <IRQ>",
    "[  10.4]  tcp_data_queue+0x6b4/0xd90", "[  10.5]  ---[ end trace 0000000000000000 ]---"};

TEST(AgentHealth, AKernelCrashLastsUntilTheHostBootsAgain) {
  FakeAgent fake;
  fake.kernel.log({"[   1.0] before the run: BUG: an old one"});
  AgentHealth h(fake.url(), "tok");
  std::string note, error;
  ASSERT_TRUE(h.open(note, error)) << error;
  EXPECT_NE(note.find("kernel log"), std::string::npos);
  EXPECT_FALSE(h.check());  // what the log held before the run is not this run's
  fake.kernel.log({"[   9.0] siw: something harmless"});
  EXPECT_FALSE(h.check());
  fake.kernel.log(kSplat);
  auto p = h.check();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature, "kernel: BUG: kernel NULL pointer dereference in siw_rtr_data_ready <- tcp_data_queue");
  EXPECT_FALSE(p->log.empty());
  ASSERT_TRUE(h.check());  // still broken: nothing after a crash is trusted
  fake.kernel.reboot();
  EXPECT_FALSE(h.check());
}

TEST(AgentHealth, DeviceWideEventsAreProblemsQueuePairErrorsAreNot) {
  FakeAgent fake(false);
  fake.backend.async("qp_fatal");  // before the run
  AgentHealth h(fake.url(), "tok");
  std::string note, error;
  ASSERT_TRUE(h.open(note, error)) << error;
  EXPECT_NE(note.find("no kernel log"), std::string::npos) << note;
  EXPECT_FALSE(h.check());
  fake.backend.async("qp_fatal");
  fake.backend.async("qp_access_error");
  EXPECT_FALSE(h.check());
  fake.backend.async("device_fatal");
  auto p = h.check();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature, "device: device_fatal");
  EXPECT_EQ(p->what, "the device reported device_fatal (test)");
  EXPECT_FALSE(h.check());  // an event is reported once
}

TEST(AgentHealth, AnAgentThatWentAwayIsAProblem) {
  auto fake = std::make_unique<FakeAgent>();
  AgentHealth h(fake->url(), "tok");
  std::string note, error;
  ASSERT_TRUE(h.open(note, error)) << error;
  EXPECT_FALSE(h.check());
  fake->server->stop();
  auto p = h.check();
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature, "agent gone");
}

TEST(AgentHealth, AWrongTokenDoesNotOpen) {
  FakeAgent fake;
  AgentHealth h(fake.url(), "wrong");
  std::string note, error;
  EXPECT_FALSE(h.open(note, error));
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace rdmaconf::cli
