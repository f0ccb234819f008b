// The LLC messages (RFC 7609 App. A.3; SMC v2 as Linux net/smc/smc_llc.c
// sends it) and the CDC message (App. A.4) as values: read from a decoded
// message (messages.hpp) and encoded back, every octet written through the
// declarations of headers.hpp (wire::Header<Spec>::set, the flag overlays),
// none by hand.
//
// One struct per message type, its members named as the figures name the
// fields. What a sender derives is computed when it is left unset (scapy's
// habit): Length, the v2 entry counts, NumTkns, NumRTokens, the DELETE RKEY
// Count. A decoded message sets those members only where its octets differ
// from what would be computed, so reading a message and encoding it again
// gives its octets back (reserved fields excepted: they are sent as zero);
// a test or a conformance script sets them to send a malformed message.
//
// Counted slots (CONFIRM RKEY's other links, ADD LINK CONTINUATION's pairs,
// DELETE RKEY's RKeys) read as a list without the trailing all-zero slots,
// and the count field as an override where it differs from the list's size.
// Lists never grow beyond the slots of the layout: encoding drops what does
// not fit, and a decoded v2 list is bounded by the message's Length (at
// most 8192 octets), never by a count the peer sent.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "smcr/messages.hpp"
#include "smcr/types.hpp"

