// The Data Sink side of DDP: where the payload of an incoming segment goes,
// and every check the RFCs require before it may go there.
//
// Tagged segments name a registered buffer by STag (RFC 5041 §5.1); the
// MemoryTable keeps the registrations with the properties RFC 5040 §8 and
// RFC 5042 §5 attach to an STag: base TO and length, access rights, the
// protection domain that ties it to RDMAP streams, and whether it is still
// valid. Untagged segments consume buffers the ULP posted on a queue, one
// per message in MSN order (RFC 5041 §5.3); UntaggedQueues places them and
// delivers whole messages in order (§5.4).
//
// Every check is one named step in the order RFC 5041 §7.1 lists them, and
// each can be switched off through Checks so that the conformance engine can
// build a deliberately broken peer ("skip bounds check"). A switched-off check
// never lets the reference stack write outside memory it was given: octets
// that fall outside a buffer are dropped instead of placed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "ddp/errors.hpp"
#include "ddp/headers.hpp"
#include "wire/chunks.hpp"
#include "wire/ring.hpp"

namespace rdmaconf::ddp {

// Access rights of a registered buffer (RFC 5042 §5.1; RFC 7306 §5 adds
// the remote atomic right).
enum class Access : std::uint8_t {
  kNone = 0,
  kLocalRead = 1 << 0,
  kLocalWrite = 1 << 1,  // target of an RDMA Read Response (the local Data Sink)
  kRemoteRead = 1 << 2,  // source of an RDMA Read Response
  kRemoteWrite = 1 << 3, // target of an RDMA Write
  kRemoteAtomic = 1 << 4,// target of an Atomic Request (RFC 7306)
};
constexpr Access operator|(Access a, Access b) {
  return static_cast<Access>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
constexpr bool has(Access set, Access right) {
  return (static_cast<std::uint8_t>(set) & static_cast<std::uint8_t>(right)) ==
         static_cast<std::uint8_t>(right);
}

// RFC 5042 §5.1 / RFC 5040 §2: the protection domain an STag and an RDMAP
// stream share when the STag may be used on that stream.
enum class ProtectionDomain : std::uint32_t {};

struct MemoryRegion {
  Stag stag{};
  std::uint64_t base_to = 0;          // TO of memory[0]
  std::span<std::uint8_t> memory;     // owned by the ULP
  Access access = Access::kNone;
  ProtectionDomain pd{};
  bool valid = true;                  // false once invalidated (RFC 5040 §5.3)
  bool remote_invalidate = true;      // may a peer's Send with Invalidate invalidate it
};

// The checks of the Data Sink, each one rule. All on by default.
struct Checks {
  bool ddp_version = true;         // RFC 5041 §4.1: DV must be 1
  bool stag_valid = true;          // RFC 5041 §7.1 step 1
  bool stag_key = true;            // RFC 5042 §6.1.1: the key octet names the registration (of this stream)
  bool stream_association = true;  // RFC 5041 §7.1 step 1 / RFC 5042 §5.1
  bool access_rights = true;       // RFC 5040 §8 / RFC 5042 §5.1
  bool base_bounds = true;         // RFC 5041 §7.1 steps 3-4
  bool to_wrap = true;             // RFC 5041 §7.1 step 5
  bool queue_number = true;        // RFC 5041 §7.1 untagged step 1
  bool msn = true;                 // RFC 5041 §7.1 untagged step 2
  bool message_offset = true;      // RFC 5041 §7.1 untagged step 3
  bool message_length = true;      // RFC 5041 §7.1 untagged step 4
};

// Which tagged-buffer rule a reference broke. The caller maps it to the
// Terminate triple of its layer: DDP's tagged buffer codes for RDMA Write and
// Read Response placement, RDMAP's Remote Protection codes for the buffers
// an RDMA Read Request or Atomic Request names (RFC 5040 §4.8).
enum class TaggedFault : std::uint8_t {
  kInvalidStag,
  kNotAssociated,
  kAccessRights,
  kBaseOrBounds,
  kToWrap,
};

// The DDP triple for a tagged fault. DDP has no access-rights code (RFC
// 5041 §7.2); RFC 5040 reports that violation as RDMAP's Remote Protection
// Error / Access rights violation, which is what this returns for it.
TerminateCode ddp_code_for(TaggedFault f);
std::string_view describe(TaggedFault f);

class MemoryTable {
 public:
  // `first_key`: the key of the first registration. A device whose streams
  // each keep their own table gives each a different one, so that no STag
  // of one stream is an STag of another (RFC 5042 §6.1.1).
  explicit MemoryTable(std::uint8_t first_key = 0) : next_key_(first_key) {}

  // Registers `memory` at `base_to` and returns its new STag. STags are an
  // index in the upper 24 bits and a key in the low 8 bits (the layout of
  // RFC 5040 implementations such as siw); re-registration changes the key,
  // so a stale STag of an earlier registration is invalid (RFC 5042 §5.2).
  Stag register_region(std::span<std::uint8_t> memory, std::uint64_t base_to, Access access,
                       ProtectionDomain pd, bool remote_invalidate = true);
  bool deregister(Stag stag);

  const MemoryRegion* find(Stag stag) const;
  MemoryRegion* find(Stag stag);

  // Resolves [to, to + length) of `stag` for an access needing `right` on a
  // stream of protection domain `pd`. The checks run in RFC 5041 §7.1 order:
  // STag valid, STag associated with the stream, access rights, TO at or
  // above the base, no 64-bit wrap of TO + length, end within the buffer.
  // On success returns the octets to access, clipped to the buffer when a
  // bounds check is switched off.
  std::variant<std::span<std::uint8_t>, TaggedFault> resolve(Stag stag, std::uint64_t to,
                                                             std::uint64_t length, Access right,
                                                             ProtectionDomain pd,
                                                             const Checks& checks);

 private:
  std::vector<MemoryRegion>::const_iterator at_index(std::uint32_t index) const;
  const MemoryRegion* by_index(std::uint32_t index) const;

  std::vector<MemoryRegion> regions_;  // sorted by STag index (stag >> 8)
  std::uint32_t next_index_ = 1;
  std::uint8_t next_key_ = 0;
};

// A buffer the ULP posted on an untagged queue.
struct PostedBuffer {
  std::uint64_t wr_id = 0;
  std::span<std::uint8_t> memory;
};

// A whole untagged message, handed over in MSN order (RFC 5041 §5.4).
struct DeliveredMessage {
  QueueNumber qn{};
  Msn msn{};
  PostedBuffer buffer;
  std::uint32_t length = 0;      // octets of the message
  std::uint8_t rsvd_ulp = 0;     // from the message's segments (RFC 5041 §4.3)
  std::uint32_t rsvd_ulp32 = 0;
};

// One untagged segment as the Data Sink sees it.
struct UntaggedSegment {
  QueueNumber qn{};
  Msn msn{};
  std::uint32_t mo = 0;
  bool last = false;
  std::uint8_t rsvd_ulp = 0;
  std::uint32_t rsvd_ulp32 = 0;
  wire::Chunks payload;
};

class UntaggedQueues {
 public:
  explicit UntaggedQueues(std::uint32_t queue_count);

  void post(QueueNumber qn, PostedBuffer buffer);
  std::size_t posted(QueueNumber qn) const;  // buffers not yet delivered
  Msn expected_msn(QueueNumber qn) const;    // MSN of the oldest undelivered message

  // Places one segment (copies its payload into the posted buffer the QN and
  // MSN select) after the RFC 5041 §7.1 untagged checks: QN valid, a buffer
  // for the MSN (MSN range, then no buffer), MO within the buffer, MO plus
  // length within the buffer. On success the message may have become
  // deliverable: take_delivered() hands messages over in MSN order.
  std::optional<PlacementError> place(const UntaggedSegment& segment, const Checks& checks);

  std::optional<DeliveredMessage> take_delivered();

  // Hands every posted buffer not yet delivered to `f`, oldest first, and
  // forgets them (for flushing).
  template <typename F>
  void drain(QueueNumber qn, F&& f) {
    if (value(qn) >= queues_.size()) return;
    wire::Ring<Slot>& slots = queues_[value(qn)].slots;
    slots.for_each([&](const Slot& s) { f(s.buffer); });
    slots.clear();
  }

 private:
  struct Slot {
    PostedBuffer buffer;
    std::uint64_t placed = 0;                 // octets placed so far
    std::optional<std::uint32_t> length;      // known once the L segment arrived
    std::uint8_t rsvd_ulp = 0;
    std::uint32_t rsvd_ulp32 = 0;
    bool complete() const { return length.has_value() && placed >= *length; }
  };
  struct Queue {
    Msn next_msn = kFirstMsn;
    wire::Ring<Slot> slots;  // slots[k] holds the message with MSN next_msn + k
  };
  std::vector<Queue> queues_;
  wire::Ring<DeliveredMessage> delivered_;
};

}  // namespace rdmaconf::ddp
