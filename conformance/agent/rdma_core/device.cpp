#include "agent/rdma_core/device.hpp"

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/rdma_core/net.hpp"

namespace rdmaconf::agent::rdma_core {

namespace {
constexpr const char* kSiwParameterDir = "/sys/module/siw/parameters/";
constexpr const char* kSiwParameters[] = {"mpa_version", "mpa_crc_required", "mpa_crc_strict", "peer_to_peer"};

std::string read_small_file(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line.substr(0, 64);
}

// The IPv4 (else IPv6) address of the netdev the device is attached to:
// RoCE devices name it in their GID attributes, hardware devices have it
// under their PCI device, siw in its ports' gid_attrs when the core set it.
std::string device_address(const std::string& ibdev) {
  std::string netdev = read_small_file("/sys/class/infiniband/" + ibdev + "/ports/1/gid_attrs/ndevs/0");
  if (netdev.empty()) return "";
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return "";
  std::string v4, v6;
  for (ifaddrs* i = list; i; i = i->ifa_next) {
    if (!i->ifa_addr || netdev != i->ifa_name) continue;
    std::string a = format_sockaddr(i->ifa_addr);
    a = a.substr(0, a.rfind(':'));
    if (i->ifa_addr->sa_family == AF_INET && v4.empty()) v4 = a;
    if (i->ifa_addr->sa_family == AF_INET6 && v6.empty() && a.find("[fe80") != 0) v6 = a.substr(1, a.size() - 2);
  }
  ::freeifaddrs(list);
  return !v4.empty() ? v4 : v6;
}

// The kernel driver bound to the device's parent (a PCI function: mlx5_core,
// irdma ...); the software devices have none and are named by what they are.
std::string device_driver(ibv_device* dev, const DeviceFacts& f) {
  std::error_code ec;
  const auto link = std::filesystem::read_symlink(std::string(dev->ibdev_path) + "/device/driver", ec);
  if (!ec && !link.filename().empty()) return link.filename().string();
  if (is_siw(f)) return "siw";
  if (f.name.rfind("rxe", 0) == 0) return "rdma_rxe";
  return "";
}
}  // namespace

std::optional<SiwParameters> read_siw_parameters() {
  std::map<std::string, std::string> files;
  bool writable = true;
  for (const char* name : kSiwParameters) {
    const std::string path = std::string(kSiwParameterDir) + name;
    if (::access(path.c_str(), R_OK) != 0) continue;
    files[name] = read_small_file(path);
    if (::access(path.c_str(), W_OK) != 0) writable = false;
  }
  if (files.empty()) return std::nullopt;
  SiwParameters p = parse_siw_parameters(files);
  p.writable = writable && files.size() == std::size(kSiwParameters);
  return p;
}

bool write_siw_parameters(const std::map<std::string, std::string>& writes, std::string& error) {
  for (const auto& [name, value] : writes) {
    std::ofstream out(std::string(kSiwParameterDir) + name);
    out << value << '\n';
    out.flush();
    if (!out) {
      error = "cannot write siw parameter " + name + "=" + value + ": " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

DeviceFacts query_device_facts(ibv_context* ctx, std::string& problems) {
  DeviceFacts f;
  f.name = ibv_get_device_name(ctx->device);
  ibv_device_attr_ex ex{};
  ibv_device_attr& a = ex.orig_attr;
  bool have_attr = ibv_query_device_ex(ctx, nullptr, &ex) == 0;
  if (!have_attr) have_attr = ibv_query_device(ctx, &a) == 0;
  if (!have_attr) problems += "ibv_query_device failed; ";
  if (have_attr) {
    f.vendor_id = a.vendor_id;
    f.vendor_part_id = a.vendor_part_id;
    f.fw_ver = a.fw_ver;
    f.atomics = a.atomic_cap != IBV_ATOMIC_NONE;
    f.mw_type2 = a.max_mw > 0 && (a.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B));
    f.depths = {a.max_qp_rd_atom, a.max_qp_init_rd_atom};
  }
  ibv_port_attr port{};
  const bool have_port = ibv_query_port(ctx, 1, &port) == 0;
  if (!have_port) problems += "ibv_query_port(1) failed; ";
  else f.max_msg_sz = port.max_msg_sz;
  if (ctx->device->transport_type == IBV_TRANSPORT_IWARP) f.transport = Transport::kIwarp;
  else if (ctx->device->transport_type == IBV_TRANSPORT_IB)
    f.transport = have_port && port.link_layer == IBV_LINK_LAYER_ETHERNET ? Transport::kRoce : Transport::kInfiniband;
  if (f.transport == Transport::kRoce && have_port) {
    // Which RoCE versions the GID table serves (SMC-R v1 needs a v1 GID).
    bool any = false, v1 = false;
    for (int i = 0; i < port.gid_tbl_len && i < 256; ++i) {
      ibv_gid_entry e{};
      if (ibv_query_gid_ex(ctx, 1, static_cast<std::uint32_t>(i), &e, 0) != 0) continue;
      any = true;
      v1 = v1 || e.gid_type == IBV_GID_TYPE_ROCE_V1;
    }
    if (any) f.roce_v1_gid = v1;
  }
  if (is_siw(f)) f.siw = read_siw_parameters().value_or(stock_siw_parameters());
  f.address = device_address(f.name);
  f.driver = device_driver(ctx->device, f);
  f.kernel = kernel_release();
  return f;
}

}  // namespace rdmaconf::agent::rdma_core
