// The host oracle's reading of a kernel log (host_health.hpp): a splat as
// Linux 6.1 logged it when siw crashed the interop guest, a BUG() with its
// file and line, a lockup, and logs with nothing wrong in them.
#include <gtest/gtest.h>

#include "wirefuzz/host_health.hpp"

namespace rdmaconf::conformance::wirefuzz {
namespace {

// The first lines of guest/dmesg-boot1.txt of an interop run (the MPA Reply
// with PD_Length 600 against siw as initiator), abridged where marked.
const std::vector<std::string> kNullDereference = {
    "[  257.700001] siw: MPA reply error: vers 1, private len 600",
    "[  257.769460] BUG: kernel NULL pointer dereference, address: 0000000000000004",
    "[  257.770729] #PF: supervisor read access in kernel mode",
    "[  257.771814] Oops: 0000 [#1] PREEMPT SMP NOPTI",
    "[  257.772112] CPU: 0 PID: 9 Comm: kworker/u4:0 Tainted: G           OE      6.1.0-50-amd64 #1  Debian 6.1.176-1",
    "[  257.772759] Workqueue: siw_cm_wq siw_cm_work_handler [siw]",
    "[  257.772844] RIP: 0010:memcpy_erms+0x6/0x10",
    "[  257.772844] RSP: 0018:ff7fae4d40053c48 EFLAGS: 00000086",  // registers abridged
    "[  257.772844] Call Trace:",
    "[  257.772844]  <TASK>",
    "[  257.772844]  kmemdup+0x32/0x40",
    "[  257.772844]  cm_event_handler+0x1c6/0x240 [iw_cm]",
    "[  257.772844]  siw_cm_upcall+0x10a/0x1b0 [siw]",
    "[  257.772844]  siw_cm_work_handler+0x780/0xeb0 [siw]",
    "[  257.772844]  process_one_work+0x1c7/0x380",
    "[  257.772844]  ? rescuer_thread+0x3a0/0x3a0",
    "[  257.772844]  </TASK>",
    "[  257.772844] Modules linked in: smc tcp_diag inet_diag siw(OE) iw_cm ib_core",  // abridged
    "[  257.772844] CR2: 0000000000000004",
    "[  257.772844] ---[ end trace 0000000000000000 ]---",
    "[  257.772844] RIP: 0010:memcpy_erms+0x6/0x10",
};

TEST(KernelCrash, ANullDereferenceIsNamedByItsHeadlineAndStack) {
  const auto p = kernel_crash(kNullDereference);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature,
            "kernel: BUG: kernel NULL pointer dereference in memcpy_erms <- kmemdup <- cm_event_handler <- siw_cm_upcall");
  EXPECT_EQ(p->what, "the host's kernel logged BUG: kernel NULL pointer dereference, address: 0000000000000004");
  // The splat from its headline to its end marker, the line before it left out.
  ASSERT_FALSE(p->log.empty());
  EXPECT_EQ(p->log.front(), kNullDereference[1]);
  EXPECT_NE(p->log.back().find("---[ end trace"), std::string::npos);
}

TEST(KernelCrash, TheSameBugAtAnotherAddressAndTimeHasTheSameSignature) {
  std::vector<std::string> again = kNullDereference;
  again[1] = "[  105.886957] BUG: kernel NULL pointer dereference, address: 00000000000003e0";
  EXPECT_EQ(kernel_crash(again)->signature, kernel_crash(kNullDereference)->signature);
}

TEST(KernelCrash, ABugCallKeepsItsFileAndLine) {
  const std::vector<std::string> lines = {
      "[  300.1] ------------[ cut here ]------------",
      "[  300.2] kernel BUG at drivers/infiniband/core/iwcm.c:969!",
      "[  300.3] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI",
      "[  300.4] RIP: 0010:cm_work_handler.cold+0x5/0x7 [iw_cm]",
      "[  300.5] Call Trace:",
      "[  300.6]  <TASK>",
      "[  300.7]  process_one_work+0x1c7/0x380",
      "[  300.8]  worker_thread+0x4d/0x380",
      "[  300.9]  kthread+0xda/0x100",
      "[  300.9]  ret_from_fork+0x22/0x30",
  };
  const auto p = kernel_crash(lines);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature,
            "kernel: kernel BUG at drivers/infiniband/core/iwcm.c:969 in cm_work_handler <- process_one_work <- "
            "worker_thread <- kthread");
}

TEST(KernelCrash, ALockupLosesItsCpuAndDuration) {
  const auto p = kernel_crash({"watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [kworker/1:2:88]"});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->signature, "kernel: BUG: soft lockup");
}

TEST(KernelCrash, AHealthyLogHasNone) {
  EXPECT_FALSE(kernel_crash({}));
  EXPECT_FALSE(kernel_crash({"[    1.0] siw: loading out-of-tree module taints kernel.",
                             "[    2.0] siw: MPA reply error: vers 1, private len 600",
                             "[    3.0] iw_cm: some debug BUGfix text without the colon"}));
}

TEST(DeviceHealth, OnlyDeviceWideEventsCount) {
  EXPECT_TRUE(device_unhealthy("device_fatal"));
  EXPECT_TRUE(device_unhealthy("port_error"));
  EXPECT_TRUE(device_unhealthy("cq_error"));
  // A queue pair in error is how a device answers a bad input.
  EXPECT_FALSE(device_unhealthy("qp_fatal"));
  EXPECT_FALSE(device_unhealthy("qp_access_error"));
  EXPECT_FALSE(device_unhealthy("terminate_sent"));
}

}  // namespace
}  // namespace rdmaconf::conformance::wirefuzz
