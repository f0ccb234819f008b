// Capabilities -> the `needs` items the tester reports unimplemented, and the
// label of an MPA configuration.
#include <sys/utsname.h>

#include <algorithm>

#include "agent/backend.hpp"
#include "engine/needs.hpp"

namespace rdmaconf::agent {

std::string kernel_release() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : std::string();
}

std::vector<std::string> lacks(const Capabilities& c) {
  std::vector<std::string> out;
  auto has = [](const auto& v, const auto& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  if (!has(c.mpa_revisions, 2)) out.emplace_back("rev2");
  if (!c.crc.can_off) out.emplace_back("no-crc");
  if (!c.markers.can_on) out.emplace_back("markers");
  if (!c.atomics) out.emplace_back("atomics");
  if (!c.immediate_data) out.emplace_back("immediate");
  if (!c.echo) out.emplace_back("echo");
  if (!c.receives) out.emplace_back("receives");
  if (!c.commands) out.emplace_back("commands");
  if (!c.terminate_events) out.emplace_back("terminate-events");
  if (!c.clc) out.emplace_back("clc");
  if (c.clc && !c.smcr_v1) out.emplace_back("smcr-v1");
  // Every buffer of the test ULP profile, as the case parser knows them.
  for (std::string_view b : conformance::kTestUlpBuffers)
    if (!has(c.buffers, std::string(b))) out.push_back("buffer:" + std::string(b));
  return out;
}

std::string MpaConfig::label() const {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : " ") + s; };
  if (revision) add("rev" + std::to_string(*revision));
  if (crc) add(std::string("crc=") + (*crc ? "on" : "off"));
  if (markers) add(std::string("markers=") + (*markers ? "on" : "off"));
  if (peer_to_peer) add(std::string("p2p=") + (*peer_to_peer ? "on" : "off"));
  return out.empty() ? "default" : out;
}

}  // namespace rdmaconf::agent
