// The device-independent half of the rdma-core backend: what the test ULP
// profile (docs/conformance.md, "Test ULP"; conformance/engine/test_ulp.hpp)
// becomes in verbs terms, decided without touching a device so that every
// rule here is unit-tested on a host without RDMA hardware.
//
//   - the advertisement, fitted into the private data rdma_cm lets a ULP put
//     into the MPA Reply (and what is left out when it does not fit);
//   - what a work request id means (every completion names its purpose);
//   - a test ULP command turned into a list of verbs work requests, and the
//     send-queue gate that posts them back to back;
//   - the ORD/IRD (initiator_depth / responder_resources) given to rdma_cm.
//
// Only enum values of <infiniband/verbs.h> are used here; nothing links
// libibverbs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/test_ulp.hpp"

namespace rdmaconf::agent::rdma_core {

// ------------------------------------------------------- private data budget

// rdma_conn_param.private_data_len (librdmacm, and struct rdma_ucm_conn_param
// of the kernel ABI) is one octet: a ULP hands rdma_accept()/rdma_connect()
// at most 255 octets, whatever MPA allows.
inline constexpr std::size_t kRdmaCmPrivateDataMax = 255;
// RFC 5044 §7.1.4: an MPA Request or Reply carries at most 512 octets of
// private data. RFC 6581 §5 puts its 4 octets (IRD, ORD) in front of the
// ULP's, inside that limit: the ULP keeps 508 under Rev 2.
inline constexpr std::size_t kMpaPrivateDataMax = 512;
inline constexpr std::size_t kMpaV2EnhancedPrefix = 4;
// Linux siw's MPA_MAX_PRIVDATA (RDMA_MAX_PRIVATE_DATA): its cap on private
// data sent and received, RFC 6581's octets included.
inline constexpr std::size_t kSiwMaxPrivateData = 256;

// Octets the test ULP may put in a Reply: the smallest of rdma_cm's field,
// MPA Rev 2's share, and a driver limit when one is known (0 = none known).
std::size_t reply_private_data_budget(std::size_t driver_limit);

struct FittedAdvertisement {
  std::vector<std::uint8_t> octets;     // "RDMACONF" | 1 | count | entries
  std::vector<std::string> advertised;  // in order
  std::vector<std::string> omitted;     // did not fit (reported in capabilities)
};
// The buffers in priority order; those that do not fit in `budget` octets
// are left out from the end (an entry is 24 octets after a 10-octet head, so
// 255 octets hold 10 buffers).
FittedAdvertisement fit_advertisement(const std::vector<conformance::AdvertisedBuffer>& buffers, std::size_t budget);

// ----------------------------------------------------------- work request ids

// Every work request the backend posts carries its purpose in wr_id, so a
// completion (even one in error, whose opcode verbs leaves undefined) says
// what it was: bits 56-63 purpose, 48-55 the command's operation, 0-47 an
// index (receive slot, echo slot, or command sequence number).
enum class WrPurpose : std::uint8_t {
  kReceive = 1,        // a posted receive of the `recv` buffer, index = slot
  kEcho = 2,           // a Send echoing a received Send, index = echo slot
  kCommand = 3,        // one operation a test ULP command asked for
  kFencedSend = 4,     // the 4-octet Send after a command with the fence flag
  kAdvertisement = 5,  // the initiator's first Send carrying the advertisement
};

struct WrId {
  WrPurpose purpose = WrPurpose::kReceive;
  std::uint8_t operation = 0;  // conformance::UlpOperation for kCommand
  std::uint64_t index = 0;     // < 2^48
};
std::uint64_t encode_wr_id(const WrId& w);
std::optional<WrId> decode_wr_id(std::uint64_t wr_id);
// "receive slot 3", "echo slot 1", "command 7: rdma_read", "fenced send 8",
// "advertisement"; "unknown wr_id 0x..." for anything else.
std::string describe_wr_id(std::uint64_t wr_id);

// ----------------------------------------------------------- command plans

enum class WrKind : std::uint8_t { kSend, kRdmaWrite, kRdmaRead, kAtomicFetchAdd, kAtomicCmpSwap };
const char* wr_kind_name(WrKind k);  // "send", "rdma_write", "rdma_read", "atomic"

// Where a work request's local octets are.
enum class LocalBuffer : std::uint8_t {
  kPattern,       // the counting pattern (Send and Write payloads)
  kRw,            // the `rw` buffer (Data Sink of the IUT's own RDMA Reads)
  kAtomicResult,  // 8 octets receiving an Atomic's original value
  kEcho,          // an echo slot (the wr_id's index), holding a received Send's copy
  kAdvertisement, // the advertisement the initiator sends first
};

struct PlannedWr {
  WrKind kind = WrKind::kSend;
  std::uint64_t wr_id = 0;
  LocalBuffer local = LocalBuffer::kPattern;
  std::uint32_t length = 0;
  std::uint32_t rkey = 0;         // the tester's STag
  std::uint64_t remote_addr = 0;  // the tester's Tagged Offset
  bool fence = false;             // IBV_SEND_FENCE (RFC 5040 §5.5 Read fence)
  std::uint64_t compare_add = 0;  // FetchAdd: Add Data; CmpSwap: Compare Data
  std::uint64_t swap = 0;         // CmpSwap: Swap Data
};

struct PlanLimits {
  std::uint32_t pattern_length = 0;  // octets of the registered counting pattern
  std::uint32_t rw_length = 0;       // octets of `rw`
  std::uint32_t max_message = 0;     // the port's max_msg_sz (0: no limit known)
  bool atomics = false;              // the device offers atomics (atomic_cap)
};

struct CommandPlan {
  std::vector<PlannedWr> wrs;          // in posting order
  std::vector<std::string> refused;    // what the backend cannot do, one line each
  std::vector<std::string> shortened;  // lengths cut to a limit, one line each
};

// The work requests of one command (test_ulp.hpp, UlpCommandSpec), numbered
// from `sequence` on (advanced past the last one used). Count 0 is one
// operation, as in the reference. RFC 7306 Swap has no verbs opcode and is
// refused; so are atomics on a device without them, and operations outside
// the profile.
CommandPlan plan_command(const conformance::UlpCommand& c, const PlanLimits& limits, std::uint64_t& sequence);

// The send queue is bounded (max_send_wr); a command may ask for more work
// than fits. The gate keeps what waits, in order, and hands out what may be
// posted now. ORD is not enforced here: the device holds Read and Atomic
// Requests beyond the ORD rdma_cm settled (RFC 5040 §5.2.1), which is the
// device's behaviour under test.
class SendQueueGate {
 public:
  SendQueueGate(std::size_t depth, std::size_t max_waiting) : depth_(depth), max_waiting_(max_waiting) {}
  // false when the waiting list is full (the work is dropped and reported).
  bool push(PlannedWr w);
  // The next work request that may be posted now, if any; the caller posts
  // it and calls posted(), or calls requeue_front() when the post failed.
  std::optional<PlannedWr> next();
  void posted() { ++in_flight_; }
  void requeue_front(PlannedWr w) { waiting_.push_front(std::move(w)); }
  // A send-queue completion (success or not) frees a slot.
  void completed() {
    if (in_flight_ > 0) --in_flight_;
  }
  std::size_t in_flight() const { return in_flight_; }
  std::size_t waiting() const { return waiting_.size(); }

