#include "endpoint/sctp_link.hpp"

#include "endpoint/kernel_sctp_link.hpp"
#include "endpoint/usrsctp_link.hpp"

namespace rdmaconf::endpoint {

std::string_view sctp_stack_name(SctpStack s) { return s == SctpStack::kKernel ? "kernel" : "usrsctp"; }

std::optional<SctpStack> parse_sctp_stack(std::string_view name) {
  if (name == "usrsctp") return SctpStack::kUsrsctp;
  if (name == "kernel") return SctpStack::kKernel;
  return std::nullopt;
}

std::unique_ptr<SctpLink> open_sctp_link(SctpStack stack, SctpLinkConfig config, SctpEvents events) {
  if (stack == SctpStack::kKernel) return std::make_unique<KernelSctpLink>(std::move(config), std::move(events));
  return std::make_unique<UsrsctpLink>(std::move(config), std::move(events));
}

}  // namespace rdmaconf::endpoint