namespace rdmaconf::smcr {

// Linux sets both low flag bits of CONFIRM LINK: its RMBEs start with no
// eyecatcher (SMC_LLC_FLAG_NO_RMBE_EYEC).
inline constexpr std::uint8_t kNoRmbeEyecatcher = 0x03;

// A.3.1
struct ConfirmLink {
  bool reply = false;
  std::uint8_t no_rmbe_eyecatcher = kNoRmbeEyecatcher;
  Mac mac = 0;
  Gid gid{};
  std::uint32_t qp_number = 0;  // 24 bits
  std::uint8_t link_number = 0;
  std::uint32_t link_user_id = 0;
  std::uint8_t max_links = 0;
  friend bool operator==(const ConfirmLink&, const ConfirmLink&) = default;
};

// A.3.3, Figure 34: an RMB's RKey on the link a message flows over, and its
// RToken on the new link.
struct RTokenPair {
  std::uint32_t reference_rkey = 0;
  RToken new_rtoken;
  friend bool operator==(const RTokenPair&, const RTokenPair&) = default;
};

// A.3.2; v2 adds the extension (Linux smc_llc_msg_add_link_v2_ext) with
// the RTokens of every RMB, so v2 needs no ADD LINK CONTINUATION.
struct AddLink {
  bool reply = false;
  bool reject = false;              // Z
  std::uint8_t reason_code = 0;     // RsnCode (v1 only: octet 2 is Length's high octet in v2)
  Mac mac = 0;
  Gid gid{};
  std::uint32_t qp_number = 0;      // 24 bits
  std::uint8_t link_number = 0;
  std::uint8_t mtu = 0;             // 4 bits, enumerated as in App. A.2.3
  std::uint32_t initial_psn = 0;    // 24 bits
  struct V2Extension {
    bool v2_direct = false;
    Gid client_target_gid{};
    std::vector<RTokenPair> rtokens;
    std::optional<std::uint16_t> num_rkeys;  // unset: rtokens.size()
    friend bool operator==(const V2Extension&, const V2Extension&) = default;
  };
  std::optional<V2Extension> v2_extension;
  friend bool operator==(const AddLink&, const AddLink&) = default;
};

// A.3.2's RsnCode of a rejecting ADD LINK reply.
inline constexpr std::uint8_t kAddLinkNoAlternatePath = 1;
inline constexpr std::uint8_t kAddLinkInvalidMtu = 2;

// A.3.3: up to two pairs a message.
struct AddLinkContinuation {
  bool reply = false;
  std::uint8_t link_number = 0;
  std::vector<RTokenPair> rtokens;          // at most kPairs
  std::optional<std::uint8_t> num_rtokens;  // unset: rtokens.size()
  static constexpr std::size_t kPairs = 2;
  friend bool operator==(const AddLinkContinuation&, const AddLinkContinuation&) = default;
};

// A.3.4
struct DeleteLink {
  bool reply = false;
  bool all = false;      // A: the whole link group
  bool orderly = false;  // O
  std::uint8_t link_number = 0;
  std::uint32_t reason_code = 0;
  friend bool operator==(const DeleteLink&, const DeleteLink&) = default;
};

// A.3.4's reason codes (Linux SMC_LLC_DEL_*; the last is Linux's too).
namespace delete_reason {
inline constexpr std::uint32_t kLostPath = 0x00010000;
inline constexpr std::uint32_t kOperatorInitiated = 0x00020000;
inline constexpr std::uint32_t kProgramInitiated = 0x00030000;
inline constexpr std::uint32_t kProtocolViolation = 0x00040000;
inline constexpr std::uint32_t kAsymmetricNotNeeded = 0x00050000;
inline constexpr std::uint32_t kUnknownLink = 0x00100000;
inline constexpr std::uint32_t kUnknownLinkGroup = 0x00200000;  // Linux SMC_LLC_DEL_NOLGR
}  // namespace delete_reason

// A.3.5: a link number and the RMB's RToken on that link.
struct LinkRToken {
  std::uint8_t link_number = 0;
  RToken rtoken;
  friend bool operator==(const LinkRToken&, const LinkRToken&) = default;
};

// A.3.5
struct ConfirmRkey {
  bool reply = false;
  bool negative = false;  // Z
  bool retry = false;     // C
  RToken this_link;       // the new RMB on the link this message flows over
  std::vector<LinkRToken> other_links;    // at most kOtherLinks
  std::optional<std::uint8_t> num_tkns;   // unset: other_links.size()
  static constexpr std::size_t kOtherLinks = 2;
  friend bool operator==(const ConfirmRkey&, const ConfirmRkey&) = default;
};

// A.3.6
struct ConfirmRkeyContinuation {
  bool reply = false;
  bool negative = false;
  std::uint8_t num_tkns_left = 0;
  std::vector<LinkRToken> rtokens;  // at most kLinks
  static constexpr std::size_t kLinks = 3;
  friend bool operator==(const ConfirmRkeyContinuation&, const ConfirmRkeyContinuation&) = default;
};

// A.3.7; v2 (Linux smc_llc_msg_delete_rkey_v2) lists its RKeys after the
// 8-octet message and counts the ones it could not delete instead of
// masking them.
struct DeleteRkey {
  bool reply = false;
  bool negative = false;
  std::uint8_t error_mask = 0;        // v1; v2: Num Invalid RKeys
  std::vector<std::uint32_t> rkeys;   // v1: at most kRkeys
  std::optional<std::uint8_t> count;  // unset: rkeys.size()
  static constexpr std::size_t kRkeys = 8;
  friend bool operator==(const DeleteRkey&, const DeleteRkey&) = default;
};

// A.3.8
struct TestLink {
  bool reply = false;
  std::array<std::uint8_t, 16> user_data{};
  friend bool operator==(const TestLink&, const TestLink&) = default;
};

// SMC v2 only (Linux smc_llc_msg_req_add_link_v2): the client's GIDs.
struct RequestAddLink {
  bool reply = false;
  std::vector<Gid> gids;
  std::optional<std::uint8_t> gid_count;  // unset: gids.size()
  friend bool operator==(const RequestAddLink&, const RequestAddLink&) = default;
};

using Llc = std::variant<ConfirmLink, AddLink, AddLinkContinuation, DeleteLink, ConfirmRkey,
                         ConfirmRkeyContinuation, DeleteRkey, TestLink, RequestAddLink>;

// The RFC 7609 type (1-9) of a value.
std::uint8_t base_type(const Llc& m);
bool is_reply(const Llc& m);

struct LlcEncoding {
  std::uint8_t version = 1;             // 2: the v2 type (0x2_) and a 16-bit Length, where the type has one
  std::optional<std::uint16_t> length;  // unset: computed
};

// The message's octets. A type without a v2 form (the continuations) is
// sent in its v1 form whatever `e.version` says, as Linux does.
std::vector<std::uint8_t> encode(const Llc& m, LlcEncoding e = {});

// The fields of a decoded message, ready to be encoded again.
Llc fields_of(const LlcMessage& m);
// How `m` was encoded: its version, and its Length where it is not the
// computed one.
LlcEncoding encoding_of(const LlcMessage& m);

// ------------------------------------------------------------------- CDC

// A.4, each flag named by the RFC's letter's meaning.
struct CdcFields {
  std::uint16_t sequence_number = 0;
  std::uint32_t alert_token = 0;
  Cursor producer;
  Cursor consumer;
  bool writer_blocked = false;           // B
  bool urgent_data_pending = false;      // P
  bool urgent_data_present = false;      // U
  bool consumer_update_requested = false;  // R
  bool failover_validation = false;      // F
  bool sending_done = false;             // D
  bool peer_connection_closed = false;   // C
  bool abnormal_close = false;           // A
  friend bool operator==(const CdcFields&, const CdcFields&) = default;
};

std::vector<std::uint8_t> encode(const CdcFields& c);
CdcFields fields_of(const CdcMessage& m);

}  // namespace rdmaconf::smcr
