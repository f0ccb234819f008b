// The rules of an upper-layer protocol's use of RDMA: what RPC-over-RDMA
// (RFC 8166, with the NFS binding of RFC 8267) and iSER (RFC 7145) advertise
// in their Sends, tied to the RDMA operations that use it. In the style of
// segment.hpp and smcr.hpp: each function is one rule, takes the decoded
// ULP header (reference/ulp) or the tagged operation's STag, offset and
// length with the least state it needs (the regions advertised by calls or
// tasks still open), and returns a Violation or nothing. Who keeps that
// state (which calls are open, which task owns which STag) is the caller:
// the capture observer's ULP side (pcap/analysis/ulp_rules.cpp). Standard
// library and the codec headers only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "check/rule.hpp"
#include "check/segment.hpp"
#include "ulp/rpcrdma.hpp"

namespace rdmaconf::check {

// ---- registry rows (conformance/requirements/rfc8166.cpp, rfc7145.cpp)
// RFC 8166 §3.4.5 / §3.4.5.1: the Responder pulls a Read chunk's data with
// RDMA Reads of the segments the Requester advertised for the call; §8.1:
// the transport exposes no memory beyond that. A Read of octets no read
// segment of an open call covers breaks both.
inline constexpr const Rule& kRpcReadWithinReadChunk = rule<"rfc8166-3.4.5-read-within-read-chunk">;
// RFC 8166 §4.3.2: result data goes to the memory the Write list names;
// §3.5.3: a Long Reply goes into the Reply chunk. Nothing else is written.
inline constexpr const Rule& kRpcWriteWithinChunk = rule<"rfc8166-4.3.2-write-within-chunk">;
// RFC 8166 §3.4.6, §4.3.2.2: the reply carries each provided Write chunk
// back, segment count and segments copied, each length updated to the data
// actually returned in that segment.
inline constexpr const Rule& kRpcWriteChunkEchoed = rule<"rfc8166-3.4.6-reply-echoes-write-chunks">;
// RFC 8166 §4.3.3: the same for the Reply chunk.
inline constexpr const Rule& kRpcReplyChunkEchoed = rule<"rfc8166-4.3.3-reply-echoes-reply-chunk">;
// RFC 8166 §4.3.1.
inline constexpr const Rule& kRpcReplyReadListEmpty = rule<"rfc8166-4.3.1-reply-read-list-empty">;
// RFC 8166 §3.3.1, §3.3.3: before the first reply the Requester assumes one credit.
inline constexpr const Rule& kRpcCreditLimit = rule<"rfc8166-3.3.1-credit-limit">;
// RFC 8166 §3.3.1.
inline constexpr const Rule& kRpcGrantNotZero = rule<"rfc8166-3.3.1-grant-not-zero">;
// RFC 8166 §3.4.2: only the data items a ULB names may be reduced into
// chunks. For NFS versions 2 and 3 (RFC 8267 §4): WRITE's data and
// SYMLINK's pathname (arguments, Read chunks), READ's data and READLINK's
// pathname (results, Write chunks); NFSACL has none (RFC 8267 §5.2). A Long
// Call's position-zero Read chunk and a Long Reply's Reply chunk carry the
// whole message and are no reduction (§3.5.3).
inline constexpr const Rule& kRpcDdpEligibleOnly = rule<"rfc8166-3.4.2-ddp-eligible-only">;
// RFC 7145 §7.3.6 step 4e/4f: an R2T becomes an RDMA Read Request whose
// Data Source is the task's Write STag at its Base Offset plus the R2T's
// Buffer Offset.
inline constexpr const Rule& kIserReadUsesWriteStag = rule<"rfc7145-7.3.6-read-uses-write-stag">;
// RFC 7145 §7.3.5 step 2a/2b: SCSI Read data goes by RDMA Write to the
// task's Read STag at its Base Offset plus the Data-In's Buffer Offset.
inline constexpr const Rule& kIserWriteUsesReadStag = rule<"rfc7145-7.3.5-write-uses-read-stag">;
// RFC 7145 §7.3.2: the Send carrying the SCSI Response names the Read STag
// to invalidate when the command advertised one, else its Write STag; a
// command that advertised none is answered by a plain Send.
inline constexpr const Rule& kIserResponseInvalidatesTaskStag = rule<"rfc7145-7.3.2-response-invalidates-task-stag">;

// A memory region the ULP advertised: an STag, the tagged offset where it
// starts and its length in octets.
struct Region {
  std::uint32_t stag = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};
// Whether [to, to + length) with `stag` lies inside the region (a 64-bit TO
// range that wraps lies in none).
bool within(const Region& r, std::uint32_t stag, std::uint64_t to, std::uint64_t length);
// The index of the first region that holds the range, or nullopt.
std::optional<std::size_t> region_holding(std::span<const Region> regions, std::uint32_t stag, std::uint64_t to,
                                          std::uint64_t length);

// Where the fields these rules name sit in the DDP segment: a tagged
// message's STag (RFC 5041 §4.3) and a Read Request's Data Source STag
// (RFC 5041 §4.4 untagged header, then RFC 5040 §4.4 octets 16-19).
inline constexpr std::size_t kTaggedStagOctet = 2;
inline constexpr std::size_t kReadRequestSourceStagOctet = 18 + 16;
inline constexpr std::size_t kSendPayloadOctet = 18;  // a Send's payload after the untagged DDP header

// `read_segments`: the read segments of the calls still open.
Outcome read_within_read_chunk(std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size,
                               std::span<const Region> read_segments);
// `chunk_segments`: the Write and Reply chunk segments of the calls still open.
Outcome write_within_chunk(std::uint32_t stag, std::uint64_t to, std::uint32_t length,
                           std::span<const Region> chunk_segments);
// `advertised`: one chunk as the call provided it; `returned`: the reply's
// chunk in the same place (nullptr: the reply has none there); `written`:
// the octets the Responder's Writes put into each advertised segment.
Outcome write_chunk_echoed(const ulp::rpcrdma::WriteChunk& advertised, const ulp::rpcrdma::WriteChunk* returned,
                           std::span<const std::uint64_t> written);
Outcome reply_chunk_echoed(const ulp::rpcrdma::WriteChunk& advertised, const ulp::rpcrdma::WriteChunk* returned,
                           std::span<const std::uint64_t> written);
Outcome reply_read_list_empty(const ulp::rpcrdma::Message& reply);
// `open_calls`: calls sent and not yet answered, this one included;
// `granted`: the credit value of the Responder's latest reply (1 before any).
Outcome credit_limit(std::uint64_t open_calls, std::uint32_t granted);
Outcome grant_not_zero(const ulp::rpcrdma::Message& reply);

// `call`: what the call called; `reduced_arguments`: its read segments
// after position zero; `reduced_results`: Write chunks its reply returned
// with data in them (0 when judging the call). Programs and versions whose
// DDP-eligible items this layer does not know (NFS version 4's COMPOUND)
// are not judged.
Outcome ddp_eligible_only(const ulp::onc_rpc::Call& call, std::size_t reduced_arguments,
                          std::size_t reduced_results);

// `write_buffers`: the Write STag buffers of the SCSI commands still open.
Outcome read_uses_write_stag(std::uint32_t source_stag, std::uint64_t source_to, std::uint32_t size,
                             std::span<const Region> write_buffers);
// `read_buffers`: the Read STag buffers of the SCSI commands still open.
Outcome write_uses_read_stag(std::uint32_t stag, std::uint64_t to, std::uint32_t length,
                             std::span<const Region> read_buffers);
// `task_stag`: the STag the command's Response must invalidate (its Read
// STag, else its Write STag; nullopt when it advertised none).
Outcome response_invalidates_task_stag(std::uint32_t invalidated, std::optional<std::uint32_t> task_stag);

std::span<const Implementation> ulp_implementations();
std::span<const Rule* const> ulp_rules();

}  // namespace rdmaconf::check
