// Which SMC-R link group's RoceObserver sees a RoCEv2 packet: the one routing
// rule `rdmaconf analyze` (analyzer.cpp) and the Wireshark plugin
// (dissector/smcr.cpp) both follow, each with its own address type.
//
// A link group starts with one pair of RoCE peers, its observer fed every
// packet between their addresses. RFC 7609 §3.5.1.6.1: a group may add a
// link over another RoCE device per host; the accepted ADD LINK names both
// ends' GIDs (RoceObserver::added_links), and from then on the packets
// between those two addresses belong to the group too, the GID of the
// group's initiator side naming its initiator. A group takes at most
// kMaxAliases further pairs: past that a pair keeps an observer of its own,
// which joins mid-life and judges nothing (bounded, never "the first wins"
// across groups: the bound is per group).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "analysis/observer_roce.hpp"

namespace rdmaconf::analysis {

// `Group`: the caller's per-group state (its observer); `Address`: an
// ordered address type (capture::IpAddress, or a GID as 16 octets).
template <typename Group, typename Address>
class LinkGroupRoutes {
 public:
  using Pair = std::pair<Address, Address>;  // the lower address first
  struct Route {
    Group* group = nullptr;
    Address initiator{};
  };
  static constexpr std::size_t kMaxAliases = 8;

  static Pair ordered(const Address& a, const Address& b) { return a < b ? Pair{a, b} : Pair{b, a}; }

  // The group a further pair of addresses was routed to, or nullptr.
  const Route* find(const Pair& pair) const {
    const auto it = routes_.find(pair);
    return it == routes_.end() ? nullptr : &it->second;
  }

  // After a packet of `group` (whose own addresses are `own`): routes the
  // pairs the links its observer reported added flow between.
  // `address_of(gid)` is the caller's address for a GID (nullopt for an
  // all-zero one). Returns whether a route was added (a cached route may
  // have changed).
  template <typename AddressOf>
  bool add(Group& group, const Pair& own, const std::vector<RoceObserver::AddedLink>& added, AddressOf address_of) {
    bool changed = false;
    for (const RoceObserver::AddedLink& n : added) {
      const std::optional<Address> a = address_of(n.gid[0]);
      const std::optional<Address> b = address_of(n.gid[1]);
      if (!a || !b || *a == *b) continue;
      const Pair pair = ordered(*a, *b);
      if (pair == own) continue;  // the group's own addresses: its observer sees them already
      const auto it = routes_.find(pair);
      if (it != routes_.end() && it->second.group == &group) continue;
      std::size_t& aliases = aliases_[&group];
      if (aliases >= kMaxAliases) continue;
      ++aliases;
      routes_[pair] = Route{&group, *a};
      changed = true;
    }
    return changed;
  }

  void clear() {
    routes_.clear();
    aliases_.clear();
  }

 private:
  std::map<Pair, Route> routes_;
  std::map<const Group*, std::size_t> aliases_;  // further pairs routed to each group
};

}  // namespace rdmaconf::analysis
