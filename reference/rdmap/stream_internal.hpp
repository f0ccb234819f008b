// What stream.cpp (the Data Source side: posts, outgoing segments, the
// error path) and stream_receive.cpp (the Data Sink side: RFC 5041 §7 and
// RFC 5040 §5 receive rules) share. Private to the stream.
#pragma once

#include "rdmap/stream.hpp"

namespace rdmaconf::rdmap::stream_detail {

inline Completion done(WorkRequestId id, CompletionType type,
                CompletionStatus status = CompletionStatus::kSuccess, std::uint32_t len = 0) {
  Completion c;
  c.wr_id = id;
  c.type = type;
  c.status = status;
  c.byte_len = len;
  return c;
}


}  // namespace rdmaconf::rdmap::stream_detail
