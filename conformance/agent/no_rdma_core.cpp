// Built when the rdma-core backend is not part of this build.
#include "agent/backend.hpp"

namespace rdmaconf::agent {

std::unique_ptr<Backend> create_rdma_core_backend(const std::string&, std::string& error) {
  error = "this build has no rdma-core backend (libibverbs and librdmacm were not found)";
  return nullptr;
}

}  // namespace rdmaconf::agent
