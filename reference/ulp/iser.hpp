// iSER (RFC 7145), iSCSI's datamover over RDMAP, declared once as data.
//
// Every iSER message is one RDMAP Send whose payload starts with the 28-octet
// iSER header (§9.1). Its 4-bit opcode says what follows: an iSCSI
// control-type PDU (§9.2: the header then carries the STags of the
// initiator's I/O buffers, the Write STag the target reads solicited data
// from with RDMA Read, the Read STag it writes SCSI Read data to with RDMA
// Write), or the Hello and HelloReply messages (§9.3, §9.4) of a connection
// negotiated with iSERHelloRequired. The iSCSI PDU after the header starts
// with its 48-octet Basic Header Segment (RFC 7143 §11.2), of which rdmaconf
// reads what ties the PDU to the RDMA traffic: the opcode, the data segment
// length and the Initiator Task Tag.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "wire/field.hpp"

namespace rdmaconf::ulp::iser {

constexpr std::size_t kHeaderSize = 28;  // RFC 7145 §9.1
constexpr std::size_t kBhsSize = 48;     // RFC 7143 §11.2

// RFC 7145 §9.1: the iSER opcode.
enum class Opcode : std::uint8_t { kControl = 1, kHello = 2, kHelloReply = 3 };
// RFC 7145 §9.3, §9.4: MaxVer, MinVer and CurVer are 10 for RFC 7145.
constexpr std::uint8_t kVersion = 10;

namespace names {
inline constexpr wire::ValueName kOpcode[] = {
    {1, "iSCSI control-type PDU"}, {2, "iSER Hello"}, {3, "iSER HelloReply"}};
}  // namespace names

// RFC 7145 §9.2, Figure 3: the iSER header before an iSCSI control-type PDU.
struct ControlSpec {
  enum class Field : std::uint8_t { Opcode, WSV, RSV, Reserved, WriteSTag, WriteBaseOffset, ReadSTag, ReadBaseOffset };
  static constexpr wire::FieldDecl fields[] = {
      {"Opcode", "opcode", 0, 4, "which iSER message: 1, an iSCSI control-type PDU follows", "RFC 7145 §9.1",
       wire::Display::kDecimal, names::kOpcode},
      {"WSV", "wsv", 4, 1, "Write STag Valid: the Write STag and Write Base Offset are meaningful",
       "RFC 7145 §9.2", wire::Display::kFlag},
      {"RSV", "rsv", 5, 1, "Read STag Valid: the Read STag and Read Base Offset are meaningful", "RFC 7145 §9.2",
       wire::Display::kFlag},
      {"Reserved", "reserved", 6, 26, "sent as zero, ignored on receipt", "RFC 7145 §9.2", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"Write STag", "write_stag", 32, 32,
       "the initiator's buffer holding solicited SCSI Write data, which the target reads by RDMA Read",
       "RFC 7145 §9.2", wire::Display::kHex},
      {"Write Base Offset", "write_base_offset", 64, 64, "the tagged offset where that buffer starts",
       "RFC 7145 §9.2", wire::Display::kHex},
      {"Read STag", "read_stag", 128, 32,
       "the initiator's buffer for SCSI Read data, which the target fills by RDMA Write", "RFC 7145 §9.2",
       wire::Display::kHex},
      {"Read Base Offset", "read_base_offset", 160, 64, "the tagged offset where that buffer starts",
       "RFC 7145 §9.2", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"iSER header (iSCSI control-type PDU)", "iser", kHeaderSize, fields,
                                         "RFC 7145 §9.2"};
};
using ControlHeader = wire::Header<ControlSpec>;

// RFC 7145 §9.3, Figure 4: the initiator's Hello.
struct HelloSpec {
  enum class Field : std::uint8_t { Opcode, Rsvd, MaxVer, MinVer, IRD, Reserved };
  static constexpr wire::FieldDecl fields[] = {
      {"Opcode", "opcode", 0, 4, "2: iSER Hello", "RFC 7145 §9.1", wire::Display::kDecimal, names::kOpcode},
      {"Rsvd", "rsvd", 4, 4, "sent as zero, ignored on receipt", "RFC 7145 §9.3", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"MaxVer", "maxver", 8, 4, "highest iSER version supported: 10", "RFC 7145 §9.3"},
      {"MinVer", "minver", 12, 4, "lowest iSER version supported: 10", "RFC 7145 §9.3"},
      {"iSER-IRD", "ird", 16, 16, "the initiator's iSER-IRD", "RFC 7145 §9.3"},
      {"Reserved", "reserved", 32, 192, "sent as zero, ignored on receipt", "RFC 7145 §9.3", wire::Display::kBytes,
       {}, wire::Rule::kIgnoredOnReceive},
  };
  static constexpr wire::HeaderDecl decl{"iSER Hello", "iser.hello", kHeaderSize, fields, "RFC 7145 §9.3"};
};
using HelloHeader = wire::Header<HelloSpec>;

// RFC 7145 §9.4, Figure 5: the target's HelloReply.
struct HelloReplySpec {
  enum class Field : std::uint8_t { Opcode, Rsvd, REJ, MaxVer, CurVer, ORD, Reserved };
  static constexpr wire::FieldDecl fields[] = {
      {"Opcode", "opcode", 0, 4, "3: iSER HelloReply", "RFC 7145 §9.1", wire::Display::kDecimal, names::kOpcode},
      {"Rsvd", "rsvd", 4, 3, "sent as zero, ignored on receipt", "RFC 7145 §9.4", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"REJ", "rej", 7, 1, "the target rejects the connection", "RFC 7145 §9.4", wire::Display::kFlag},
      {"MaxVer", "maxver", 8, 4, "highest iSER version supported: 10", "RFC 7145 §9.4"},
      {"CurVer", "curver", 12, 4, "the iSER version in use: 10", "RFC 7145 §9.4"},
      {"iSER-ORD", "ord", 16, 16, "the target's iSER-ORD", "RFC 7145 §9.4"},
      {"Reserved", "reserved", 32, 192, "sent as zero, ignored on receipt", "RFC 7145 §9.4", wire::Display::kBytes,
       {}, wire::Rule::kIgnoredOnReceive},
  };
  static constexpr wire::HeaderDecl decl{"iSER HelloReply", "iser.helloreply", kHeaderSize, fields,
                                         "RFC 7145 §9.4"};
};
using HelloReplyHeader = wire::Header<HelloReplySpec>;

// RFC 7143 §11.2.1 opcodes (initiator 0x00-0x1f, target 0x20-0x3f).
namespace names {
inline constexpr wire::ValueName kIscsiOpcode[] = {
    {0x00, "NOP-Out"},           {0x01, "SCSI Command"},      {0x02, "Task Management Function Request"},
    {0x03, "Login Request"},     {0x04, "Text Request"},      {0x05, "SCSI Data-Out"},
    {0x06, "Logout Request"},    {0x10, "SNACK Request"},     {0x20, "NOP-In"},
    {0x21, "SCSI Response"},     {0x22, "Task Management Function Response"},
    {0x23, "Login Response"},    {0x24, "Text Response"},     {0x25, "SCSI Data-In"},
    {0x26, "Logout Response"},   {0x31, "Ready To Transfer (R2T)"},
    {0x32, "Asynchronous Message"}, {0x3f, "Reject"}};
}  // namespace names

// RFC 7143 §11.2.1.2: the opcodes whose PDUs tie a task to RDMA traffic.
constexpr std::uint8_t kScsiCommand = 0x01, kScsiResponse = 0x21;

// RFC 7143 §11.2: the fields of the Basic Header Segment every iSCSI PDU
// shares (the opcode-specific ones stay opaque here).
struct BhsSpec {
  enum class Field : std::uint8_t {
    Reserved, I, Opcode, F, OpcodeSpecific, TotalAHSLength, DataSegmentLength, LUN, ITT, Rest
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Reserved", "bhs_rsvd", 0, 1, "reserved", "RFC 7143 §11.2.1", wire::Display::kFlag},
      {"I", "immediate", 1, 1, "immediate delivery (initiator PDUs)", "RFC 7143 §11.2.1", wire::Display::kFlag},
      {"Opcode", "iscsi_opcode", 2, 6, "the iSCSI PDU type", "RFC 7143 §11.2.1", wire::Display::kHex,
       names::kIscsiOpcode},
      {"F", "final", 8, 1, "final PDU of a sequence", "RFC 7143 §11.2.1", wire::Display::kFlag},
      {"Opcode-specific fields", "opcode_specific", 9, 23, "depend on the opcode", "RFC 7143 §11.2.1",
       wire::Display::kHex},
      {"TotalAHSLength", "total_ahs_length", 32, 8, "additional header segments, in 4-octet words",
       "RFC 7143 §11.2.1", wire::Display::kDecimal},
      {"DataSegmentLength", "data_segment_length", 40, 24, "octets of the data segment (immediate data)",
       "RFC 7143 §11.2.1", wire::Display::kDecimal},
      {"LUN or opcode-specific", "lun", 64, 64, "logical unit number for SCSI PDUs", "RFC 7143 §11.2.1",
       wire::Display::kHex},
      {"Initiator Task Tag", "itt", 128, 32, "the task this PDU belongs to", "RFC 7143 §11.2.1",
       wire::Display::kHex},
      {"Opcode-specific fields", "rest", 160, 224, "depend on the opcode", "RFC 7143 §11.2.1",
       wire::Display::kBytes},
  };
  static constexpr wire::HeaderDecl decl{"iSCSI Basic Header Segment", "iser.bhs", kBhsSize, fields,
                                         "RFC 7143 §11.2"};
};
using Bhs = wire::Header<BhsSpec>;

// RFC 7143 §11.3: the SCSI Command PDU's fields that size and name the
// task: its Expected Data Transfer Length (what the initiator's buffer
// holds, so what the target may read from or write into it) and the CDB,
// whose first octet is the SCSI operation code (SPC-4 §4.2.5.1).
struct ScsiCommandSpec {
  enum class Field : std::uint8_t {
    Reserved, I, Opcode, F, R, W, Reserved2, Attr, Reserved3, TotalAHSLength, DataSegmentLength, LUN, ITT,
    ExpectedDataTransferLength, CmdSN, ExpStatSN, CdbOpcode, CdbRest
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Reserved", "cmd_rsvd", 0, 1, "reserved", "RFC 7143 §11.3", wire::Display::kFlag},
      {"I", "cmd_immediate", 1, 1, "immediate delivery", "RFC 7143 §11.3", wire::Display::kFlag},
      {"Opcode", "cmd_opcode", 2, 6, "0x01: SCSI Command", "RFC 7143 §11.3", wire::Display::kHex},
      {"F", "cmd_final", 8, 1, "no unsolicited Data-Out PDU follows", "RFC 7143 §11.3.1", wire::Display::kFlag},
      {"R", "read", 9, 1, "the command reads data from the target (SCSI Read)", "RFC 7143 §11.3.1",
       wire::Display::kFlag},
      {"W", "write", 10, 1, "the command writes data to the target (SCSI Write)", "RFC 7143 §11.3.1",
       wire::Display::kFlag},
      {"Reserved", "cmd_rsvd2", 11, 2, "reserved", "RFC 7143 §11.3", wire::Display::kHex},
      {"ATTR", "attr", 13, 3, "task attributes", "RFC 7143 §11.3.1", wire::Display::kDecimal},
      {"Reserved", "cmd_rsvd3", 16, 16, "reserved", "RFC 7143 §11.3", wire::Display::kHex},
      {"TotalAHSLength", "cmd_total_ahs_length", 32, 8, "additional header segments, in 4-octet words",
       "RFC 7143 §11.2.1", wire::Display::kDecimal},
      {"DataSegmentLength", "cmd_data_segment_length", 40, 24, "octets of immediate data", "RFC 7143 §11.2.1",
       wire::Display::kDecimal},
      {"LUN", "cmd_lun", 64, 64, "logical unit number", "RFC 7143 §11.3", wire::Display::kHex},
      {"Initiator Task Tag", "cmd_itt", 128, 32, "the task", "RFC 7143 §11.3", wire::Display::kHex},
      {"Expected Data Transfer Length", "edtl", 160, 32, "octets the command moves in its main direction",
       "RFC 7143 §11.3.4", wire::Display::kDecimal},
      {"CmdSN", "cmdsn", 192, 32, "the command's sequence number", "RFC 7143 §11.3.5", wire::Display::kDecimal},
      {"ExpStatSN", "expstatsn", 224, 32, "the next status sequence number expected", "RFC 7143 §11.3.5",
       wire::Display::kDecimal},
      {"CDB operation code", "cdb_opcode", 256, 8, "the SCSI command: the CDB's first octet", "RFC 7143 §11.3.5",
       wire::Display::kHex},
      {"CDB", "cdb_rest", 264, 120, "the rest of the SCSI Command Descriptor Block", "RFC 7143 §11.3.5",
       wire::Display::kBytes},
  };
  static constexpr wire::HeaderDecl decl{"SCSI Command", "iser.scsi_command", kBhsSize, fields, "RFC 7143 §11.3"};
};
using ScsiCommandHeader = wire::Header<ScsiCommandSpec>;
// The name of a SCSI operation code ("READ(10)"), or empty (SPC-4, SBC-3).
std::string_view scsi_opcode_name(std::uint8_t opcode);

// One iSER message as the ULP sees it.
struct Message {
  std::uint8_t opcode = 0;  // iSER opcode (RFC 7145 §9.1)
  // kControl: the STags the initiator advertises and the iSCSI PDU.
  bool wsv = false, rsv = false;
  std::uint32_t reserved = 0;  // RFC 7145 §9.2: sent as zero, ignored on receipt
  std::uint32_t write_stag = 0, read_stag = 0;
  std::uint64_t write_base_offset = 0, read_base_offset = 0;
  std::uint8_t iscsi_opcode = 0;
  bool immediate = false, final = false;
  std::uint32_t data_segment_length = 0;
  std::uint32_t itt = 0;
  // SCSI Command (iSCSI opcode 0x01): its direction flags, buffer size and CDB opcode.
  bool scsi_read = false, scsi_write = false;
  std::uint32_t expected_data_transfer_length = 0;
  std::uint8_t cdb_opcode = 0;
  // kHello / kHelloReply.
  std::uint8_t max_ver = 0, min_or_cur_ver = 0;
  std::uint16_t ird_or_ord = 0;
  bool rej = false;
};

// Decodes the iSER message at the start of a Send's payload: the iSER header
// and, for a control-type PDU, the iSCSI BHS behind it. Errors name the
// field: a payload shorter than the header (RFC 7145 §9.1 puts one in every
// Send), an unassigned opcode, a control-type PDU without its BHS.
wire::Result<Message> decode(wire::Bytes send_payload);

// Encodes `m` through the declarations above (the inverse of decode()): for
// kControl the §9.2 header with both STags and offsets, then the BHS, laid
// out as a SCSI Command (RFC 7143 §11.3: I, F, R, W, DataSegmentLength, ITT,
// Expected Data Transfer Length, CDB operation code) when iscsi_opcode is
// 0x01 and as the shared BHS fields otherwise (all else zero); for kHello
// and kHelloReply their 28 octets; for another opcode the 28-octet header
// with only the opcode set. Values are written as given (the scapy habit):
// WSV and RSV are the caller's, not derived from the STags.
void encode(const Message& m, wire::ByteWriter& w);
std::vector<std::uint8_t> encode(const Message& m);

std::string_view iscsi_opcode_name(std::uint8_t opcode);

}  // namespace rdmaconf::ulp::iser
