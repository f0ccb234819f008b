// Names for what a device reports through verbs and rdma_cm, as the agent's
// events carry them (backend.hpp, Event): a stable lower-case name for
// programs, the verbs enum identifier in the detail for people who grep
// rdma-core. Pure tables over the enum values of <infiniband/verbs.h> and
// <rdma/rdma_cma.h>; nothing links libibverbs or librdmacm.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <string>

#include "agent/rdma_core/plan.hpp"

namespace rdmaconf::agent::rdma_core {

// ibv_wc.opcode of a successful completion: "send", "rdma_write",
// "rdma_read", "atomic", "recv", "recv_imm", "bind_mw", "local_inv" ...
const char* wc_opcode_name(ibv_wc_opcode op);
// The operation of a completion. Verbs defines ibv_wc.opcode only for
// successful completions; for one in error the work request id says what
// was posted (plan.hpp, WrPurpose).
std::string completion_name(bool success, ibv_wc_opcode op, std::uint64_t wr_id);
// ibv_wc.status as words ("success", "local length error", "remote access
// error", "Work Request Flushed Error" ...), and as its enum identifier
// ("IBV_WC_LOC_LEN_ERR").
const char* wc_status_words(ibv_wc_status s);
const char* wc_status_id(ibv_wc_status s);

// ibv_async_event.event_type: "qp_fatal", "qp_access_error", "comm_established" ...
const char* async_event_name(ibv_event_type t);
const char* async_event_id(ibv_event_type t);
// Which object an async event is about.
enum class AsyncScope { kQp, kCq, kSrq, kPort, kDevice, kWq };
AsyncScope async_event_scope(ibv_event_type t);

// rdma_cm_event.event: "connect_request", "established", "rejected" ...
const char* cm_event_name(rdma_cm_event_type t);
const char* cm_event_id(rdma_cm_event_type t);
// The connection state an rdma_cm event means for the agent's kConnection
// events: "established", "rejected", "closed", "failed"; "" for events that
// are steps (address and route resolution, connect request, timewait exit).
const char* cm_event_state(rdma_cm_event_type t);
// rdma_cm_event.status as text: "0", "-111 (ECONNREFUSED)". For iWARP a
// REJECTED status of -ECONNREFUSED is an MPA Reply with the Reject bit, and
// -ECONNRESET a connection reset during the MPA exchange (the kernel's
// cma_iw_handler maps iw_cm statuses this way).
std::string cm_status_text(int status);

}  // namespace rdmaconf::agent::rdma_core
