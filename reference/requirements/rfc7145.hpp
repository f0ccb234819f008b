// RFC 7145: Internet Small Computer System Interface (iSCSI) Extensions for
// the Remote Direct Memory Access (RDMA) Specification (iSER), restricted to
// what a capture of an RDMAP stream shows about the STags a SCSI command
// advertises: the target's RDMA Reads and Writes that use them, and the
// STag the Send carrying the SCSI Response invalidates. Each row is checked
// by one function of the rule layer (reference/check/ulp.hpp) and reported
// by the capture analyzer.
//
// The registry does not trace RFC 7145 sentence by sentence (see
// trace.cpp): these rows are the rules rdmaconf checks, each citing the
// section that states it.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc7145 {

inline constexpr Level M = Level::kMust;

inline constexpr Requirement kRows[] = {
    // §7.3.2 SCSI Response
    row("rfc7145-7.3.2-response-invalidates-task-stag", M, W,
        "The Send carrying a SCSI Response names the STag to invalidate: the command's Read STag when it "
        "advertised one, else its Write STag; a Send with Invalidate therefore invalidates exactly that STag, and "
        "a command that advertised no STag is answered by a Send without Invalidate")
        .says("a SCSI Response sent with Invalidate invalidates its command's Read STag, or its Write STag when it advertised no Read STag; a command that advertised no STag gets no Send with Invalidate"),

    // §7.3.5 SCSI Data-In
    row("rfc7145-7.3.5-write-uses-read-stag", M, W,
        "The target sends SCSI Read data by RDMA Write to the Read STag its command advertised, at the Base "
        "Offset plus the Data-In's Buffer Offset: every RDMA Write lands inside the buffer of an open command")
        .says("the target's RDMA Writes go to the Read STag an open SCSI command advertised, within its buffer (Base Offset, Expected Data Transfer Length)"),

    // §7.3.6 Ready To Transfer (R2T)
    row("rfc7145-7.3.6-read-uses-write-stag", M, W,
        "The target turns an R2T into an RDMA Read Request whose Data Source is the Write STag its command "
        "advertised, at the Base Offset plus the R2T's Buffer Offset: every Read Request reads inside the "
        "buffer of an open command")
        .says("the target's RDMA Read Requests read from the Write STag an open SCSI command advertised, within its buffer (Base Offset, Expected Data Transfer Length)"),
};

}  // namespace rdmaconf::requirements::detail::rfc7145
