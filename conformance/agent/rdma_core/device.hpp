// Facts about one RDMA device, gathered through verbs and sysfs (the parts
// of the rdma-core backend that need a device or the host's files).
#pragma once

#include <infiniband/verbs.h>

#include <map>
#include <string>

#include "agent/rdma_core/caps.hpp"

namespace rdmaconf::agent::rdma_core {

// ibv_query_device(_ex), ibv_query_port(port 1), the transport, siw's
// module parameters and the device's IP address. Errors become notes in
// `problems` (a device that answers nothing still gets a name).
DeviceFacts query_device_facts(ibv_context* ctx, std::string& problems);

// siw's parameters from /sys/module/siw/parameters, if the module has them.
std::optional<SiwParameters> read_siw_parameters();
// Writes the given parameters; false with `error` at the first failure.
bool write_siw_parameters(const std::map<std::string, std::string>& writes, std::string& error);

}  // namespace rdmaconf::agent::rdma_core
