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

namespace rdmaconf::conformance::runner {

// Case protocol sctp, instead of a TCP connection: the tester's SCTP side
// from RunOptions::sctp. False with `error` when there is none.
bool sctp_open(Session& s, std::string& error);
// Runs one step of an sctp case.
StepOutcome run_sctp_step(Session& s, const Step& st);
// The units and fields a script may name, for check_case.
bool sctp_unit_known(std::string_view unit, bool sending);
bool sctp_field_known(std::string_view unit, std::string_view field, bool sending);

}  // namespace rdmaconf::conformance::runner
