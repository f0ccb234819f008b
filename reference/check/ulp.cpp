// The rules of a ULP's use of RDMA, one function each (ulp.hpp).
#include "check/ulp.hpp"

namespace rdmaconf::check {
namespace {

constexpr Implementation kImplementations[] = {
    {&kRpcReadWithinReadChunk, "read_within_read_chunk"},
    {&kRpcWriteWithinChunk, "write_within_chunk"},
    {&kRpcWriteChunkEchoed, "write_chunk_echoed"},
    {&kRpcReplyChunkEchoed, "reply_chunk_echoed"},
    {&kRpcReplyReadListEmpty, "reply_read_list_empty"},
    {&kRpcCreditLimit, "credit_limit"},
    {&kRpcGrantNotZero, "grant_not_zero"},
    {&kRpcDdpEligibleOnly, "ddp_eligible_only"},
    {&kIserReadUsesWriteStag, "read_uses_write_stag"},
    {&kIserWriteUsesReadStag, "write_uses_read_stag"},
    {&kIserResponseInvalidatesTaskStag, "response_invalidates_task_stag"},
};
constexpr const Rule* kRules[] = {
    &kRpcReadWithinReadChunk, &kRpcWriteWithinChunk,   &kRpcWriteChunkEchoed,   &kRpcReplyChunkEchoed,
    &kRpcReplyReadListEmpty,  &kRpcCreditLimit,        &kRpcGrantNotZero,       &kRpcDdpEligibleOnly,
    &kIserReadUsesWriteStag,  &kIserWriteUsesReadStag, &kIserResponseInvalidatesTaskStag,
};

// RFC 8267 §4 (RFC 1094 §2.2, RFC 1813 §3.3 procedure numbers) and §5.2.
struct Eligible {
  bool known;
  bool argument;
  bool result;
};
Eligible eligible(const ulp::onc_rpc::Call& c) {
  constexpr std::uint32_t kNfs = 100003, kNfsAcl = 100227;
  if (c.prog == kNfsAcl) return {true, false, false};
  if (c.prog == kNfs && c.vers == 2) return {true, c.proc == 8 || c.proc == 13, c.proc == 6 || c.proc == 5};
  if (c.prog == kNfs && c.vers == 3) return {true, c.proc == 7 || c.proc == 10, c.proc == 6 || c.proc == 5};
  return {false, false, false};
}

// The RPC-over-RDMA fixed header is 4 words; a returned chunk's segment
// fields sit at Segment::at (Handle), +4 (Length), +8 (Offset) of the Send
// payload.
constexpr std::size_t kChunkListsOctet = kSendPayloadOctet + 16;

// A tagged range outside every region: the rule, the STag field, the STag.
Outcome outside(const Rule& rule, std::string_view field, std::size_t octet, std::span<const Region> regions,
                std::uint32_t stag, std::uint64_t to, std::uint64_t length) {
  if (region_holding(regions, stag, to, length)) return std::nullopt;
  // `expected`: the STag of a region that has it, when one does (the range
  // is then outside its bounds), else 0.
  std::uint64_t expected = 0;
  for (const Region& r : regions)
    if (r.stag == stag) expected = r.stag;
  return Violation{&rule, field, octet, stag, expected};
}

// §3.4.6 / §4.3.3: the returned chunk has the advertised segment count,
// every segment its handle and offset, and a length within both the
// advertised one and the octets written into it.
Outcome echoed(const Rule& rule, const ulp::rpcrdma::WriteChunk& advertised,
               const ulp::rpcrdma::WriteChunk* returned, std::span<const std::uint64_t> written) {
  if (!returned) return Violation{&rule, "chunk list", kChunkListsOctet, 0, advertised.segments.size()};
  if (returned->segments.size() != advertised.segments.size())
    return Violation{&rule, "segment count", kChunkListsOctet, returned->segments.size(), advertised.segments.size()};
  for (std::size_t i = 0; i < advertised.segments.size(); ++i) {
    const auto& a = advertised.segments[i];
    const auto& r = returned->segments[i];
    const std::size_t at = kSendPayloadOctet + r.at;
    if (r.handle != a.handle) return Violation{&rule, "Handle", at, r.handle, a.handle};
    if (r.offset != a.offset) return Violation{&rule, "Offset", at + 8, r.offset, a.offset};
    if (r.length > a.length) return Violation{&rule, "Length", at + 4, r.length, a.length};
    const std::uint64_t put = i < written.size() ? written[i] : 0;
    if (r.length > put) return Violation{&rule, "Length", at + 4, r.length, put};
  }
  return std::nullopt;
}

}  // namespace

bool within(const Region& r, std::uint32_t stag, std::uint64_t to, std::uint64_t length) {
  if (r.stag != stag || to < r.offset) return false;
  const std::uint64_t from_start = to - r.offset;
  return from_start <= r.length && length <= r.length - from_start;
}

std::optional<std::size_t> region_holding(std::span<const Region> regions, std::uint32_t stag, std::uint64_t to,
                                          std::uint64_t length) {
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (within(regions[i], stag, to, length)) return i;
  return std::nullopt;
}

//= rfc8166-3.4.5-read-within-read-chunk (RFC 8166 §3.4.5, §8.1)
Outcome read_within_read_chunk(std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size,
                               std::span<const Region> read_segments) {
  return outside(kRpcReadWithinReadChunk, "Data Source STag", kReadRequestSourceStagOctet, read_segments,
                 source_stag, source_to, size);
}

//= rfc8166-4.3.2-write-within-chunk (RFC 8166 §4.3.2, §3.5.3)
Outcome write_within_chunk(std::uint32_t stag, std::uint64_t to, std::uint32_t length,
                           std::span<const Region> chunk_segments) {
  return outside(kRpcWriteWithinChunk, "Data Sink STag", kTaggedStagOctet, chunk_segments, stag, to, length);
}

//= rfc8166-3.4.6-reply-echoes-write-chunks (RFC 8166 §3.4.6, §4.3.2.2)
Outcome write_chunk_echoed(const ulp::rpcrdma::WriteChunk& advertised, const ulp::rpcrdma::WriteChunk* returned,
                           std::span<const std::uint64_t> written) {
  return echoed(kRpcWriteChunkEchoed, advertised, returned, written);
}

//= rfc8166-4.3.3-reply-echoes-reply-chunk (RFC 8166 §4.3.3)
Outcome reply_chunk_echoed(const ulp::rpcrdma::WriteChunk& advertised, const ulp::rpcrdma::WriteChunk* returned,
                           std::span<const std::uint64_t> written) {
  return echoed(kRpcReplyChunkEchoed, advertised, returned, written);
}

//= rfc8166-4.3.1-reply-read-list-empty (RFC 8166 §4.3.1)
Outcome reply_read_list_empty(const ulp::rpcrdma::Message& reply) {
  if (reply.read_list.empty()) return std::nullopt;
  return Violation{&kRpcReplyReadListEmpty, "Read list", kChunkListsOctet, reply.read_list.size(), 0};
}

//= rfc8166-3.3.1-credit-limit (RFC 8166 §3.3.1, §3.3.3)
Outcome credit_limit(std::uint64_t open_calls, std::uint32_t granted) {
  if (open_calls <= granted) return std::nullopt;
  // The Credits field is the third word of the call's fixed header.
  return Violation{&kRpcCreditLimit, "Credits", kSendPayloadOctet + 8, open_calls, granted};
}

//= rfc8166-3.3.1-grant-not-zero (RFC 8166 §3.3.1)
Outcome grant_not_zero(const ulp::rpcrdma::Message& reply) {
  if (reply.credits != 0) return std::nullopt;
  return Violation{&kRpcGrantNotZero, "Credits", kSendPayloadOctet + 8, 0, 1};
}

//= rfc8166-3.4.2-ddp-eligible-only (RFC 8166 §3.4.2, RFC 8267 §4, §5.2)
Outcome ddp_eligible_only(const ulp::onc_rpc::Call& call, std::size_t reduced_arguments,
                          std::size_t reduced_results) {
  const Eligible e = eligible(call);
  if (!e.known) return std::nullopt;
  if (reduced_arguments > 0 && !e.argument)
    return Violation{&kRpcDdpEligibleOnly, "Read list", kChunkListsOctet, reduced_arguments, 0};
  if (reduced_results > 0 && !e.result)
    return Violation{&kRpcDdpEligibleOnly, "Write list", kChunkListsOctet, reduced_results, 0};
  return std::nullopt;
}

//= rfc7145-7.3.6-read-uses-write-stag (RFC 7145 §7.3.6)
Outcome read_uses_write_stag(std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size,
                             std::span<const Region> write_buffers) {
  return outside(kIserReadUsesWriteStag, "Data Source STag", kReadRequestSourceStagOctet, write_buffers,
                 source_stag, source_to, size);
}

//= rfc7145-7.3.5-write-uses-read-stag (RFC 7145 §7.3.5)
Outcome write_uses_read_stag(std::uint32_t stag, std::uint64_t to, std::uint32_t length,
                             std::span<const Region> read_buffers) {
  return outside(kIserWriteUsesReadStag, "Data Sink STag", kTaggedStagOctet, read_buffers, stag, to, length);
}

//= rfc7145-7.3.2-response-invalidates-task-stag (RFC 7145 §7.3.2)
Outcome response_invalidates_task_stag(std::uint32_t invalidated, std::optional<std::uint32_t> task_stag) {
  if (task_stag && *task_stag == invalidated) return std::nullopt;
  // The Invalidate STag is the untagged DDP header's RsvdULP word (RFC 5040 §4.4), octets 2-5.
  return Violation{&kIserResponseInvalidatesTaskStag, "Invalidate STag", 2, invalidated, task_stag.value_or(0)};
}

std::span<const Implementation> ulp_implementations() { return kImplementations; }
std::span<const Rule* const> ulp_rules() { return kRules; }

}  // namespace rdmaconf::check
