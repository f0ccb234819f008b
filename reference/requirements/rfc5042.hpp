// RFC 5042: Direct Data Placement Protocol (DDP) / Remote Direct Memory
// Access Protocol (RDMAP) Security.
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc5042.cpp. RFC 5042 states most of its rules about the RNIC and
// the ULP's local interfaces; the rows a peer can check are kOnTheWireAsPeer.
// Rows renamed to the sections holding them keep their old ids in
// aliases.cpp; section comments keep the project's grouping.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc5042 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §2.2 Resources
    row("rfc5042-2.2-pd-per-stream", kMust, N,
        "Every stream and every STag belongs to exactly one Protection Domain", "a local resource binding"),
    row("rfc5042-2.2-stag-scope", kMay, N,
        "An STag may be limited to a single stream instead of the whole Protection Domain",
        "the scope chosen is a local registration option"),

    // §2.3 RNIC interactions
    row("rfc5042-2.3-privileged-control", kMust, N,
        "Only a privileged interface creates Protection Domains and binds streams and buffers to them",
        "a local API rule"),
    row("rfc5042-2.3-register-revoke", kMust, N,
        "The RNIC lets the ULP bind a buffer and TO range to an STag and revoke that binding",
        "a local API rule"),
    row("rfc5042-2.3-rights-per-stag", kMust, N,
        "The RNIC lets the ULP grant and revoke remote read, remote write (and remote atomic) access per STag",
        "a local API rule (the effect is checked by rfc5042-5.2-access-rights)"),

    // §5.1 Spoofing
    row("rfc5042-6.1.1-stag-other-pd", kMust, P,
        "A segment on a stream may not use an STag of another Protection Domain: it is refused (STag not associated)"),
    row("rfc5042-6.1.1-stag-other-stream", kMust, P,
        "An STag limited to one stream is refused on every other stream, even in the same Protection Domain"),
    row("rfc5042-5.1-stag-unpredictable", kShould, P,
        "STag values are hard to guess: a peer probing nearby or sequential values finds no valid buffer"),
    row("rfc5042-5.1-ipsec-against-spoofing", kShould, N,
        "Deployments exposed to spoofing or hijacking protect the streams with IPsec",
        "a deployment choice below TCP"),

    // §5.2 Tampering
    row("rfc5042-6.2.1-bounds", kMust, P,
        "A remote peer cannot place outside the buffer range bound to the STag: such a segment is refused and "
        "nothing is written"),
    row("rfc5042-5.2-access-rights", kMust, P,
        "A remote peer cannot write through an STag without remote write access or read through one without remote "
        "read access"),
    row("rfc5042-6.2.2-no-change-after-indication", kShould, N,
        "A ULP revokes remote access to a buffer before it uses the data the peer placed there",
        "a ULP policy on local buffers"),
    row("rfc5042-5.2.3-aliases", kShouldNot, N,
        "A ULP does not advertise several STags for one buffer with different rights unless it means to",
        "a ULP policy"),

    // §5.3 Information disclosure
    row("rfc5042-5.3.1-read-bounds", kMust, P,
        "An RDMA Read cannot return data outside the buffer range bound to the source STag"),
    row("rfc5042-6.3.2-stale-data", kShould, N,
        "A buffer exposed for RDMA Read holds no stale data of another consumer",
        "buffer initialisation is local"),
    row("rfc5042-6.3.3-revoke-after-transfer", kShould, N,
        "Once the transfer an STag was advertised for is done, the STag is invalidated so later access fails",
        "when a transfer is done is the ULP's own knowledge, so the wire cannot show the STag outliving it"),
    row("rfc5042-6.3.5-read-into-write-buffer", kMustNot, P,
        "A buffer advertised only for remote write cannot be read remotely"),
    row("rfc5042-5.3.8-eavesdropping", kShould, N,
        "Confidential data on the network is protected with IPsec encryption", "IPsec works below TCP"),

    // §5.4 Denial of service
    row("rfc5042-5.4.1-resource-limits", kShould, N,
        "The RNIC lets administrators limit the resources one ULP or peer can consume", "a local policy"),
    row("rfc5042-5.4.2-idle-streams", kMay, N, "An RNIC may reclaim resources of idle streams",
        "a local policy"),
    row("rfc5042-6.4.3.1-shared-receive-queue", kMust, N,
        "Streams that share receive buffers belong to ULPs that trust each other",
        "a local resource binding"),
    row("rfc5042-7.1-shared-cq", kMust, N,
        "A completion queue is shared only between streams of ULPs that trust each other",
        "a local resource binding"),
    row("rfc5042-6.4.6-cq-overflow", kMust, N,
        "A remote peer that floods a stream whose completion queue overflows causes that stream, not others, to "
        "end with an error",
        "the completion queue's size and its overflow are local; a peer cannot tell when one happened"),
    row("rfc5042-5.4.3.4-ird", kMust, P,
        "A peer that sends more RDMA Read Requests than the negotiated IRD has its stream terminated; the RNIC does "
        "not queue them without bound"),
    row("rfc5042-5.4.4-slow-paths", kShould, N,
        "Unusual or malformed traffic does not drive the RNIC into slow paths that starve other streams",
        "performance across streams cannot be judged from one stream"),
    row("rfc5042-5.4.5-remote-invalidate-scope", kMust, P,
        "A Send with Invalidate cannot invalidate an STag of another Protection Domain or one not allowed for "
        "remote invalidation: the stream is terminated (STag cannot be invalidated)"),

    // §5.5 Elevation of privilege
    row("rfc5042-5.5-no-privilege", kMustNot, N,
        "Nothing a remote peer sends gives it access beyond the rights bound to the STags it was given",
        "stated for the whole design; the observable parts are the rows above"),

    // §6 Security services
    row("rfc5042-5.4.5-ipsec-implement", kMust, N,
        "An RDDP implementation implements IPsec (ESP, IKE) as RFC 3723 describes for MPA/TCP",
        "IPsec works below TCP"),
    row("rfc5042-6-ipsec-use", kMay, N, "Whether IPsec is used on a given connection is a deployment choice",
        "a deployment choice"),
};

}  // namespace rdmaconf::requirements::detail::rfc5042
