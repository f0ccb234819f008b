// RFC 7609 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §2.1
    hidden("2.1", "6d214e22", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.1", "6c7f5b3a", "local to the host (buffers, sockets, resources)"),
    hidden("2.1", "2b85d16c", "local to the host (buffers, sockets, resources)"),
    // §2.2
    hidden("2.2", "1a65ffb7", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2", "a539c677", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §2.2.1
    none("2.2.1", "095a966e", "an architecture statement about link configurations; the link rules it leads to run over RoCE"),
    hidden("2.2.1", "4fae86ac", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §2.2.2
    hidden("2.2.2", "b4dc6c93", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "167c5e49", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "1b12332d", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "246b3a2e", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "316fa05a", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "be58f2b4", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.2.2", "d4b732d9", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §2.3
    hidden("2.3", "5087b540", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.3", "fa173a22", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.3", "72edf8af", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("2.3", "31e5ea6a", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.2
    cover("3.2", "18c1fda0", "rfc7609-3.2-decline-fallback"),
    // §3.3
    hidden("3.3", "ae025a17", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.3", "93045605", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.3", "efbf6e35", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.3", "a924d80c", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // A response flows on its request's link: the capture analyzer pairs LLC replies per link.
    cover("3.3", "1719f557", "rfc7609-3.3-reply-answers-request"),
    // §3.5.1.2
    cover("3.5.1.2", "d80c76f7", "rfc7609-3.5.1.2-prefix-match"),
    hidden("3.5.1.2", "8c9a9a1e", "which RoCE credentials belong to which subnet is local configuration; the prefix check itself is rfc7609-3.5.1.2-prefix-match"),
    // §3.5.1.5
    // No data before the link is confirmed: the capture analyzer checks CDC and Writes against the link's state.
    cover("3.5.1.5", "c427be5f", "rfc7609-3.5.1.5-data-on-confirmed-link"),
    // §3.5.1.6.2
    hidden("3.5.1.6.2", "6c4151d2", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.2.2
    hidden("3.5.2.2", "c56248fa", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.2.2", "11ecf3fb", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.2.4
    cover("3.5.2.4", "8ba8b319", "rfc7609-3.5.2.4-no-data-before-done"),
    hidden("3.5.2.4", "e39e0e64", "local to the host (buffers, sockets, resources)"),
    hidden("3.5.2.4", "879cf00e", "local to the host (buffers, sockets, resources)"),
    // §3.5.3
    hidden("3.5.3", "c91cc024", "local to the host (buffers, sockets, resources)"),
    // §3.5.4
    hidden("3.5.4", "65c0021d", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.4", "8c52eb07", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.4", "01f81de7", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.1
    hidden("3.5.5.1", "3cff5494", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.1.1
    hidden("3.5.5.1.1", "0c53b663", "a RoCE LAN attachment is configuration"),
    // §3.5.5.1.2
    hidden("3.5.5.1.2", "da37f53b", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.1.2", "a1312833", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.1.2", "89f768a1", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.1.3
    hidden("3.5.5.1.3", "440de70e", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.1.3", "304e010d", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.1.4
    hidden("3.5.5.1.4", "dfa939ef", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.1.4", "6baedf95", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.2
    hidden("3.5.5.2", "bd47f7f1", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // A Write uses only RTokens exchanged (CLC, ADD LINK CONTINUATION, CONFIRM RKEY): the capture analyzer checks.
    cover("3.5.5.2", "a70ab3e2", "rfc7609-3.5.5.2-write-through-announced-rkey"),
    // A Write through a deleted rkey shows the RToken set out of sync: the capture analyzer checks.
    cover("3.5.5.2", "9b514fab", "rfc7609-3.5.5.2-write-through-announced-rkey"),
    // §3.5.5.2.1
    hidden("3.5.5.2.1", "f26e3eea", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.2.1", "b71bfd83", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.2.3
    hidden("3.5.5.2.3", "fc1eda15", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §3.5.5.3
    hidden("3.5.5.3", "eec6d4a5", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("3.5.5.3", "d48d2a53", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    none("3.5.5.3", "70a746d6", "says some timing windows remain to be handled; the rules that handle them follow"),
    // §4.1
    hidden("4.1", "3d27c74f", "local to the host (buffers, sockets, resources)"),
    hidden("4.1", "12ff7e21", "local to the host (buffers, sockets, resources)"),
    hidden("4.1", "3536a993", "local to the host (buffers, sockets, resources)"),
    // §4.3
    hidden("4.3", "fc04fa29", "local to the host (buffers, sockets, resources)"),
    hidden("4.3", "c5571a07", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.4.1
    hidden("4.4.1", "6e4268ec", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.4.1", "be82af89", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.4.2
    hidden("4.4.2", "61fe8ff2", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.4.2", "9330bb8f", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.4.2", "31e2408b", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.4.2", "6dbdd1f3", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.5.1
    hidden("4.5.1", "7fb1bc55", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.5.1", "82e4b8cf", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.5.3
    hidden("4.5.3", "8cb2ad6c", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    cover("4.5.3", "c0040eff", "rfc7609-3.5.1.2-prefix-match"),
    cover("4.5.3", "e1906842", "rfc7609-4.5.3-keepalive-ack"),
    cover("4.5.3", "db956a0f", "rfc7609-4.5.3-keepalive-ack"),
    // §4.6.1
    none("4.6.1", "5dda9200", "says such events are guarded against; the rules that do so follow"),
    hidden("4.6.1", "13e5e477", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.1", "e385729f", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.1", "1d24299a", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.1", "11828ece", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.1", "9c1fe8b9", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.1", "dc1e1359", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.6.2
    hidden("4.6.2", "0c24cb84", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.6.2", "c9d7bf12", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.7.5
    hidden("4.7.5", "865a7710", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.8.1
    hidden("4.8.1", "af9e2602", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.8.1", "734be0a6", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §4.8.2
    hidden("4.8.2", "7b70f835", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.8.2", "d4df55ca", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("4.8.2", "cda38f04", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §5.1
    none("5.1", "bfb051fc", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    none("5.1", "45782333", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    none("5.1", "68ca4ce9", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    // §5.5
    hidden("5.5", "301c088a", "whether a connection needs IPsec is a local policy"),
    // §a.2
    cover("a.2", "16c4f1c1", "rfc7609-a.2-reserved-zero rfc7609-a.2-reserved-ignored"),
    cover("a.2", "a70b8023", "rfc7609-a.2-eyecatcher-check"),
    // §a.2.2
    cover("a.2.2", "457cab6b", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    cover("a.2.2", "e577cacc", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    cover("a.2.2", "56c1d1ed", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    // §a.2.5
    cover("a.2.5", "ae6573ee", "rfc7609-a.2.5-out-of-sync-all"),
    // §a.3
    hidden("a.3", "556d2ddf", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.3", "2feb3633", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §a.3.5
    hidden("a.3.5", "a20a251d", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.3.5", "a8026682", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.3.5", "c5b1cd9e", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §a.4
    hidden("a.4", "c3845fc4", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "99bce898", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "b931c4c5", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "d3921559", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "5369053b", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "f7589bae", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("a.4", "54925657", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §b.1
    hidden("b.1", "57bdf55e", "a socket option interface is local"),
    // §c.1
    cover("c.1", "2a1b30ba", "rfc7609-c.1-decline-reason"),
    // §c.5
    cover("c.5", "ea1499c3", "rfc7609-c.5-clc-timer"),
    cover("c.5", "e5f0b183", "rfc7609-c.5-timeout-action"),
    // §c.6
    cover("c.6", "effecfcc", "rfc7609-c.6-protocol-error rfc7609-c.6-no-fallback-after-garbage", "a malformed expected CLC message counts as unexpected data, a protocol error"),
    cover("c.6", "cd6125df", "rfc7609-c.6-protocol-error rfc7609-c.6-no-fallback-after-garbage", "a malformed expected CLC message counts as unexpected data, a protocol error"),
    cover("c.6", "11f7e516", "rfc7609-c.6-protocol-error"),
    // §c.7
    hidden("c.7", "b3a1969c", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("c.7", "c23e1b97", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("c.7", "1aed8489", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §c.7.1
    hidden("c.7.1", "52c76112", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("c.7.1", "65edf0fa", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    // §c.8
    hidden("c.8", "7d641455", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
    hidden("c.8", "c797f96d", "runs over RoCE (link groups, LLC and CDC messages, RDMA writes): outside the TCP connection and CLC handshake a tester sees"),
};

}  // namespace

std::span<const SentenceTrace> rfc7609_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
