// rdmaconf replay CAPTURE --target HOST:PORT [--side client|server]: plays one
// side of a recorded connection against a live implementation and compares
// the live answers with the recorded ones, message by message
// (pcap/replay/replay.hpp). Exit code 0 when every answer matched, 1 when one
// differed, 2 when the capture or the target could not be used.
#include <iostream>

#include "cli/command.hpp"
#include "replay/replay.hpp"

namespace rdmaconf::cli {
namespace {

struct ReplayCliOptions {
  std::string capture;
  std::string target;
  std::string side = "client";
  std::uint64_t connection = 0;
  std::vector<std::string> ignore;
  std::vector<std::string> compare;
  int timeout_ms = 3000;
  int pace_ms = 0;
};

int run_replay(const ReplayCliOptions& o) {
  replay::ReplayOptions r;
  r.capture = o.capture;
  const auto colon = o.target.rfind(':');
  if (colon == std::string::npos) {
    std::cerr << "rdmaconf replay: --target must be HOST:PORT\n";
    return 2;
  }
  r.host = o.target.substr(0, colon);
  if (r.host.size() > 2 && r.host.front() == '[') r.host = r.host.substr(1, r.host.size() - 2);
  try {
    r.port = static_cast<std::uint16_t>(std::stoul(o.target.substr(colon + 1)));
  } catch (...) {
    std::cerr << "rdmaconf replay: bad port in --target\n";
    return 2;
  }
  r.side = o.side == "server" ? replay::Side::kResponder : replay::Side::kInitiator;
  r.connection = o.connection;
  r.answer_timeout = std::chrono::milliseconds(o.timeout_ms);
  r.pace = std::chrono::milliseconds(o.pace_ms);
  for (const std::string& f : o.ignore) r.ignore_fields.insert(f);
  for (const std::string& f : o.compare) r.ignore_fields.erase(f);

  const replay::ReplayResult res = replay::replay(r);
  if (!res.setup_ok) {
    std::cerr << "rdmaconf replay: " << res.error << "\n";
    return 2;
  }
  for (const replay::Difference& d : res.differences)
    std::cout << "message " << d.index << ": " << d.field << " recorded " << d.recorded << ", live " << d.live << "\n";
  for (const std::string& v : res.live_violations) std::cout << "live peer violated " << v << "\n";
  std::cout << res.sent_messages << " messages sent, " << res.matched_messages << " of " << res.expected_messages
            << " answers matched, " << res.differences.size() << " differences\n";
  return res.ok() ? 0 : 1;
}

void add_replay_command(CLI::App& app, int& exit_code) {
  static ReplayCliOptions o;
  CLI::App* sub = app.add_subcommand(
      "replay", "Replay one side of a recorded connection against a live implementation and compare its answers");
  sub->add_option("capture", o.capture, "pcap or pcapng file")->required();
  sub->add_option("--target", o.target, "HOST:PORT to connect to (client) or listen on (server)")->required();
  sub->add_option("--side", o.side, "The recorded side to play: client (TCP initiator) or server")
      ->check(CLI::IsMember({"client", "server"}));
  sub->add_option("--connection", o.connection, "Which connection of the capture (1, 2, ...; default: the first)");
  sub->add_option("--ignore", o.ignore, "Fields that may differ (in addition to stag, to, sink_stag, source_stag, pd_length)");
  sub->add_option("--compare", o.compare, "Fields to compare after all (removes them from the ignored set)");
  sub->add_option("--timeout", o.timeout_ms, "Milliseconds to wait for each live answer");
  sub->add_option("--pace", o.pace_ms, "Milliseconds to wait after each live answer before sending on")
      ->check(CLI::Range(0, 60000));
  sub->final_callback([&exit_code] { exit_code = run_replay(o); });
}

}  // namespace

RDMACONF_COMMAND(replay, add_replay_command);

}  // namespace rdmaconf::cli
