// The plugin's entry points (Wireshark 4.0 plugin ABI) and protocol
// registration: protocols with names of their own, so that they sit beside
// Wireshark's iwarp_mpa, iwarp_ddp_rdmap, smc, rpcordma and iser without
// clashing.
#include "generated_fields.hpp"
#include "plugin.hpp"

extern "C" {
#include <ws_version.h>
}

namespace rdmaconf::dissector {

Ids& ids() {
  static Ids i;
  return i;
}

}  // namespace rdmaconf::dissector

using namespace rdmaconf::dissector;

extern "C" {

// C++ gives namespace-scope constants internal linkage: declare them extern
// (and exported) first, then define them.
WS_DLL_PUBLIC const char plugin_version[];
WS_DLL_PUBLIC const int plugin_want_major;
WS_DLL_PUBLIC const int plugin_want_minor;
const char plugin_version[] = RDMACONF_PLUGIN_VERSION;
const int plugin_want_major = WIRESHARK_VERSION_MAJOR;
const int plugin_want_minor = WIRESHARK_VERSION_MINOR;

WS_DLL_PUBLIC_DEF void proto_register_rdmaconf(void);
WS_DLL_PUBLIC_DEF void proto_reg_handoff_rdmaconf(void);
WS_DLL_PUBLIC_DEF void plugin_register(void);

void proto_register_rdmaconf(void) {
  Ids& i = ids();
  i.proto_mpa = proto_register_protocol("rdmaconf MPA (RFC 5044, RFC 6581)", "rdmaconf MPA", "rdmaconf.mpa");
  i.proto_ddp = proto_register_protocol("rdmaconf DDP (RFC 5041)", "rdmaconf DDP", "rdmaconf.ddp");
  i.proto_rdmap = proto_register_protocol("rdmaconf RDMAP (RFC 5040, RFC 7306)", "rdmaconf RDMAP", "rdmaconf.rdmap");
  i.proto_clc = proto_register_protocol("rdmaconf SMC CLC (RFC 7609, SMC v2)", "rdmaconf CLC", "rdmaconf.clc");

  i.proto_rpcrdma = proto_register_protocol("rdmaconf RPC-over-RDMA (RFC 8166)", "rdmaconf RPC-over-RDMA",
                                            "rdmaconf.rpcrdma");
  i.proto_iser = proto_register_protocol("rdmaconf iSER (RFC 7145)", "rdmaconf iSER", "rdmaconf.iser");
  i.proto_roce = proto_register_protocol("rdmaconf RoCEv2 transport (IBTA vol. 1 §9, Annex A17)", "rdmaconf RoCE",
                                         "rdmaconf.roce");
  i.proto_smcr_llc = proto_register_protocol("rdmaconf SMC-R LLC (RFC 7609 App. A.3, SMC v2)", "rdmaconf SMC-R LLC",
                                             "rdmaconf.smcr.llc");
  i.proto_smcr_cdc = proto_register_protocol("rdmaconf SMC-R CDC (RFC 7609 App. A.4)", "rdmaconf SMC-R CDC",
                                             "rdmaconf.smcr.cdc");

  i.proto_ddp_sctp = proto_register_protocol("rdmaconf DDP/SCTP adaptation layer (RFC 5043)", "rdmaconf DDP/SCTP",
                                             "rdmaconf.ddp_sctp");

  const int protos[kProtocols] = {i.proto_mpa,  i.proto_ddp,     i.proto_rdmap,    i.proto_clc,    i.proto_rpcrdma,
                                  i.proto_iser, i.proto_roce,    i.proto_smcr_llc, i.proto_smcr_cdc, i.proto_ddp_sctp};
  register_generated_fields(protos);
  register_violations();
  register_mpa();
  register_ddp_rdmap();
  register_clc();
  register_connection();
  register_ulp();
  register_smcr();
  register_ddp_sctp();

  static gint* ett[] = {&i.ett_mpa,       &i.ett_ddp,        &i.ett_rdmap,  &i.ett_clc,     &i.ett_violation,
                        &i.ett_negotiated, &i.ett_marker,    &i.ett_payload, &i.ett_rpcrdma, &i.ett_iser,
                        &i.ett_chunk,      &i.ett_region,    &i.ett_roce,    &i.ett_smcr_llc, &i.ett_smcr_cdc, &i.ett_ddp_sctp};
  proto_register_subtree_array(ett, static_cast<int>(G_N_ELEMENTS(ett)));
}

void proto_reg_handoff_rdmaconf(void) {
  handoff_connection();
  handoff_clc();
  handoff_ulp();
  handoff_smcr();
  handoff_ddp_sctp();
}

void plugin_register(void) {
  static proto_plugin plugin;
  plugin.register_protoinfo = proto_register_rdmaconf;
  plugin.register_handoff = proto_reg_handoff_rdmaconf;
  proto_register_plugin(&plugin);
}

}  // extern "C"
