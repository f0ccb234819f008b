// What the rdma-core backend can say about a device, and what it lets the
// tester choose. The facts come from ibv_query_device / ibv_query_port /
// the device's transport and, for Linux soft-iWARP, from the module's
// parameters; map_capabilities() turns them into backend.hpp's Capabilities
// without touching a device, so the mapping is unit-tested.
//
// rdma_cm lets a ULP choose private data, IRD/ORD (responder_resources,
// initiator_depth) and addresses, nothing of MPA itself: the revision, CRC
// and Markers are the driver's (RFC 5044 §7.1.1 flags, RFC 6581 enhanced
// setup). Where a driver exposes them as module parameters (siw's
// mpa_version, mpa_crc_required, mpa_crc_strict, peer_to_peer) they are
// device-wide settings, read here and, when the agent may write them,
// applied per listen/connect request (never per connection).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "agent/backend.hpp"
#include "agent/rdma_core/plan.hpp"

namespace rdmaconf::agent::rdma_core {

enum class Transport { kIwarp, kRoce, kInfiniband, kUnknown };
const char* transport_name(Transport t);  // "iwarp", "roce", "infiniband", "unknown"

// siw's module parameters (/sys/module/siw/parameters/*), where present.
struct SiwParameters {
  std::optional<int> mpa_version;        // MPA revision of its Requests (1 or 2)
  std::optional<bool> mpa_crc_required;  // asks for CRC as initiator; sets C as responder
  std::optional<bool> mpa_crc_strict;    // rejects a peer asking for CRC when not required
  std::optional<bool> peer_to_peer;      // RFC 6581 §9 peer-to-peer model with RTR
  bool writable = false;                 // the agent may change them
  bool compiled_in = false;              // no module parameters: upstream siw's constants
};
// Upstream siw (Linux 6.1, siw_main.c) has no module parameters: these are
// its compile-time constants (Rev 2, no CRC asked for nor refused, the
// client/server model).
SiwParameters stock_siw_parameters();
// From the parameter files' contents ("2\n", "Y\n", "N\n"); unknown names
// and unparsable values are left unset.
SiwParameters parse_siw_parameters(const std::map<std::string, std::string>& files);

struct DeviceFacts {
  std::string name;  // ibv_get_device_name
  Transport transport = Transport::kUnknown;
  std::uint32_t vendor_id = 0, vendor_part_id = 0;
  std::string fw_ver;
  std::string driver;  // the kernel driver behind the device, empty when unknown
  std::string kernel;  // uname -r of the host
  bool atomics = false;        // atomic_cap != IBV_ATOMIC_NONE
  bool mw_type2 = false;       // max_mw > 0 and a type 2 memory window flag
  DeviceDepths depths;
  std::uint32_t max_msg_sz = 0;  // of the port
  std::optional<SiwParameters> siw;
  bool smc = false;  // the host can open AF_SMC sockets
  // RoCE: whether port 1's GID table holds a RoCE v1 GID (unset: not known).
  std::optional<bool> roce_v1_gid;
  std::string address;
};

// Linux siw identifies itself by vendor id 0x626d74 ("bmt").
inline constexpr std::uint32_t kSiwVendorId = 0x626d74;
bool is_siw(const DeviceFacts& f);

// The private data a driver lets the ULP put in an MPA Reply, where known
// (0: only rdma_cm's own limit). Linux siw keeps 256 octets including RFC
// 6581's 4 (siw_cm.c, siw_accept: MPA_MAX_PRIVDATA less struct
// mpa_v2_data), so 252 under Rev 2.
std::size_t driver_reply_private_data_limit(const DeviceFacts& f);

// The capabilities the tester sees. `fitted` is the advertisement the
// backend builds for every connection (what fit, what did not).
Capabilities map_capabilities(const DeviceFacts& f, const FittedAdvertisement& fitted, std::size_t reply_budget);

// A listen/connect request's MPA configuration against what the device
// lets the agent set: the siw parameters to write (name -> value), an error
// when the device is known to run something else and cannot be changed (or
// Markers are asked for), and notes for what cannot be chosen but is not
// known either (the driver's setting applies; the wire shows it).
struct ConfigPlan {
  std::map<std::string, std::string> writes;
  std::string error;               // empty: runnable
  std::vector<std::string> notes;  // settings left to the driver
};
ConfigPlan plan_mpa_config(const MpaConfig& want, const DeviceFacts& f);

}  // namespace rdmaconf::agent::rdma_core
