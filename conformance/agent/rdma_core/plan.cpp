#include "agent/rdma_core/plan.hpp"

#include <algorithm>
#include <cstdio>

namespace rdmaconf::agent::rdma_core {

using conformance::UlpCommandSpec;
using conformance::UlpOperation;

namespace {
// test_ulp.hpp: "RDMACONF", version, count, then 24 octets per buffer.
constexpr std::size_t kAdvertisementHead = 8 + 1 + 1;
constexpr std::size_t kAdvertisementEntry = 8 + 4 + 8 + 4;
constexpr std::size_t kFencedSendLength = 4;  // test_ulp.hpp, Fence
constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << 48) - 1;
}  // namespace

std::size_t reply_private_data_budget(std::size_t driver_limit) {
  std::size_t budget = std::min(kRdmaCmPrivateDataMax, kMpaPrivateDataMax - kMpaV2EnhancedPrefix);
  if (driver_limit != 0) budget = std::min(budget, driver_limit);
  return budget;
}

FittedAdvertisement fit_advertisement(const std::vector<conformance::AdvertisedBuffer>& buffers, std::size_t budget) {
  FittedAdvertisement out;
  std::vector<conformance::AdvertisedBuffer> kept;
  std::size_t size = kAdvertisementHead;
  for (const auto& b : buffers) {
    // The count is one octet, so at most 255 entries whatever the budget.
    if (size + kAdvertisementEntry <= budget && kept.size() < 255) {
      kept.push_back(b);
      size += kAdvertisementEntry;
      out.advertised.push_back(b.name);
    } else {
      out.omitted.push_back(b.name);
    }
  }
  if (budget >= kAdvertisementHead) out.octets = conformance::make_advertisement(kept);
  return out;
}

std::uint64_t encode_wr_id(const WrId& w) {
  return (std::uint64_t{static_cast<std::uint8_t>(w.purpose)} << 56) | (std::uint64_t{w.operation} << 48) |
         (w.index & kIndexMask);
}

std::optional<WrId> decode_wr_id(std::uint64_t wr_id) {
  const auto purpose = static_cast<std::uint8_t>(wr_id >> 56);
  if (purpose < static_cast<std::uint8_t>(WrPurpose::kReceive) ||
      purpose > static_cast<std::uint8_t>(WrPurpose::kAdvertisement))
    return std::nullopt;
  WrId w;
  w.purpose = static_cast<WrPurpose>(purpose);
  w.operation = static_cast<std::uint8_t>(wr_id >> 48);
  w.index = wr_id & kIndexMask;
  return w;
}

namespace {
const char* operation_name(std::uint8_t op) {
  switch (static_cast<UlpOperation>(op)) {
    case UlpOperation::kRead: return "rdma_read";
    case UlpOperation::kSend: return "send";
    case UlpOperation::kWrite: return "rdma_write";
    case UlpOperation::kAtomic: return "atomic";
  }
  return "?";
}
}  // namespace

std::string describe_wr_id(std::uint64_t wr_id) {
  const auto w = decode_wr_id(wr_id);
  char buf[64];
  if (!w) {
    std::snprintf(buf, sizeof buf, "unknown wr_id 0x%llx", static_cast<unsigned long long>(wr_id));
    return buf;
  }
  const auto i = static_cast<unsigned long long>(w->index);
  switch (w->purpose) {
    case WrPurpose::kReceive: std::snprintf(buf, sizeof buf, "receive slot %llu", i); break;
    case WrPurpose::kEcho: std::snprintf(buf, sizeof buf, "echo slot %llu", i); break;
    case WrPurpose::kCommand: std::snprintf(buf, sizeof buf, "command %llu: %s", i, operation_name(w->operation)); break;
    case WrPurpose::kFencedSend: std::snprintf(buf, sizeof buf, "fenced send %llu", i); break;
    case WrPurpose::kAdvertisement: std::snprintf(buf, sizeof buf, "advertisement"); break;
  }
  return buf;
}

const char* wr_kind_name(WrKind k) {
  switch (k) {
    case WrKind::kSend: return "send";
    case WrKind::kRdmaWrite: return "rdma_write";
    case WrKind::kRdmaRead: return "rdma_read";
    case WrKind::kAtomicFetchAdd:
    case WrKind::kAtomicCmpSwap: return "atomic";
  }
  return "?";
}

