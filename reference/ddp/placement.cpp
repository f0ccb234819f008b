#include "ddp/placement.hpp"

#include <algorithm>
#include <utility>

namespace rdmaconf::ddp {

TerminateCode ddp_code_for(TaggedFault f) {
  switch (f) {
    case TaggedFault::kInvalidStag:
      return code_of(TaggedError::kInvalidStag);
    case TaggedFault::kNotAssociated:
      return code_of(TaggedError::kStagNotAssociated);
    case TaggedFault::kAccessRights:
      // RFC 5041 §7.2 has no access-rights code; RFC 5040 §4.8's Remote
      // Protection Error / Access rights violation (0x0/0x1/0x02) is the
      // registered triple for it.
      return TerminateCode{Layer::kRdmap, 0x1, 0x02};
    case TaggedFault::kBaseOrBounds:
      return code_of(TaggedError::kBaseOrBoundsViolation);
    case TaggedFault::kToWrap:
      return code_of(TaggedError::kToWrap);
  }
  return kDdpLocalCatastrophic;
}

std::string_view describe(TaggedFault f) {
  switch (f) {
    case TaggedFault::kInvalidStag:
      return "STag unknown or invalidated";
    case TaggedFault::kNotAssociated:
      return "STag belongs to another protection domain than this stream";
    case TaggedFault::kAccessRights:
      return "STag lacks the access right the operation needs";
    case TaggedFault::kBaseOrBounds:
      return "TO and length not within the registered buffer";
    case TaggedFault::kToWrap:
      return "TO plus length wraps 2^64";
  }
  return "";
}

// regions_ is kept sorted by STag index: a stream registers a handful of
// regions, and one array of them costs one allocation where a tree cost one
// per region.
std::vector<MemoryRegion>::const_iterator MemoryTable::at_index(std::uint32_t index) const {
  return std::lower_bound(regions_.begin(), regions_.end(), index,
                          [](const MemoryRegion& r, std::uint32_t i) { return (value(r.stag) >> 8) < i; });
}

const MemoryRegion* MemoryTable::by_index(std::uint32_t index) const {
  auto it = at_index(index);
  return it != regions_.end() && (value(it->stag) >> 8) == index ? &*it : nullptr;
}

Stag MemoryTable::register_region(std::span<std::uint8_t> memory, std::uint64_t base_to,
                                  Access access, ProtectionDomain pd, bool remote_invalidate) {
  const std::uint32_t index = next_index_++ & 0x00ffffffu;
  const std::uint8_t key = next_key_++;
  const Stag stag{index << 8 | key};
  const MemoryRegion region{stag, base_to, memory, access, pd, true, remote_invalidate};
  if (regions_.empty()) regions_.reserve(8);
  auto it = regions_.begin() + (at_index(index) - regions_.cbegin());
  // An index used again (after 2^24 registrations) replaces the old region.
  if (it != regions_.end() && (value(it->stag) >> 8) == index) *it = region;
  else regions_.insert(it, region);
  return stag;
}

bool MemoryTable::deregister(Stag stag) {
  const MemoryRegion* r = find(stag);
  if (r == nullptr) return false;
  regions_.erase(regions_.begin() + (r - regions_.data()));
  return true;
}

const MemoryRegion* MemoryTable::find(Stag stag) const {
  const MemoryRegion* r = by_index(value(stag) >> 8);
  // The key octet must match too: an STag of an earlier registration of the
  // same index is not this region (RFC 5042 §5.2).
  if (r == nullptr || r->stag != stag) return nullptr;
  return r;
}

MemoryRegion* MemoryTable::find(Stag stag) {
  return const_cast<MemoryRegion*>(std::as_const(*this).find(stag));
}

std::variant<std::span<std::uint8_t>, TaggedFault> MemoryTable::resolve(
    Stag stag, std::uint64_t to, std::uint64_t length, Access right, ProtectionDomain pd,
    const Checks& checks) {
  // RFC 5042 §6.1.1: an STag names one registration of this stream, index
  // and key; without the key check an STag of another stream (or of an
  // earlier registration) whose index is in use here names that region.
  MemoryRegion* region =
      checks.stag_key ? find(stag) : const_cast<MemoryRegion*>(std::as_const(*this).by_index(value(stag) >> 8));
  // RFC 5041 §7.1 step 1: the STag must be valid for this stream. An STag we
  // never registered has nothing to place into even when the check is off.
  if (region == nullptr) return TaggedFault::kInvalidStag;
  if (checks.stag_valid && !region->valid) return TaggedFault::kInvalidStag;
  // RFC 5042 §5.1: an STag may be used only on streams of its protection domain.
  if (checks.stream_association && region->pd != pd) return TaggedFault::kNotAssociated;
  // RFC 5041 §7.1 step 2 / RFC 5040 §8: the buffer must allow this access.
  if (checks.access_rights && !has(region->access, right)) return TaggedFault::kAccessRights;
  // RFC 5041 §7.1 step 3: TO at or above the buffer's base.
  if (checks.base_bounds && to < region->base_to) return TaggedFault::kBaseOrBounds;
  // RFC 5041 §7.1 step 5: the 64-bit sum TO + length must not wrap. Checked
  // before the end bound because a wrapped sum looks like a small end.
  if (checks.to_wrap && length > 0 && to + (length - 1) < to) return TaggedFault::kToWrap;
  // RFC 5041 §7.1 step 4: the last octet within the buffer.
  const std::uint64_t size = region->memory.size();
  if (checks.base_bounds && (length > size || to - region->base_to > size - length))
    return TaggedFault::kBaseOrBounds;

  // Whatever the checks, only octets inside the registered memory are handed out.
  if (to < region->base_to || to - region->base_to >= size) return std::span<std::uint8_t>{};
  const std::uint64_t start = to - region->base_to;
  const std::uint64_t n = std::min<std::uint64_t>(length, size - start);
  return region->memory.subspan(start, n);
}

UntaggedQueues::UntaggedQueues(std::uint32_t queue_count) : queues_(queue_count) {}

void UntaggedQueues::post(QueueNumber qn, PostedBuffer buffer) {
  if (value(qn) < queues_.size()) {
    Slot slot;
    slot.buffer = buffer;
    queues_[value(qn)].slots.push_back(slot);
  }
}

std::size_t UntaggedQueues::posted(QueueNumber qn) const {
  return value(qn) < queues_.size() ? queues_[value(qn)].slots.size() : 0;
}

Msn UntaggedQueues::expected_msn(QueueNumber qn) const {
  return value(qn) < queues_.size() ? queues_[value(qn)].next_msn : Msn{};
}

std::optional<PlacementError> UntaggedQueues::place(const UntaggedSegment& seg,
                                                    const Checks& checks) {
  constexpr std::string_view kSection = "RFC 5041 §7.1";
  // RFC 5041 §7.1 step 1: the QN must name a queue of this stream.
  if (value(seg.qn) >= queues_.size()) {
    if (checks.queue_number)
      return PlacementError{code_of(UntaggedError::kInvalidQn), "QN names no queue of this stream",
                            kSection};
    return std::nullopt;  // nowhere to place: dropped
  }
  Queue& q = queues_[value(seg.qn)];

  // RFC 5041 §7.1 step 2: QN and MSN must select a posted buffer. The MSN
  // counts modulo 2^32 (§4.3); k is how far it lies past the oldest message
  // not yet delivered. Half the sequence space behind is an MSN whose message
  // was already delivered: outside the valid range. Ahead of the buffers
  // posted: no buffer available.
  const std::uint32_t k = value(seg.msn) - value(q.next_msn);
  if (k >= 0x80000000u) {
    if (checks.msn)
      return PlacementError{code_of(UntaggedError::kInvalidMsnRange),
                            "MSN of a message already delivered", kSection};
    return std::nullopt;
  }
  if (k >= q.slots.size()) {
    if (checks.msn)
      return PlacementError{code_of(UntaggedError::kInvalidMsnNoBuffer),
                            "no buffer posted for this MSN", kSection};
    return std::nullopt;
  }
  Slot& slot = q.slots[k];
  const std::uint64_t size = slot.buffer.memory.size();
  const std::uint64_t len = seg.payload.size();
  const std::uint64_t end = std::uint64_t{seg.mo} + len;

  // RFC 5041 §7.1 step 3: MO within the buffer, and (once the L segment told
  // the message length) within the message.
  if (checks.message_offset && (seg.mo > size || (slot.length && end > *slot.length)))
    return PlacementError{code_of(UntaggedError::kInvalidMo), "MO beyond the buffer or message",
                          kSection};
  // RFC 5041 §7.1 step 4: MO plus the segment's length within the buffer.
  if (checks.message_length && end > size)
    return PlacementError{code_of(UntaggedError::kMessageTooLong),
                          "message longer than the posted buffer", kSection};

  // Place the octets that fall inside the buffer.
  std::uint64_t at = seg.mo;
  seg.payload.for_each([&](wire::Bytes piece) {
    if (at < size) {
      const std::uint64_t n = std::min<std::uint64_t>(piece.size(), size - at);
      std::copy_n(piece.begin(), n, slot.buffer.memory.begin() + static_cast<std::ptrdiff_t>(at));
    }
    at += piece.size();
  });
  slot.placed += len;
  slot.rsvd_ulp = seg.rsvd_ulp;
  slot.rsvd_ulp32 = seg.rsvd_ulp32;
  // RFC 5041 §4.1: the L segment carries the highest MO, so it fixes the length.
  if (seg.last) slot.length = static_cast<std::uint32_t>(std::min<std::uint64_t>(end, 0xffffffffu));

  // RFC 5041 §5.4: deliver complete messages in MSN order.
  while (!q.slots.empty() && q.slots.front().complete()) {
    const Slot done = q.slots.take_front();
    delivered_.push_back(DeliveredMessage{seg.qn, q.next_msn, done.buffer, *done.length,
                                          done.rsvd_ulp, done.rsvd_ulp32});
    q.next_msn = next(q.next_msn);
  }
  return std::nullopt;
}

std::optional<DeliveredMessage> UntaggedQueues::take_delivered() {
  if (delivered_.empty()) return std::nullopt;
  return delivered_.take_front();
}

}  // namespace rdmaconf::ddp
