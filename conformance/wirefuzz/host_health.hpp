// The IUT's host as an oracle of `rdmaconf fuzz --agent` (docs/fuzzing.md,
// "Through the device agent"): besides what the IUT says on the wire, its
// host can show that an input broke it: the kernel logs a BUG, an Oops or a
// panic, the device reports itself broken, the agent on the host is gone.
// Standard C++ only: what reads the agent lives in the command
// (conformance/cli/fuzz_agent.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace rdmaconf::conformance::wirefuzz {

// Why the host is not healthy. `signature` is what merges findings and what
// a minimized input must bring about again: for a kernel crash its headline
// and the top of its stack, so that two inputs that crash the same code path
// are one finding.
struct HostProblem {
  std::string what;       // one line for the console and the finding's comment
  std::string signature;  // "kernel: BUG: ... in f <- g <- h", "device: device_fatal", "agent gone"
  std::vector<std::string> log;  // the kernel's lines about it (its splat), when there are any
};

// The first crash in `lines` (dmesg's form: "[   12.345678] text", or
// without the time): a line with `BUG:`, `kernel BUG at`, `Oops:`,
// `general protection fault` or `Kernel panic`, and the splat after it. The
// signature names the headline without addresses, the function the
// instruction pointer was in (`RIP:`) and the first calls of the trace
// (entries marked `?` are guesses of the unwinder and left out).
std::optional<HostProblem> kernel_crash(const std::vector<std::string>& lines);

// The device's async events that say the device itself, not one queue pair,
// is broken (a queue pair going to error is the expected answer to a bad
// input): verbs' device_fatal, port_error, cq_error.
bool device_unhealthy(const std::string& async_event_name);

}  // namespace rdmaconf::conformance::wirefuzz
