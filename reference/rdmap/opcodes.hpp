// One table row per RDMAP opcode (the habit of Linux siw's iwarp_pktinfo):
// how each message uses DDP (RFC 5040 §4.3, RFC 7306 §4), what the receiver
// must check about its shape, and where the RFC defines it. The stream and
// the segmenter read this table instead of switching on opcodes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rdmap/headers.hpp"

namespace rdmaconf::rdmap {

// RFC 5040 §4.1 / RFC 6580 "RDMAP DDP Untagged Queue Numbers", plus the queue
// RFC 7306 adds for Atomic Requests and Atomic Responses.
enum class Queue : std::uint32_t {
  kSend = 0,         // Send variants and (RFC 7306) Immediate Data
  kReadRequest = 1,  // RDMA Read Requests
  kTerminate = 2,    // Terminate
  kAtomic = 3,       // RFC 7306: Atomic Request and Atomic Response
};
constexpr std::uint32_t kQueueCount = 4;
constexpr ddp::QueueNumber qn(Queue q) { return ddp::QueueNumber{static_cast<std::uint32_t>(q)}; }

struct OpcodeInfo {
  Opcode opcode;
  std::string_view name;
  bool tagged;                      // DDP T bit the message must use
  std::optional<Queue> queue;       // untagged messages only
  std::size_t rdmap_header_size;    // RDMAP header at the start of the DDP payload
  bool single_segment;              // the message is one segment with L=1
  bool carries_invalidate_stag;     // untagged RsvdULP[8:39] is the Invalidate STag
  bool solicited_event;             // the SE variants
  bool payload_allowed;             // ULP payload after the RDMAP header
  bool exact_size;                  // payload must be exactly the RDMAP header
  std::string_view rfc_section;
};

inline constexpr OpcodeInfo kOpcodeTable[] = {
    {Opcode::kRdmaWrite, "RDMA Write", true, std::nullopt, 0, false, false, false, true, false,
     "RFC 5040 §5.1"},
    {Opcode::kRdmaReadRequest, "RDMA Read Request", false, Queue::kReadRequest,
     kReadRequestHeaderSize, true, false, false, false, true, "RFC 5040 §5.2.1"},
    {Opcode::kRdmaReadResponse, "RDMA Read Response", true, std::nullopt, 0, false, false, false,
     true, false, "RFC 5040 §5.2.2"},
    {Opcode::kSend, "Send", false, Queue::kSend, 0, false, false, false, true, false,
     "RFC 5040 §5.3"},
    {Opcode::kSendWithInvalidate, "Send with Invalidate", false, Queue::kSend, 0, false, true,
     false, true, false, "RFC 5040 §5.3"},
    {Opcode::kSendWithSe, "Send with Solicited Event", false, Queue::kSend, 0, false, false, true,
     true, false, "RFC 5040 §5.3"},
    {Opcode::kSendWithSeAndInvalidate, "Send with Solicited Event and Invalidate", false,
     Queue::kSend, 0, false, true, true, true, false, "RFC 5040 §5.3"},
    // A Terminate's length depends on its header control bits: at least the
    // 4-octet Terminate Control (rdmap/terminate.hpp checks the rest).
    {Opcode::kTerminate, "Terminate", false, Queue::kTerminate, kTerminateControlSize, true,
     false, false, true, false, "RFC 5040 §5.4"},
    {Opcode::kImmediateData, "Immediate Data", false, Queue::kSend, kImmediateDataHeaderSize,
     true, false, false, false, true, "RFC 7306 §6"},
    {Opcode::kImmediateDataWithSe, "Immediate Data with Solicited Event", false, Queue::kSend,
     kImmediateDataHeaderSize, true, false, true, false, true, "RFC 7306 §6"},
    // RFC 7306 §5.2: Atomic Requests use the Read Requests' queue (QN 1),
    // Atomic Responses QN 3.
    {Opcode::kAtomicRequest, "Atomic Request", false, Queue::kReadRequest, kAtomicRequestHeaderSize,
     true, false, false, false, true, "RFC 7306 §5.2"},
    {Opcode::kAtomicResponse, "Atomic Response", false, Queue::kAtomic, kAtomicResponseHeaderSize,
     true, false, false, false, true, "RFC 7306 §5"},
};

// The row for a 4-bit opcode value, or nullptr for the reserved values
// 0xC..0xF (RFC 7306 §4).
constexpr const OpcodeInfo* find_opcode(std::uint8_t value) {
  for (const OpcodeInfo& info : kOpcodeTable)
    if (static_cast<std::uint8_t>(info.opcode) == value) return &info;
  return nullptr;
}
constexpr const OpcodeInfo& info(Opcode op) { return *find_opcode(static_cast<std::uint8_t>(op)); }

static_assert(sizeof(kOpcodeTable) / sizeof(kOpcodeTable[0]) == 12);

}  // namespace rdmaconf::rdmap