 private:
  std::size_t depth_, max_waiting_;
  std::size_t in_flight_ = 0;
  std::deque<PlannedWr> waiting_;
};

// ------------------------------------------------------------- ORD and IRD

struct DeviceDepths {
  int max_qp_rd_atom = 0;       // IRD the device can offer per QP
  int max_qp_init_rd_atom = 0;  // ORD the device can use per QP
};

// What rdma_accept()/rdma_connect() get: initiator_depth is our ORD,
// responder_resources our IRD (RFC 6581 §5 carries both in the enhanced
// header; RFC 5044 Rev 1 leaves them to the ULP).
struct Depths {
  std::uint8_t initiator_depth = 0;
  std::uint8_t responder_resources = 0;
};

// With no IRD from the peer (Rev 1: rdma_cm reports 0), the ORD the test
// ULP uses, as the reference does.
inline constexpr int kRev1Ord = 4;

// Responder: our ORD never above the IRD the initiator announced (RFC 6581
// §5; rdma_cm reports it as the CONNECT_REQUEST's initiator_depth), nor above
// the device's; our IRD is the device's (bounded by one octet).
Depths accept_depths(const DeviceDepths& device, std::uint8_t peer_ird);
// Initiator: both at the device's maximum; the device lowers its ORD to
// the Reply's IRD or fails the connection (RFC 6581 §9), which is under test.
Depths connect_depths(const DeviceDepths& device);

}  // namespace rdmaconf::agent::rdma_core
