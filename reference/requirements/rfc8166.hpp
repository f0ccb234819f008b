// RFC 8166: Remote Direct Memory Access Transport for Remote Procedure Call
// Version 1 (RPC-over-RDMA), with the NFS binding of RFC 8267, restricted to
// what a capture of an RDMAP stream shows about the ULP's use of RDMA: the
// chunks a call advertises against the RDMA Reads and Writes that use them,
// the chunks its reply carries back, and credits. Each row is checked by
// one function of the rule layer (reference/check/ulp.hpp) and reported by
// the capture analyzer.
//
// The registry does not trace RFC 8166 sentence by sentence (the traced
// documents are the iWARP and SMC-R ones, conformance/requirements/trace.cpp):
// these rows are the rules rdmaconf checks, each citing the section that
// states it.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc8166 {

inline constexpr Level M = Level::kMust;
inline constexpr Level kMustNot = Level::kMustNot;

inline constexpr Requirement kRows[] = {
    // §3.3.1 RPC-over-RDMA credits (§3.3.3: one credit before the first reply)
    row("rfc8166-3.3.1-credit-limit", M, W,
        "A Requester never has more calls awaiting their replies than the credits the Responder last granted; "
        "before the Responder's first reply it assumes one credit")
        .says("calls awaiting a reply never outnumber the credits the Responder last granted (one before its first reply)"),
    row("rfc8166-3.3.1-grant-not-zero", M, W, "The credit value a Responder grants in a reply is never zero")
        .says("a reply grants at least one credit"),

    // §3.4.2 DDP-eligibility, with the NFS binding's list (RFC 8267 §4, §5.2)
    row("rfc8166-3.4.2-ddp-eligible-only", kMustNot, W,
        "No data item that the ULP's binding does not make DDP-eligible is reduced into a chunk: for NFS versions 2 "
        "and 3 only WRITE's data and SYMLINK's pathname go in Read chunks (after position zero) and only READ's "
        "data and READLINK's pathname in Write chunks; no NFSACL item does")
        .says("only DDP-eligible data items are reduced: for NFS versions 2 and 3 a Read chunk after position zero only in WRITE and SYMLINK calls, a Write chunk returned with data only in READ and READLINK replies; none for NFSACL").also("RFC 8267 §4, §5.2"),

    // §3.4.5 Read chunks (§8.1: no memory exposed beyond what was advertised)
    row("rfc8166-3.4.5-read-within-read-chunk", M, W,
        "The Responder pulls Read chunk data with RDMA Reads of the read segments a call advertised: each Read "
        "Request's Data Source STag, offset and length fall within a read segment of a call not yet answered")
        .says("the Responder's RDMA Read Requests read only octets of a read segment (same STag, offset and length within) that a call still awaiting its reply advertised"),

    // §3.4.6 Write chunks, §4.3.2.2 unused Write chunks
    row("rfc8166-3.4.6-reply-echoes-write-chunks", M, W,
        "The reply copies every Write chunk of its call into its Write list: the same segment count, handles and "
        "offsets, each length updated to the data returned there (not above the advertised length, not above "
        "what the Responder wrote)")
        .says("the reply's Write list repeats every Write chunk of the call with its segment count, handles and offsets; each returned length is at most the advertised one and at most what the Responder wrote there"),

    // §4.3.1 Read list
    row("rfc8166-4.3.1-reply-read-list-empty", M, W, "A Responder leaves the Read list of every reply empty")
        .says("a reply's Read list is empty"),

    // §4.3.2 Write list (§3.5.3: a Long Reply goes into the Reply chunk)
    row("rfc8166-4.3.2-write-within-chunk", M, W,
        "The Responder writes result data only into memory the call's Write list or Reply chunk names: every RDMA "
        "Write lands inside a segment of a call not yet answered")
        .says("the Responder's RDMA Writes land inside a segment of a Write chunk or the Reply chunk of a call still awaiting its reply"),

    // §4.3.3 Reply chunk
    row("rfc8166-4.3.3-reply-echoes-reply-chunk", M, W,
        "A reply to a call that provided a Reply chunk copies that chunk into its header, each segment's length "
        "updated to the data returned there (not above the advertised length, not above what was written)")
        .says("a reply to a call that provided a Reply chunk repeats it with its segment count, handles and offsets; each returned length is at most the advertised one and at most what the Responder wrote there"),
};

}  // namespace rdmaconf::requirements::detail::rfc8166
