// Internal to the runner: the smcr suite's SMC-R phase (docs/conformance.md,
// "The smcr suite"). After the CLC handshake reached SMC-R, the tester is the
// IUT's SMC-R peer over a RoceSide (smcr_transport.hpp): by default the
// reference link group (reference/smcr/link_group.hpp, the tester's role) and
// one connection (reference/smcr/connection.hpp) whose checks judge every
// LLC and CDC message the IUT sends; `> smcr.manual` instead leaves every
// LLC message to the script. Scripts send LLC and CDC messages with fields
// overridden (`> llc.test_link ...`, `> cdc ...`), data (`> data.write`),
// close, abort or break a link (`> smcr.close`, `smcr.break_link`), and expect
// the IUT's messages (`< llc.delete_link ...`, `< cdc ...`), data echoed back
// (`< data octets=N`) and what the tester's link group saw (`< smcr.link_up`).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "smcr/link_group.hpp"
#include "engine/runner_session.hpp"

namespace rdmaconf::conformance::runner {

// The tester's RMBE in the smcr suite (App. A.2.3: the smallest, 16 KiB).
inline constexpr std::uint64_t kTesterRmbeSize = 16384;

// A step of the SMC-R phase: its unit (or every alternative's) is llc.*,
// cdc, data.*, data or smcr.*; `wait` is one too once the phase began (the
// link groups' time is the phase's).
bool is_smcr_step(const Session& s, const Step& st);
StepOutcome run_smcr_step(Session& s, const Step& st);
// Case protocol smcr, before the tester's Proposal: its first link's queue
// pair and RMB, which its CLC messages then name (`cfg.link`).
bool smcr_prepare_clc(Session& s, clc::SmcrLink& link, std::string& error);
// `connection N` (N > 1) of the smcr suite, after smcr_prepare_clc: the
// IUT's end of connection 1's link group, which the tester's client expects
// the IUT's Accept to reuse (§3.5.2). Empty for connection 1.
std::optional<clc::LinkGroupPeer> smcr_reused_group(const Session& s);
// `connection N` (N > 1) with the tester as client, its Confirm built: the
// tester names its own end of the link the IUT's Accept chose, and its RMB
// as registered on that link (§3.5.2.2, §3.5.2.3: a client may name any
// active link, and the server uses the RMB's RToken for the link the Confirm
// names; naming the server's own link keeps the case to what its row is
// about). Leaves `confirm` as it is when the Accept names no active link of
// the tester's group (the tester's client then judges the Accept).
void smcr_confirm_link(const Session& s, clc::AcceptConfirm& confirm);
// The tester's end of its group's active link whose IUT end is `iut` (GID
// and QP), with `rmb`'s RToken on that link: the fields a Confirm names.
std::optional<clc::SmcrLink> smcr_own_end(const smcr::LinkGroup& g, std::uint32_t rmb, const clc::SmcrLink& iut);
// The tester's client took the IUT's Accept and is about to send its
// Confirm: a device's first link connects now (smcr_transport.hpp,
// connect_first). False with `error` when it cannot.
bool smcr_before_confirm(Session& s, std::string& error);
// While a session waits on its TCP connection (the CLC exchange of a later
// connection, a close), a device's link group goes on: its IUT may ask
// first and wait for the answer (Linux registers a later connection's new
// RMB with CONFIRM RKEY before its Accept: §3.5.5.2.1 lets no connection go
// active before its RTokens reached the peer on every link). Pumps the
// session's link group once when it has one on a device; false when there
// is none to tend, true otherwise. The wait polls in slices of kSmcrTendSlice.
bool smcr_tend(Session& s);
inline constexpr std::chrono::milliseconds kSmcrTendSlice{5};
// RFC 7609 §4.8.1: SMC-R's close comes first, TCP's FIN after it. Before the
// runner closes a session's TCP connection at the case's end, the tester's
// SMC-R connection of that session closes, when the script left it open and
// the TCP connection still is: its C goes out (an A when unread data remains,
// 3A) and its Send completes, the IUT having acknowledged it, for at most
// kSmcrCloseWait (scaled by the run's --time-scale).
void smcr_close_before_fin(Session& s);
inline constexpr std::chrono::seconds kSmcrCloseWait{2};
// With a run's --smcr-version, the first LLC field the case's steps name
// that no message of that version holds (a script written for version 1
// names llc.length, which version 2 splits in two): such a case cannot run
// over that version, which says nothing of the IUT. Empty when none.
std::string smcr_field_missing_in(const Case& c, std::uint8_t version);
// The units and fields a script may name in the phase, for check_case.
bool smcr_unit_known(std::string_view unit, bool sending);
bool smcr_field_known(std::string_view unit, std::string_view field);

}  // namespace rdmaconf::conformance::runner
