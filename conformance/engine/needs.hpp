// The `needs` items of a case (docs/conformance.md, "Case scripts"): what
// the IUT must provide beyond the base protocol. This table is the one place
// they are named: the script parser refuses any other item, `rdmaconf run
// --iut-lacks` offers exactly these, and an agent's capabilities map onto
// them (conformance/agent/capabilities.cpp). Standard C++ only (the parser
// that reads it is fuzzed).
#pragma once

#include <cstdint>

#include <string>
#include <string_view>
#include <vector>

#include "engine/script.hpp"

namespace rdmaconf::conformance {

struct NeedsItem {
  std::string_view name;
  std::string_view meaning;  // one line, for help texts
};

inline constexpr NeedsItem kNeedsItems[] = {
    {"receives", "posted receives for Sends"},
    {"echo", "the IUT echoes every Send (test ULP)"},
    {"rev2", "MPA revision 2 (RFC 6581)"},
    {"markers", "the IUT asks for Markers when the tester hints so"},
    {"no-crc", "MPA without CRCs when the tester asks for none"},
    {"atomics", "Atomic Operations (RFC 7306)"},
    {"immediate", "Immediate Data (RFC 7306)"},
    {"commands", "the IUT obeys test ULP commands"},
    {"agent", "someone reports the IUT's own side (an agent, or the reference)"},
    {"terminate-events", "that report names the Terminates sent and received"},
    {"clc", "the SMC-R CLC handshake"},
    {"smcr-v1", "SMC-R version 1"},
    {"smcr-v2", "SMC-R version 2"},
    {"smcv2.1", "release 1 of SMC v2"},
    {"roce", "the tester reaches the IUT over RoCE as its SMC-R peer (the smcr suite)"},
    {"sctp-acks", "the tester's SCTP acknowledges the IUT's chunks only when a case says so (the reference in memory)"},
    {"smcr-actions", "the IUT's SMC-R side adds an RMB or a link, deletes a link or closes when the tester asks"},
    {"smcr-fabric", "the tester controls the RoCE fabric to the IUT: a link can stop delivering before it breaks"},
    {"mpa", "DDP runs over MPA on TCP: the case's meaning rests on MPA or TCP in a way its steps do not show"},
};

// The buffers of the test ULP profile (docs/conformance.md, "Test ULP"): a
// case needs one as `buffer:NAME`.
inline constexpr std::string_view kTestUlpBuffers[] = {"rw", "ro", "wo", "local", "inv", "noinv", "otherpd", "stale", "recv"};

// An item a case may name: one of kNeedsItems or buffer:NAME of the profile.
bool is_needs_item(std::string_view item);
// What `--iut-lacks` takes: a needs item, or `buffer` for every buffer.
bool is_lackable(std::string_view item);
// "receives, echo, ..., smcv2.1, buffer:NAME (rw, ro, ...)", for messages.
std::string needs_items_text();

// The first item `c` needs that the IUT lacks (`buffer` lacks every
// buffer:NAME), or null: such a case is reported unimplemented without a
// connection. `smcr_version` (RunOptions::smcr_version): an smcr case runs
// over that SMC-R version, so it needs smcr-v1 or smcr-v2 as that says,
// not as its script says.
const std::string* lacked_need(const Case& c, const std::vector<std::string>& iut_lacks,
                               std::uint8_t smcr_version = 0);

// Why a ddp or rdmap case cannot run over SCTP (RFC 5043, `rdmaconf run
// --transport sctp`), or empty when it can: its meaning rests on MPA or TCP.
// Read from the script itself, so no list of cases is kept: the case needs
// `mpa` (or rev2, markers, no-crc, which only MPA negotiates), or a step
// names an MPA unit (mpa.*), raw octets, an MPA Request field of its
// handshake, a framing field of an FPDU (ULPDU_Length, PAD, CRC, Markers),
// how the FPDU's octets go into TCP sends (split, more, truncate, append),
// or a TCP reset; or it needs `agent`, whose view names TCP connections.
std::string mpa_bound(const Case& c);

// The highest SMC-R link number an smcr case names (`link=N` on any step
// or expectation; 1 when it names none): a case naming link 2 needs the
// IUT's second link, which a tester with one RoCE port cannot accept
// (RFC 7609 §3.5.1.6.1: it would be a parallel link).
std::uint64_t smcr_links_named(const Case& c);

}  // namespace rdmaconf::conformance
