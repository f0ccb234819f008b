#include "agent/rdma_core/names.hpp"

#include <cerrno>
#include <cstring>

namespace rdmaconf::agent::rdma_core {

namespace {
struct StatusName {
  ibv_wc_status type;
  const char* id;
  const char* words;
};
// The words follow verbs' own (ibv_wc_status_str), so a report reads like
// the device's documentation.
constexpr StatusName kStatuses[] = {
    {IBV_WC_SUCCESS, "IBV_WC_SUCCESS", "success"},
    {IBV_WC_LOC_LEN_ERR, "IBV_WC_LOC_LEN_ERR", "local length error"},
    {IBV_WC_LOC_QP_OP_ERR, "IBV_WC_LOC_QP_OP_ERR", "local QP operation error"},
    {IBV_WC_LOC_EEC_OP_ERR, "IBV_WC_LOC_EEC_OP_ERR", "local EE context operation error"},
    {IBV_WC_LOC_PROT_ERR, "IBV_WC_LOC_PROT_ERR", "local protection error"},
    {IBV_WC_WR_FLUSH_ERR, "IBV_WC_WR_FLUSH_ERR", "Work Request Flushed Error"},
    {IBV_WC_MW_BIND_ERR, "IBV_WC_MW_BIND_ERR", "memory management operation error"},
    {IBV_WC_BAD_RESP_ERR, "IBV_WC_BAD_RESP_ERR", "bad response error"},
    {IBV_WC_LOC_ACCESS_ERR, "IBV_WC_LOC_ACCESS_ERR", "local access error"},
    {IBV_WC_REM_INV_REQ_ERR, "IBV_WC_REM_INV_REQ_ERR", "remote invalid request error"},
    {IBV_WC_REM_ACCESS_ERR, "IBV_WC_REM_ACCESS_ERR", "remote access error"},
    {IBV_WC_REM_OP_ERR, "IBV_WC_REM_OP_ERR", "remote operation error"},
    {IBV_WC_RETRY_EXC_ERR, "IBV_WC_RETRY_EXC_ERR", "transport retry counter exceeded"},
    {IBV_WC_RNR_RETRY_EXC_ERR, "IBV_WC_RNR_RETRY_EXC_ERR", "RNR retry counter exceeded"},
    {IBV_WC_LOC_RDD_VIOL_ERR, "IBV_WC_LOC_RDD_VIOL_ERR", "local RDD violation error"},
    {IBV_WC_REM_INV_RD_REQ_ERR, "IBV_WC_REM_INV_RD_REQ_ERR", "remote invalid RD request"},
    {IBV_WC_REM_ABORT_ERR, "IBV_WC_REM_ABORT_ERR", "aborted error"},
    {IBV_WC_INV_EECN_ERR, "IBV_WC_INV_EECN_ERR", "invalid EE context number"},
    {IBV_WC_INV_EEC_STATE_ERR, "IBV_WC_INV_EEC_STATE_ERR", "invalid EE context state"},
    {IBV_WC_FATAL_ERR, "IBV_WC_FATAL_ERR", "fatal error"},
    {IBV_WC_RESP_TIMEOUT_ERR, "IBV_WC_RESP_TIMEOUT_ERR", "response timeout error"},
    {IBV_WC_GENERAL_ERR, "IBV_WC_GENERAL_ERR", "general error"},
    {IBV_WC_TM_ERR, "IBV_WC_TM_ERR", "TM error"},
    {IBV_WC_TM_RNDV_INCOMPLETE, "IBV_WC_TM_RNDV_INCOMPLETE", "TM software rendezvous"},
};

struct EventName {
  ibv_event_type type;
  const char* id;
  const char* name;
  AsyncScope scope;
};
constexpr EventName kAsyncEvents[] = {
    {IBV_EVENT_CQ_ERR, "IBV_EVENT_CQ_ERR", "cq_error", AsyncScope::kCq},
    {IBV_EVENT_QP_FATAL, "IBV_EVENT_QP_FATAL", "qp_fatal", AsyncScope::kQp},
    {IBV_EVENT_QP_REQ_ERR, "IBV_EVENT_QP_REQ_ERR", "qp_request_error", AsyncScope::kQp},
    {IBV_EVENT_QP_ACCESS_ERR, "IBV_EVENT_QP_ACCESS_ERR", "qp_access_error", AsyncScope::kQp},
    {IBV_EVENT_COMM_EST, "IBV_EVENT_COMM_EST", "comm_established", AsyncScope::kQp},
    {IBV_EVENT_SQ_DRAINED, "IBV_EVENT_SQ_DRAINED", "sq_drained", AsyncScope::kQp},
    {IBV_EVENT_PATH_MIG, "IBV_EVENT_PATH_MIG", "path_migrated", AsyncScope::kQp},
    {IBV_EVENT_PATH_MIG_ERR, "IBV_EVENT_PATH_MIG_ERR", "path_migration_error", AsyncScope::kQp},
    {IBV_EVENT_DEVICE_FATAL, "IBV_EVENT_DEVICE_FATAL", "device_fatal", AsyncScope::kDevice},
    {IBV_EVENT_PORT_ACTIVE, "IBV_EVENT_PORT_ACTIVE", "port_active", AsyncScope::kPort},
    {IBV_EVENT_PORT_ERR, "IBV_EVENT_PORT_ERR", "port_error", AsyncScope::kPort},
    {IBV_EVENT_LID_CHANGE, "IBV_EVENT_LID_CHANGE", "lid_change", AsyncScope::kPort},
    {IBV_EVENT_PKEY_CHANGE, "IBV_EVENT_PKEY_CHANGE", "pkey_change", AsyncScope::kPort},
    {IBV_EVENT_SM_CHANGE, "IBV_EVENT_SM_CHANGE", "sm_change", AsyncScope::kPort},
    {IBV_EVENT_SRQ_ERR, "IBV_EVENT_SRQ_ERR", "srq_error", AsyncScope::kSrq},
    {IBV_EVENT_SRQ_LIMIT_REACHED, "IBV_EVENT_SRQ_LIMIT_REACHED", "srq_limit_reached", AsyncScope::kSrq},
    {IBV_EVENT_QP_LAST_WQE_REACHED, "IBV_EVENT_QP_LAST_WQE_REACHED", "qp_last_wqe_reached", AsyncScope::kQp},
    {IBV_EVENT_CLIENT_REREGISTER, "IBV_EVENT_CLIENT_REREGISTER", "client_reregister", AsyncScope::kPort},
    {IBV_EVENT_GID_CHANGE, "IBV_EVENT_GID_CHANGE", "gid_change", AsyncScope::kPort},
    {IBV_EVENT_WQ_FATAL, "IBV_EVENT_WQ_FATAL", "wq_fatal", AsyncScope::kWq},
};

struct CmName {
  rdma_cm_event_type type;
  const char* id;
  const char* name;
  const char* state;
};
constexpr CmName kCmEvents[] = {
    {RDMA_CM_EVENT_ADDR_RESOLVED, "RDMA_CM_EVENT_ADDR_RESOLVED", "addr_resolved", ""},
    {RDMA_CM_EVENT_ADDR_ERROR, "RDMA_CM_EVENT_ADDR_ERROR", "addr_error", "failed"},
    {RDMA_CM_EVENT_ROUTE_RESOLVED, "RDMA_CM_EVENT_ROUTE_RESOLVED", "route_resolved", ""},
    {RDMA_CM_EVENT_ROUTE_ERROR, "RDMA_CM_EVENT_ROUTE_ERROR", "route_error", "failed"},
    {RDMA_CM_EVENT_CONNECT_REQUEST, "RDMA_CM_EVENT_CONNECT_REQUEST", "connect_request", ""},
    {RDMA_CM_EVENT_CONNECT_RESPONSE, "RDMA_CM_EVENT_CONNECT_RESPONSE", "connect_response", ""},
    {RDMA_CM_EVENT_CONNECT_ERROR, "RDMA_CM_EVENT_CONNECT_ERROR", "connect_error", "failed"},
    {RDMA_CM_EVENT_UNREACHABLE, "RDMA_CM_EVENT_UNREACHABLE", "unreachable", "failed"},
    {RDMA_CM_EVENT_REJECTED, "RDMA_CM_EVENT_REJECTED", "rejected", "rejected"},
    {RDMA_CM_EVENT_ESTABLISHED, "RDMA_CM_EVENT_ESTABLISHED", "established", "established"},
    {RDMA_CM_EVENT_DISCONNECTED, "RDMA_CM_EVENT_DISCONNECTED", "disconnected", "closed"},
    {RDMA_CM_EVENT_DEVICE_REMOVAL, "RDMA_CM_EVENT_DEVICE_REMOVAL", "device_removal", "failed"},
    {RDMA_CM_EVENT_MULTICAST_JOIN, "RDMA_CM_EVENT_MULTICAST_JOIN", "multicast_join", ""},
    {RDMA_CM_EVENT_MULTICAST_ERROR, "RDMA_CM_EVENT_MULTICAST_ERROR", "multicast_error", ""},
    {RDMA_CM_EVENT_ADDR_CHANGE, "RDMA_CM_EVENT_ADDR_CHANGE", "addr_change", ""},
    {RDMA_CM_EVENT_TIMEWAIT_EXIT, "RDMA_CM_EVENT_TIMEWAIT_EXIT", "timewait_exit", ""},
};

template <typename Table, typename Key>
const auto* find(const Table& table, Key key) {
  for (const auto& row : table)
    if (row.type == key) return &row;
  return static_cast<decltype(&table[0])>(nullptr);
}
}  // namespace

const char* wc_opcode_name(ibv_wc_opcode op) {
  switch (op) {
    case IBV_WC_SEND: return "send";
    case IBV_WC_RDMA_WRITE: return "rdma_write";
    case IBV_WC_RDMA_READ: return "rdma_read";
    case IBV_WC_COMP_SWAP:
    case IBV_WC_FETCH_ADD: return "atomic";
    case IBV_WC_BIND_MW: return "bind_mw";
    case IBV_WC_LOCAL_INV: return "local_inv";
    case IBV_WC_TSO: return "tso";
    case IBV_WC_ATOMIC_WRITE: return "atomic_write";
    case IBV_WC_RECV: return "recv";
    case IBV_WC_RECV_RDMA_WITH_IMM: return "recv_imm";
    default: return "other";
  }
}

std::string completion_name(bool success, ibv_wc_opcode op, std::uint64_t wr_id) {
  if (success) return wc_opcode_name(op);
  const auto w = decode_wr_id(wr_id);
  if (!w) return "unknown";
  switch (w->purpose) {
    case WrPurpose::kReceive: return "recv";
    case WrPurpose::kEcho:
    case WrPurpose::kFencedSend:
    case WrPurpose::kAdvertisement: return "send";
    case WrPurpose::kCommand:
      switch (static_cast<conformance::UlpOperation>(w->operation)) {
        case conformance::UlpOperation::kRead: return "rdma_read";
        case conformance::UlpOperation::kSend: return "send";
        case conformance::UlpOperation::kWrite: return "rdma_write";
        case conformance::UlpOperation::kAtomic: return "atomic";
      }
      return "unknown";
  }
  return "unknown";
}

const char* wc_status_words(ibv_wc_status s) {
  const auto* row = find(kStatuses, s);
  return row ? row->words : "unknown status";
}
const char* wc_status_id(ibv_wc_status s) {
  const auto* row = find(kStatuses, s);
  return row ? row->id : "IBV_WC_?";
}

const char* async_event_name(ibv_event_type t) {
  const auto* row = find(kAsyncEvents, t);
  return row ? row->name : "unknown_async_event";
}
const char* async_event_id(ibv_event_type t) {
  const auto* row = find(kAsyncEvents, t);
  return row ? row->id : "IBV_EVENT_?";
}
AsyncScope async_event_scope(ibv_event_type t) {
  const auto* row = find(kAsyncEvents, t);
  return row ? row->scope : AsyncScope::kDevice;
}

const char* cm_event_name(rdma_cm_event_type t) {
  const auto* row = find(kCmEvents, t);
  return row ? row->name : "unknown_cm_event";
}
const char* cm_event_id(rdma_cm_event_type t) {
  const auto* row = find(kCmEvents, t);
  return row ? row->id : "RDMA_CM_EVENT_?";
}
const char* cm_event_state(rdma_cm_event_type t) {
  const auto* row = find(kCmEvents, t);
  return row ? row->state : "failed";
}

std::string cm_status_text(int status) {
  if (status == 0) return "0";
  const int e = status < 0 ? -status : status;
  const char* name = nullptr;
  switch (e) {
    case ECONNREFUSED: name = "ECONNREFUSED"; break;
    case ECONNRESET: name = "ECONNRESET"; break;
    case ETIMEDOUT: name = "ETIMEDOUT"; break;
    case ECONNABORTED: name = "ECONNABORTED"; break;
    case EHOSTUNREACH: name = "EHOSTUNREACH"; break;
    case ENETUNREACH: name = "ENETUNREACH"; break;
    case EINVAL: name = "EINVAL"; break;
    case ENODEV: name = "ENODEV"; break;
    case EPROTO: name = "EPROTO"; break;
    default: break;
  }
  std::string out = std::to_string(status);
  if (name) out += std::string(" (") + name + ")";
  return out;
}

}  // namespace rdmaconf::agent::rdma_core
