// The capture file formats we write, declared field by field: pcapng
// (draft-ietf-opsawg-pcapng: Section Header, Interface Description and
// Enhanced Packet blocks, options) and classic pcap (draft-ietf-opsawg-pcap).
//
// Both formats are written in the writer's byte order and carry a magic
// number from which readers learn it. Our declarations read and write
// big-endian, so our files are big-endian files: libpcap, tshark and
// Wireshark read them exactly as they read files from a big-endian host.
#pragma once

#include <cstdint>

#include "wire/field.hpp"

namespace rdmaconf::capture {

namespace pcapng {
inline constexpr std::uint32_t kSectionHeaderBlock = 0x0A0D0D0A;
inline constexpr std::uint32_t kInterfaceDescriptionBlock = 0x00000001;
inline constexpr std::uint32_t kEnhancedPacketBlock = 0x00000006;
inline constexpr std::uint32_t kByteOrderMagic = 0x1A2B3C4D;
inline constexpr std::uint16_t kOptEndOfOpt = 0;
inline constexpr std::uint16_t kOptComment = 1;     // opt_comment: UTF-8, shown as frame.comment
inline constexpr std::uint16_t kShbUserAppl = 4;    // shb_userappl: the writing application
inline constexpr std::uint16_t kIfTsresol = 9;      // if_tsresol: timestamp resolution
}  // namespace pcapng

inline constexpr wire::ValueName kPcapngBlockTypes[] = {
    {pcapng::kSectionHeaderBlock, "Section Header Block"},
    {pcapng::kInterfaceDescriptionBlock, "Interface Description Block"},
    {pcapng::kEnhancedPacketBlock, "Enhanced Packet Block"},
};

// Every block starts with type and total length and ends with the length again.
struct PcapngBlockHeaderSpec {
  enum class Field : std::uint8_t { BlockType, BlockTotalLength };
  static constexpr wire::FieldDecl fields[] = {
      {"Block Type", "block_type", 0, 32, "kind of block", "pcapng §3.1", wire::Display::kHex,
       kPcapngBlockTypes},
      {"Block Total Length", "block_total_length", 32, 32,
       "octets of the whole block, both length fields included; a multiple of 4", "pcapng §3.1"},
  };
  static constexpr wire::HeaderDecl decl{"pcapng block header", "pcapng.block", 8, fields, "pcapng §3.1"};
};
using PcapngBlockHeader = wire::Header<PcapngBlockHeaderSpec>;

// Section Header Block body after the block header (pcapng §4.1).
struct PcapngSectionHeaderSpec {
  enum class Field : std::uint8_t { ByteOrderMagic, MajorVersion, MinorVersion, SectionLength };
  static constexpr wire::FieldDecl fields[] = {
      {"Byte-Order Magic", "byte_order_magic", 0, 32, "0x1A2B3C4D in the writer's byte order",
       "pcapng §4.1", wire::Display::kHex},
      {"Major Version", "major", 32, 16, "1", "pcapng §4.1"},
      {"Minor Version", "minor", 48, 16, "0", "pcapng §4.1"},
      {"Section Length", "section_length", 64, 64, "octets of the section, or all ones: not given",
       "pcapng §4.1", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"pcapng Section Header Block", "pcapng.shb", 16, fields,
                                         "pcapng §4.1"};
};
using PcapngSectionHeader = wire::Header<PcapngSectionHeaderSpec>;

// Interface Description Block body (pcapng §4.2).
struct PcapngInterfaceDescriptionSpec {
  enum class Field : std::uint8_t { LinkType, Reserved, SnapLen };
  static constexpr wire::FieldDecl fields[] = {
      {"LinkType", "linktype", 0, 16, "LINKTYPE_* of the interface", "pcapng §4.2"},
      {"Reserved", "reserved", 16, 16, "zero", "pcapng §4.2", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"SnapLen", "snaplen", 32, 32, "most octets stored per packet, 0: no limit", "pcapng §4.2"},
  };
  static constexpr wire::HeaderDecl decl{"pcapng Interface Description Block", "pcapng.idb", 8,
                                         fields, "pcapng §4.2"};
};
using PcapngInterfaceDescription = wire::Header<PcapngInterfaceDescriptionSpec>;

// Enhanced Packet Block body before the packet data (pcapng §4.3).
struct PcapngEnhancedPacketSpec {
  enum class Field : std::uint8_t {
    InterfaceId, TimestampUpper, TimestampLower, CapturedPacketLength, OriginalPacketLength
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Interface ID", "interface_id", 0, 32, "index of the IDB in this section", "pcapng §4.3"},
      {"Timestamp (Upper)", "timestamp_upper", 32, 32, "upper 32 bits of the timestamp, in if_tsresol units",
       "pcapng §4.3"},
      {"Timestamp (Lower)", "timestamp_lower", 64, 32, "lower 32 bits of the timestamp", "pcapng §4.3"},
      {"Captured Packet Length", "cap_len", 96, 32, "octets of Packet Data stored", "pcapng §4.3"},
      {"Original Packet Length", "orig_len", 128, 32, "octets the packet had on the wire", "pcapng §4.3"},
  };
  static constexpr wire::HeaderDecl decl{"pcapng Enhanced Packet Block", "pcapng.epb", 20, fields,
                                         "pcapng §4.3"};
};
using PcapngEnhancedPacket = wire::Header<PcapngEnhancedPacketSpec>;

// Option header (pcapng §3.5): value follows, padded to 32 bits.
struct PcapngOptionSpec {
  enum class Field : std::uint8_t { OptionCode, OptionLength };
  static constexpr wire::FieldDecl fields[] = {
      {"Option Code", "option_code", 0, 16, "which option", "pcapng §3.5"},
      {"Option Length", "option_length", 16, 16, "octets of the value, padding excluded", "pcapng §3.5"},
  };
  static constexpr wire::HeaderDecl decl{"pcapng option", "pcapng.option", 4, fields, "pcapng §3.5"};
};
using PcapngOption = wire::Header<PcapngOptionSpec>;

// Classic pcap file header (draft-ietf-opsawg-pcap §4).
struct PcapFileHeaderSpec {
  enum class Field : std::uint8_t { MagicNumber, MajorVersion, MinorVersion, Reserved1, Reserved2, SnapLen, LinkType };
  static constexpr wire::FieldDecl fields[] = {
      {"Magic Number", "magic", 0, 32, "0xA1B2C3D4: microsecond timestamps, writer's byte order",
       "pcap §4", wire::Display::kHex},
      {"Major Version", "major", 32, 16, "2", "pcap §4"},
      {"Minor Version", "minor", 48, 16, "4", "pcap §4"},
      {"Reserved1", "thiszone", 64, 32, "zero", "pcap §4", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"Reserved2", "sigfigs", 96, 32, "zero", "pcap §4", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"SnapLen", "snaplen", 128, 32, "most octets stored per packet", "pcap §4"},
      {"LinkType", "linktype", 160, 32, "LINKTYPE_* of every packet", "pcap §4"},
  };
  static constexpr wire::HeaderDecl decl{"pcap file header", "pcap.header", 24, fields, "pcap §4"};
};
using PcapFileHeader = wire::Header<PcapFileHeaderSpec>;

// Classic pcap packet record header (draft-ietf-opsawg-pcap §5).
struct PcapRecordHeaderSpec {
  enum class Field : std::uint8_t { TimestampSeconds, TimestampMicroseconds, CapturedPacketLength, OriginalPacketLength };
  static constexpr wire::FieldDecl fields[] = {
      {"Timestamp (Seconds)", "ts_sec", 0, 32, "seconds since 1970-01-01 UTC", "pcap §5"},
      {"Timestamp (Microseconds)", "ts_usec", 32, 32, "microseconds within the second", "pcap §5"},
      {"Captured Packet Length", "incl_len", 64, 32, "octets stored", "pcap §5"},
      {"Original Packet Length", "orig_len", 96, 32, "octets on the wire", "pcap §5"},
  };
  static constexpr wire::HeaderDecl decl{"pcap packet record", "pcap.record", 16, fields, "pcap §5"};
};
using PcapRecordHeader = wire::Header<PcapRecordHeaderSpec>;

// The Magic Number as the writer's byte order puts it (pcap §4): read
// big-endian, a little-endian file's shows byte-swapped.
inline constexpr std::uint32_t kPcapMagicMicroseconds = 0xA1B2C3D4;
inline constexpr std::uint32_t kPcapMagicNanoseconds = 0xA1B23C4D;
inline constexpr std::uint16_t kPcapMajorVersion = 2;
inline constexpr std::uint16_t kPcapMinorVersion = 4;
// The LinkType field's low 16 bits are the LINKTYPE_ value; the bits above
// say whether an FCS is present and its length (pcap §4).
inline constexpr std::uint32_t kPcapLinkTypeBits = 0xFFFF;

}  // namespace rdmaconf::capture
