#include "engine/mutation.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <cstdio>
#include <thread>

#include "engine/responder.hpp"
#include "engine/smcr_memory.hpp"

namespace rdmaconf::conformance {
namespace {
// Faulty configurations run at once (see run_mutation).
constexpr unsigned kConcurrentConfigurations = 4;
}  // namespace

bool MutationResult::ok() const {
  if (!clean_failures.empty() || !catching_nothing.empty() || !stale_uncaught.empty()) return false;
  return std::all_of(faults.begin(), faults.end(), [](const FaultRow& r) { return !r.caught_by.empty(); });
}

RunOptions reference_options(ReferenceIut& iut, RunOptions o) {
  o.connect_responder = tcp_connector("127.0.0.1", iut.port(), std::chrono::milliseconds(2000));
  o.connect_clc = tcp_connector("127.0.0.1", iut.clc_port(), std::chrono::milliseconds(2000));
  // Initiator role: a listener per case, and the reference connects to it.
  o.accept_initiator = [&iut](const Case& c, std::string& error) -> int {
    Listener l;
    if (!listen_on("127.0.0.1", 0, l, error)) return -1;
    const std::uint16_t port = static_cast<std::uint16_t>(std::stoi(l.address.substr(l.address.rfind(':') + 1)));
    InitiatorProfile profile;
    profile.rev2_peer_to_peer = c.needs_item("rev2");
    iut.connect("127.0.0.1", port, uses_clc(c.protocol), profile);
    return accept_connector(l, std::chrono::milliseconds(2000))(c, error);
  };
  o.initiator_parallel = true;
  o.roce = memory_roce_factory();
  o.tcp_reset_sent = memory_tcp_reset_sent();
  o.sctp = memory_sctp_factory(iut.faults());
  return o;
}

void observe(ReferenceIut& iut, AgentView& view) {
  iut.set_observer([&view](const IutEvent& e) {
    static constexpr const char* kKinds[] = {"connection", "completion", "async"};
    view.add({0, kKinds[static_cast<int>(e.kind)], e.name, e.status, e.byte_len, e.detail, e.local, e.peer});
  });
}

MutationResult run_mutation(const std::vector<const Case*>& cases, RunOptions base,
                            const std::vector<const FaultInfo*>& faults,
                            std::function<void(const std::string&)> progress) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  MutationResult out;
  auto run_with = [&](FaultSet fs) {
    AgentView view;  // outlives the IUT that reports into it
    ReferenceIut iut(fs);
    observe(iut, view);
    RunOptions with_view = base;
    with_view.agent = &view;
    std::string error;
    if (!iut.listen("127.0.0.1", 0, error) || !iut.listen_clc("127.0.0.1", 0, error)) {
      std::vector<CaseResult> rs(cases.size());
      for (std::size_t i = 0; i < cases.size(); ++i) {
        rs[i].c = cases[i];
        rs[i].verdict = Verdict::kError;
        rs[i].reason = error;
      }
      return rs;
    }
    auto rs = run_cases(cases, reference_options(iut, with_view));
    iut.stop();
    return rs;
  };
  out.clean = run_with({});
  std::vector<int> catches(cases.size(), 0);
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (out.clean[i].verdict != Verdict::kPass) out.clean_failures.push_back(cases[i]);
  // A case catches a fault with its own steps: rules broken in passing
  // (in_passing.hpp) fail many cases for one fault, which proves the
  // observer's rules, not the case's.
  if (progress) progress("clean reference: " + std::to_string(cases.size() - out.clean_failures.size()) + "/" +
                         std::to_string(cases.size()) + " pass");
  // The faulty configurations are independent, each with its own IUT and
  // ports, and mostly wait on the network (handshake timers, silence
  // windows), so a few run at once.
  std::vector<std::vector<CaseResult>> per_fault(faults.size());
  std::vector<double> wall_ms(faults.size());
  std::atomic<std::size_t> next{0};
  std::mutex progress_mu;
  auto worker = [&] {
    for (std::size_t k; (k = next++) < faults.size();) {
      const auto t = Clock::now();
      FaultSet fs;
      fs.set(faults[k]->id);
      per_fault[k] = run_with(fs);
      wall_ms[k] = std::chrono::duration<double, std::milli>(Clock::now() - t).count();
      if (progress) {
        std::lock_guard lock(progress_mu);
        progress(std::string(faults[k]->name) + ": ran in " + std::to_string(static_cast<long>(wall_ms[k])) + " ms");
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (unsigned i = 0; i < std::max(1u, kConcurrentConfigurations); ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  for (std::size_t k = 0; k < faults.size(); ++k) {
    const FaultInfo* f = faults[k];
    const auto& rs = per_fault[k];
    MutationResult::FaultRow row;
    row.fault = f;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const Verdict own = rs[i].script_verdict;
      const bool caught = out.clean[i].verdict == Verdict::kPass &&
                          (own == Verdict::kFail || own == Verdict::kNonStrict || own == Verdict::kInformational);
      if (caught) {
        row.caught_by.push_back(cases[i]);
        ++catches[i];
      }
    }
    row.wall_ms = wall_ms[k];
    if (progress) progress(std::string(f->name) + ": caught by " + std::to_string(row.caught_by.size()) + " case(s)");
    out.faults.push_back(std::move(row));
  }
  for (std::size_t i = 0; i < cases.size(); ++i) {
    if (catches[i] > 0) {
      // An `uncaught:` reason that a fault disproves is no longer true.
      if (!cases[i]->uncaught.empty()) out.stale_uncaught.push_back(cases[i]);
      continue;
    }
    if (cases[i]->uncaught.empty()) out.catching_nothing.push_back(cases[i]);
    else out.declared_uncaught.push_back(cases[i]);
  }
  out.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return out;
}

void write_mutation_markdown(std::ostream& out, const MutationResult& r) {
  out << "# Mutation proof\n\n"
         "Generated by `rdmaconf mutation --markdown docs/mutation.md`; do not edit by hand. The whole catalogue runs\n"
         "against the reference IUT (`rdmaconf responder`), clean and then with each named fault, each of which\n"
         "breaks exactly one rule. A fault is caught when a case that passes against the clean IUT does not pass\n"
         "against the faulty one.\n\n";
  out << "Clean reference: " << (r.clean.size() - r.clean_failures.size()) << " of " << r.clean.size()
      << " cases pass.\n\n| fault | layer | rule it breaks | caught by |\n|---|---|---|---|\n";
  for (const auto& row : r.faults) {
    std::string ids;
    for (std::size_t i = 0; i < row.caught_by.size() && i < 6; ++i) ids += (i ? ", " : "") + ("`" + row.caught_by[i]->id + "`");
    if (row.caught_by.size() > 6) ids += ", ... (" + std::to_string(row.caught_by.size()) + " cases)";
    if (row.caught_by.empty()) ids = "**not caught**";
    out << "| `" << row.fault->name << "` | " << row.fault->layer << " | " << row.fault->rule << " ("
        << row.fault->rfc_section << ") | " << ids << " |\n";
  }
  out << "\n## Cases no fault makes fail\n\n";
  if (r.declared_uncaught.empty() && r.catching_nothing.empty()) out << "None.\n";
  else {
    out << "| case | why |\n|---|---|\n";
    for (const Case* c : r.declared_uncaught) out << "| `" << c->id << "` | " << c->uncaught << " |\n";
    for (const Case* c : r.catching_nothing) out << "| `" << c->id << "` | **no fault catches it and it gives no reason** |\n";
  }
}

}  // namespace rdmaconf::conformance
