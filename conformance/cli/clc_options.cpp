// The CLC identity options of `rdmaconf run` and `rdmaconf fuzz`
// (clc_options.hpp).
#include "cli/clc_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <ostream>
#include <tuple>
#include <utility>
#include <vector>

#include "report/text.hpp"

namespace rdmaconf::cli {
namespace cf = conformance;

namespace {

// The options whose values differ from the defaults, in declaration order.
std::vector<std::pair<const char*, const std::string*>> differing(const ClcIdentityArgs& a) {
  const ClcIdentityArgs d;
  std::vector<std::pair<const char*, const std::string*>> out;
  for (const auto& [option, value, fallback] : {std::tuple{"--clc-eid", &a.eid, &d.eid},
                                                {"--clc-prefix", &a.prefix, &d.prefix},
                                                {"--clc-gid", &a.gid, &d.gid},
                                                {"--clc-mac", &a.mac, &d.mac}})
    if (*value != *fallback) out.emplace_back(option, value);
  return out;
}

}  // namespace

std::string ClcIdentityArgs::given() const {
  std::string out;
  for (const auto& [option, value] : differing(*this)) out += (out.empty() ? "" : ", ") + std::string(option);
  return out;
}

std::string ClcIdentityArgs::options() const {
  std::string out;
  for (const auto& [option, value] : differing(*this)) out += " " + std::string(option) + " " + report_text::shell_word(*value);
  return out;
}

std::string ClcIdentityArgs::describe() const {
  return "EID " + eid + ", prefix " + prefix + ", GID " + gid + ", MAC " + mac;
}

void add_clc_identity_options(CLI::App& sub, ClcIdentityArgs& a) {
  sub.add_option("--clc-eid", a.eid, "The User Defined EID the tester's CLC peer offers and accepts (SMC v2); the IUT must share it")
      ->capture_default_str();
  sub.add_option("--clc-prefix", a.prefix,
                 "IPv4 prefix of the tester's CLC Proposal and Accept, A.B.C.D/N; auto: the subnet of the interface "
                 "holding the connection's local address, as Linux computes its own")
      ->capture_default_str();
  sub.add_option("--clc-gid", a.gid,
                 "RoCE GID the tester's CLC peer names (also its SMC-Rv2 GID): an IPv6 address or 32 hex digits; auto: "
                 "the RoCEv2 GID of the connection's local IPv4 address (::ffff:A.B.C.D); fixed: the tester's own")
      ->capture_default_str();
  sub.add_option("--clc-mac", a.mac,
                 "MAC the tester's CLC peer names: aa:bb:cc:dd:ee:ff; auto: the MAC of the connection's interface; "
                 "fixed: the tester's own")
      ->capture_default_str();
}

std::optional<cf::ClcIdentity> clc_identity_from(const ClcIdentityArgs& a, std::string_view command, std::ostream& err) {
  cf::ClcIdentity id;
  id.eid = a.eid;
  if (a.prefix != "auto" && !(id.ipv4 = cf::parse_ipv4_prefix(a.prefix))) {
    err << "rdmaconf " << command << ": --clc-prefix expects auto or A.B.C.D/N, got '" << a.prefix << "'\n";
    return std::nullopt;
  }
  id.gid_from_connection = a.gid == "auto";
  if (a.gid != "auto" && a.gid != "fixed" && !(id.gid = cf::parse_gid(a.gid))) {
    err << "rdmaconf " << command << ": --clc-gid expects auto, fixed, an IPv6 address or 32 hex digits, got '" << a.gid
        << "'\n";
    return std::nullopt;
  }
  id.mac_from_connection = a.mac == "auto";
  if (a.mac != "auto" && a.mac != "fixed" && !(id.mac = cf::parse_mac(a.mac))) {
    err << "rdmaconf " << command << ": --clc-mac expects auto, fixed or aa:bb:cc:dd:ee:ff, got '" << a.mac << "'\n";
    return std::nullopt;
  }
  return id;
}

}  // namespace rdmaconf::cli
