// RFC 5042 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §3
    hidden("3", "4c857512", "the privileged resource manager is local"),
    hidden("3", "66af9d9a", "the privileged resource manager is local"),
    hidden("3", "536b1181", "the privileged resource manager is local"),
    // §5.4.2
    none("5.4.2", "b89dfe2f", "advice against a protocol layering (TLS over RDMAP), not a behaviour of a DDP or RDMAP implementation"),
    // §5.4.5
    cover("5.4.5", "bcf777dd", "rfc5042-5.4.5-ipsec-implement"),
    hidden("5.4.5", "8ead73f3", "IKE messages travel outside the DDP/RDMAP stream"),
    // §6.1.1
    cover("6.1.1", "6ac7107c", "rfc5042-6.1.1-stag-other-pd rfc5042-6.1.1-stag-other-stream"),
    cover("6.1.1", "f780815b", "rfc5042-6.1.1-stag-other-pd"),
    cover("6.1.1", "934bb88c", "rfc5042-6.1.1-stag-other-stream"),
    // §6.2.1
    cover("6.2.1", "2b6cf7a0", "rfc5042-6.2.1-bounds"),
    // §6.2.2
    cover("6.2.2", "895c08df", "rfc5042-6.2.2-no-change-after-indication"),
    cover("6.2.2", "8f2fbfda", "rfc5040-8.1.1-invalidated-stag-refused", "once access is revoked the STag is refused"),
    // §6.3.2
    cover("6.3.2", "f68f0c41", "rfc5042-6.3.2-stale-data"),
    // §6.3.3
    cover("6.3.3", "9d1ce154", "rfc5042-6.3.3-revoke-after-transfer"),
    // §6.3.4
    hidden("6.3.4", "a6706f70", "how a ULP sizes the range it exposes is local; the RNIC's side is rfc5042-6.2.1-bounds"),
    // §6.3.5
    cover("6.3.5", "272ec2fa", "rfc5042-6.3.5-read-into-write-buffer"),
    // §6.3.6
    hidden("6.3.6", "48ec0b70", "which STags a ULP creates for a buffer is local"),
    // §6.4.1
    hidden("6.4.1", "0a5fd10b", "the privileged resource manager is local"),
    // §6.4.3.1
    cover("6.4.3.1", "d9861da3", "rfc5042-6.4.3.1-shared-receive-queue"),
    // §6.4.3.2
    hidden("6.4.3.2", "6a07f5e9", "the privileged resource manager is local"),
    hidden("6.4.3.2", "090b1fb6", "a ULP's completion queue sharing is local"),
    // §6.4.3.3
    hidden("6.4.3.3", "3a01f39e", "the privileged resource manager is local"),
    hidden("6.4.3.3", "75b6d4ea", "a local mechanism; its visible effect is the IRD limit (rfc5042-5.4.3.4-ird)"),
    // §6.4.5
    hidden("6.4.5", "127197cb", "which STags a ULP enables is local"),
    // §6.4.6
    cover("6.4.6", "330abc80", "rfc5042-6.4.6-cq-overflow"),
    // §7.1
    cover("7.1", "2daf884c", "rfc5042-7.1-shared-cq"),
    // §7.2
    hidden("7.2", "7068d3fe", "the privileged resource manager is local"),
    hidden("7.2", "b949da43", "the privileged resource manager is local"),
    // §7.3
    hidden("7.3", "07ab10c5", "the privileged resource manager is local"),
    // §a
    none("a", "4cf3dc26", "explains how Appendix A turns some SHOULDs into MUSTs for servers; the sentences that do so are traced themselves"),
    none("a", "ca007420", "explains how Appendix A turns some SHOULDs into MUSTs for servers; the sentences that do so are traced themselves"),
    hidden("a", "930e4422", "a server ULP's handling of its own buffers is local (Appendix A makes the §6.2.2 SHOULD a MUST for servers)"),
    hidden("a", "bfa223bf", "a server ULP's buffer initialisation is local (Appendix A makes the §6.3.2 SHOULD a MUST for servers)"),
    hidden("a", "2f24d28d", "a server ULP's queue sharing is local"),
};

}  // namespace

std::span<const SentenceTrace> rfc5042_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
