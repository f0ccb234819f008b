// Writing captures: pcapng (with per-packet comments, which Wireshark shows
// as frame.comment) or classic pcap, one interface per file. libpcap cannot
// write pcapng, so both formats are written here from the declarations in
// capture/file_format.hpp; standard library only.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>
#include <vector>

#include "capture/headers.hpp"
#include "capture/types.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::capture {

enum class FileFormat : std::uint8_t { kPcapng, kPcap };

class CaptureWriter {
 public:
  static constexpr std::uint32_t kDefaultSnaplen = 262144;  // libpcap's MAXIMUM_SNAPLEN

  // Writes the file header (pcapng: SHB and IDB) at once.
  CaptureWriter(std::ostream& out, FileFormat format, LinkType link = LinkType::kEthernet,
                std::uint32_t snaplen = kDefaultSnaplen);

  // Appends one frame. `original_length` (0: the frame's size) larger than
  // the frame records a snaplen-cut packet. `comment` is written as the
  // EPB's opt_comment (pcapng only; classic pcap has no place for it).
  void write(Timestamp time, wire::Bytes frame, std::string_view comment = {},
             std::uint32_t original_length = 0);

  FileFormat format() const { return format_; }
  std::uint64_t frames_written() const { return frames_; }
  bool ok() const { return out_.good(); }

  // The same blocks as octets, for tests and in-memory captures.
  static std::vector<std::uint8_t> pcapng_header(LinkType link, std::uint32_t snaplen);
  static std::vector<std::uint8_t> pcapng_packet(Timestamp time, wire::Bytes frame,
                                                 std::string_view comment, std::uint32_t original_length);
  static std::vector<std::uint8_t> pcap_header(LinkType link, std::uint32_t snaplen);
  static std::vector<std::uint8_t> pcap_packet(Timestamp time, wire::Bytes frame,
                                               std::uint32_t original_length);

 private:
  void put(const std::vector<std::uint8_t>& b);

  std::ostream& out_;
  FileFormat format_;
  std::uint64_t frames_ = 0;
};

}  // namespace rdmaconf::capture
