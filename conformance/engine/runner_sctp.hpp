// Internal to the runner: the sctp suite (docs/conformance.md, "The sctp
// suite"). Its cases run on an SCTP association (sctp_transport.hpp) instead
// of a TCP connection: the tester sets the association up (`> sctp.init`,
// or with its defaults before the first step), sends Session Control
// messages and DDP segments whose DDP-SSN, stream, PPID and U flag the
// script chooses (`> sctp.control`, `> sctp.segment`), lets its SCTP
// acknowledge what the IUT sent (`> sctp.ack`), and expects what the IUT's
// INIT-ACK announced (`< sctp.association`) and the chunks it sends
// (`< sctp.control`, `< sctp.segment`, `< silence`), judged against
// RFC 5043's rows.
#pragma once

#include <string>
#include <string_view>

#include "engine/runner_session.hpp"
#include "engine/sctp_packets.hpp"

namespace rdmaconf::conformance::runner {

// Case protocol sctp, instead of a TCP connection: the tester's SCTP side
// from RunOptions::sctp. False with `error` when there is none.
bool sctp_open(Session& s, std::string& error);
// At the case's end: what the session's association carried
// (sctp_packets.hpp) goes to its result's ExchangeRecord, for the rules
// checked in passing and the capture writer. Nothing when the session is
// not over SCTP.
void keep_sctp_record(Session& s);
// Runs one step of an sctp case.
StepOutcome run_sctp_step(Session& s, const Step& st);

// The ddp and rdmap suites over SCTP (RunOptions::llp, docs/sctp-ddp.md):
// the case's connection is one DDP Stream Session on stream 0 of its own
// association. `handshake` sets it up (Initiate, and the IUT's Accept
// whose private data is the test ULP's advertisement, RFC 5043 §6.2), each
// unit the tester sends is one DDP segment in one DDP Segment Chunk
// (§5.2.2), the IUT's chunks are taken in DDP-SSN order (§6.1, §10), and
// `fin` ends the session with a Session Terminate; the IUT's Session
// Terminate, or the association's end, is its close.
bool sctp_ddp_open(Session& s, std::string& error);
StepOutcome sctp_ddp_handshake(Session& s, const Step& st);
// Sends `segment` (a DDP segment whole) as the step's unit.
StepOutcome sctp_ddp_send(Session& s, const Step& st, const std::vector<std::uint8_t>& segment, std::string headline,
                          std::string detail);
StepOutcome sctp_ddp_fin(Session& s, const Step& st);
// Session::next_event over SCTP.
Session::Event sctp_next_event(Session& s, Clock::time_point deadline);
// The units and fields a script may name, for check_case.
bool sctp_unit_known(std::string_view unit, bool sending);
bool sctp_field_known(std::string_view unit, std::string_view field, bool sending);

}  // namespace rdmaconf::conformance::runner
