#include "agent/rdma_core/caps.hpp"

#include <cstdio>

namespace rdmaconf::agent::rdma_core {

const char* transport_name(Transport t) {
  switch (t) {
    case Transport::kIwarp: return "iwarp";
    case Transport::kRoce: return "roce";
    case Transport::kInfiniband: return "infiniband";
    case Transport::kUnknown: break;
  }
  return "unknown";
}

namespace {
std::optional<bool> parse_bool(const std::string& v) {
  if (v.empty()) return std::nullopt;
  if (v[0] == 'Y' || v[0] == 'y' || v[0] == '1') return true;
  if (v[0] == 'N' || v[0] == 'n' || v[0] == '0') return false;
  return std::nullopt;
}
std::optional<int> parse_int(const std::string& v) {
  int n = 0;
  std::size_t i = 0;
  for (; i < v.size() && v[i] >= '0' && v[i] <= '9' && i < 6; ++i) n = n * 10 + (v[i] - '0');
  if (i == 0) return std::nullopt;
  return n;
}
}  // namespace

SiwParameters parse_siw_parameters(const std::map<std::string, std::string>& files) {
  SiwParameters p;
  for (const auto& [name, value] : files) {
    if (name == "mpa_version") p.mpa_version = parse_int(value);
    else if (name == "mpa_crc_required") p.mpa_crc_required = parse_bool(value);
    else if (name == "mpa_crc_strict") p.mpa_crc_strict = parse_bool(value);
    else if (name == "peer_to_peer") p.peer_to_peer = parse_bool(value);
  }
  return p;
}

SiwParameters stock_siw_parameters() {
  SiwParameters p;
  p.mpa_version = 2;
  p.mpa_crc_required = false;
  p.mpa_crc_strict = false;
  p.peer_to_peer = false;
  p.compiled_in = true;
  return p;
}

bool is_siw(const DeviceFacts& f) { return f.vendor_id == kSiwVendorId || f.name.rfind("siw", 0) == 0; }

std::size_t driver_reply_private_data_limit(const DeviceFacts& f) {
  return is_siw(f) ? kSiwMaxPrivateData - kMpaV2EnhancedPrefix : 0;
}

Capabilities map_capabilities(const DeviceFacts& f, const FittedAdvertisement& fitted, std::size_t reply_budget) {
  Capabilities c;
  c.backend = "rdma-core";
  c.device = f.name;
  char vendor[64];
  std::snprintf(vendor, sizeof vendor, "vendor_id 0x%06x part 0x%x%s", f.vendor_id, f.vendor_part_id,
                is_siw(f) ? " (Linux soft-iWARP)" : "");
  c.vendor = vendor;
  c.firmware = f.fw_ver;
  c.driver = f.driver;
  c.kernel = f.kernel;
  c.transport = transport_name(f.transport);
  c.address = f.address;
  c.clc = f.smc;
  if (!f.smc) c.notes.push_back("clc: the host cannot open AF_SMC sockets (no smc module)");

  if (f.transport == Transport::kRoce && f.roce_v1_gid == false) {
    c.smcr_v1 = false;
    c.notes.push_back("smcr-v1: the device has RoCE v2 GIDs only (soft-RoCE); Linux runs SMC-R version 1 only over a "
                      "RoCE v1 GID");
  }
  if (f.transport != Transport::kIwarp) {
    // MPA, DDP and RDMAP run only over an iWARP device; a RoCE device is
    // for the CLC suite (the host's SMC-R stack).
    c.mpa_revisions.clear();
    c.notes.push_back(std::string("transport ") + c.transport +
                      ": no MPA/DDP/RDMAP on this device, only the CLC side of the agent applies");
    return c;
  }

  const std::optional<SiwParameters>& siw = f.siw;
  const bool settable = siw && siw->writable;
  // MPA revision. RFC 6581 §5: a Rev 2 responder answers a Rev 1 Request in
  // Rev 1, so a device that initiates Rev 2 serves both as responder.
  if (siw && siw->mpa_version && !settable)
    c.mpa_revisions = *siw->mpa_version >= 2 ? std::vector<int>{1, 2} : std::vector<int>{1};
  else
    c.mpa_revisions = {1, 2};
  if (!siw || !siw->mpa_version)
    c.notes.push_back("mpa revision: chosen by the driver, not through rdma_cm; Rev 2 assumed (the Reply shows it)");

  // CRC (RFC 5044 §7.1.1: used when either side asks).
  if (settable) {
    c.crc = {true, true, false};
  } else if (siw && siw->mpa_crc_required) {
    c.crc.can_on = *siw->mpa_crc_required || !siw->mpa_crc_strict.value_or(false);
    c.crc.can_off = !*siw->mpa_crc_required;
  } else {
    c.crc = {true, false, false};
    c.notes.push_back("crc: the driver decides whether its Reply sets C; rdma_cm cannot ask for MPA without CRC");
  }
  // Markers: nothing in rdma_cm asks for them, and siw does not implement them.
  c.markers = {false, true, false};
  c.notes.push_back("markers: rdma_cm has no way to ask for MPA Markers (RFC 5044 §4.3)");

  if (siw) {
    c.peer_to_peer = settable || siw->peer_to_peer.value_or(false);
    if (c.peer_to_peer) c.rtr = {"write", "read"};
  }
  if (siw && siw->compiled_in)
    c.notes.push_back("siw without module parameters: its compiled-in settings (Rev 2, CRC only when the peer asks, "
                      "client/server model) are fixed");
  if (settable)
    c.notes.push_back("siw module parameters (mpa_version, mpa_crc_required, peer_to_peer) are set per listen/connect "
                      "request; they are device-wide, so passes with different settings must not overlap");

  c.atomics = f.atomics;
  c.immediate_data = false;
  c.notes.push_back("immediate: verbs' Send with Immediate is InfiniBand's operation; the backend does not post "
                    "RFC 7306 Immediate Data");
  c.memory_windows = f.mw_type2;
  // RFC 5040 §6.10 (Send with Invalidate): which STags a peer may
  // invalidate is the device's. siw invalidates any STag of the QP's PD,
  // so `inv` there is an ordinary region and no STag of the stream is one
  // the peer may not invalidate (`noinv`); elsewhere only a type 2 memory
  // window would be `inv`.
  c.remote_invalidate = is_siw(f);
  if (is_siw(f))
    c.notes.push_back("inv: an ordinary memory region; siw lets a peer invalidate any STag of the QP's protection "
                      "domain, as RFC 5040 §5.3 asks for an STag of the stream, so no STag can be `noinv`: not "
                      "advertised");
  else
    c.notes.push_back("inv: not advertised; only a type 2 memory window bound after the QP reaches RTS could be "
                      "remotely invalidated, and the Reply carrying the advertisement goes out before that");

  c.echo = c.receives = c.commands = true;
  // Verbs reports no Terminate as such, only the QP's error and flushed work.
  c.terminate_events = false;
  c.buffers = fitted.advertised;
  for (const std::string& name : fitted.omitted)
    c.notes.push_back("buffer " + name + ": left out of the advertisement, the Reply's private data holds " +
                      std::to_string(reply_budget) + " octets");
  c.max_reply_private_data = reply_budget;
  c.max_request_private_data = kRdmaCmPrivateDataMax;
  if (!f.atomics) c.notes.push_back("atomics: the device reports atomic_cap IBV_ATOMIC_NONE");
  return c;
}

ConfigPlan plan_mpa_config(const MpaConfig& want, const DeviceFacts& f) {
  ConfigPlan p;
  if (want.markers.value_or(false)) {
    p.error = "markers: rdma_cm cannot ask for MPA Markers";
    return p;
  }
  const std::optional<SiwParameters>& siw = f.siw;
  const bool settable = siw && siw->writable;
  // One setting: written when the agent may, accepted when the driver runs
  // it already, refused when the driver is known to run another value, and
  // left to the driver (with a note) when nothing says what it runs.
  auto one = [&](const char* what, const char* param, const std::optional<std::string>& wanted,
                 const std::optional<std::string>& current) {
    if (!wanted || !p.error.empty()) return;
    if (settable) p.writes[param] = *wanted;
    else if (!current) p.notes.push_back(std::string(what) + ": not selectable through rdma_cm; the driver's setting applies");
    else if (*current != *wanted)
      p.error = std::string(what) + " is fixed by the driver (siw " + param + "=" + *current + "); rdma_cm cannot choose it";
  };
  auto yn = [](const std::optional<bool>& b) { return b ? std::optional<std::string>(*b ? "Y" : "N") : std::nullopt; };
  auto num = [](const std::optional<int>& n) { return n ? std::optional<std::string>(std::to_string(*n)) : std::nullopt; };
  one("mpa revision", "mpa_version", num(want.revision), siw ? num(siw->mpa_version) : std::nullopt);
  one("crc", "mpa_crc_required", yn(want.crc), siw ? yn(siw->mpa_crc_required) : std::nullopt);
  if (want.crc && settable) p.writes["mpa_crc_strict"] = "N";
  one("peer-to-peer", "peer_to_peer", yn(want.peer_to_peer), siw ? yn(siw->peer_to_peer) : std::nullopt);
  if (!p.error.empty()) p.writes.clear();
  return p;
}

}  // namespace rdmaconf::agent::rdma_core