CommandPlan plan_command(const conformance::UlpCommand& c, const PlanLimits& limits, std::uint64_t& sequence) {
  using F = UlpCommandSpec::Field;
  CommandPlan plan;
  const auto op = static_cast<std::uint8_t>(c.get(F::Operation));
  const std::uint64_t count = std::max<std::uint64_t>(1, c.get(F::Count));
  const std::uint64_t asked = c.get(F::Length);
  const auto rkey = static_cast<std::uint32_t>(c.get(F::Stag));
  const std::uint64_t to = c.get(F::TaggedOffset);

  // Lengths: what the local buffer holds and the port lets one message carry.
  auto cap = [&](std::uint64_t limit, const char* what) {
    std::uint64_t n = asked;
    if (limits.max_message != 0 && n > limits.max_message) n = limits.max_message;
    if (n > limit) n = limit;
    if (n != asked)
      plan.shortened.push_back("length " + std::to_string(asked) + " cut to " + std::to_string(n) + " (" + what + ")");
    return static_cast<std::uint32_t>(n);
  };

  PlannedWr w;
  w.rkey = rkey;
  w.remote_addr = to;
  switch (static_cast<UlpOperation>(op)) {
    case UlpOperation::kRead:  // into our own rw buffer
      w.kind = WrKind::kRdmaRead;
      w.local = LocalBuffer::kRw;
      w.length = cap(limits.rw_length, "the rw buffer");
      break;
    case UlpOperation::kSend:  // `length` octets of the counting pattern
      w.kind = WrKind::kSend;
      w.length = cap(limits.pattern_length, "the send pattern");
      break;
    case UlpOperation::kWrite:
      w.kind = WrKind::kRdmaWrite;
      w.length = cap(limits.pattern_length, "the send pattern");
      break;
    case UlpOperation::kAtomic: {
      // RFC 7306 §5: opcode 0 FetchAdd, 1 Swap, 2 CompareSwap; the 64-bit
      // operand sizes are the ones verbs has.
      if (!limits.atomics) {
        plan.refused.push_back("atomic: the device reports no atomics (atomic_cap IBV_ATOMIC_NONE)");
        return plan;
      }
      const auto aop = c.get(F::AtomicOpcode);
      w.local = LocalBuffer::kAtomicResult;
      w.length = 8;
      if (aop == 0) {
        w.kind = WrKind::kAtomicFetchAdd;
        w.compare_add = c.get(F::Data);
      } else if (aop == 2) {
        w.kind = WrKind::kAtomicCmpSwap;
        w.compare_add = c.get(F::Compare);
        w.swap = c.get(F::Data);
      } else if (aop == 1) {
        plan.refused.push_back("atomic Swap (RFC 7306 §5): verbs has no plain swap work request");
        return plan;
      } else {
        plan.refused.push_back("atomic opcode " + std::to_string(aop) + " is not in RFC 7306 §5");
        return plan;
      }
      break;
    }
    default:
      plan.refused.push_back("operation " + std::to_string(op) + " is not in the test ULP profile");
      return plan;
  }
  for (std::uint64_t i = 0; i < count; ++i) {
    w.wr_id = encode_wr_id({WrPurpose::kCommand, op, sequence++});
    plan.wrs.push_back(w);
  }
  if (c.get(F::Fence)) {
    // A 4-octet Send that waits for every earlier Read (and Atomic) to
    // complete: IBV_SEND_FENCE is verbs' Read fence (RFC 5040 §5.5).
    PlannedWr f;
    f.kind = WrKind::kSend;
    f.length = kFencedSendLength;
    f.fence = true;
    f.wr_id = encode_wr_id({WrPurpose::kFencedSend, 0, sequence++});
    plan.wrs.push_back(f);
  }
  return plan;
}

bool SendQueueGate::push(PlannedWr w) {
  if (waiting_.size() >= max_waiting_) return false;
  waiting_.push_back(std::move(w));
  return true;
}

std::optional<PlannedWr> SendQueueGate::next() {
  if (waiting_.empty() || in_flight_ >= depth_) return std::nullopt;
  PlannedWr w = std::move(waiting_.front());
  waiting_.pop_front();
  return w;
}

namespace {
std::uint8_t octet(int v) { return static_cast<std::uint8_t>(std::clamp(v, 0, 255)); }
}  // namespace

Depths accept_depths(const DeviceDepths& device, std::uint8_t peer_ird) {
  Depths d;
  const int ord_wanted = peer_ird != 0 ? peer_ird : kRev1Ord;
  d.initiator_depth = octet(std::min(device.max_qp_init_rd_atom, ord_wanted));
  d.responder_resources = octet(device.max_qp_rd_atom);
  return d;
}

Depths connect_depths(const DeviceDepths& device) {
  return {octet(device.max_qp_init_rd_atom), octet(device.max_qp_rd_atom)};
}

}  // namespace rdmaconf::agent::rdma_core
