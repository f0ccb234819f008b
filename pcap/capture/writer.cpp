#include "capture/writer.hpp"

#include "capture/file_format.hpp"

namespace rdmaconf::capture {
namespace {

using wire::ByteWriter;
using wire::Bytes;

void pad_to_32_bits(ByteWriter& w, std::size_t length) { w.put_zeros((4 - length % 4) % 4); }

// pcapng §3.5: code, length, value, padding to 32 bits.
void put_option(ByteWriter& w, std::uint16_t code, Bytes value) {
  PcapngOption opt;
  opt.set(PcapngOptionSpec::Field::OptionCode, code);
  opt.set(PcapngOptionSpec::Field::OptionLength, value.size());
  opt.encode(w);
  w.put(value);
  pad_to_32_bits(w, value.size());
}
void put_end_of_options(ByteWriter& w) { PcapngOption().encode(w); }

Bytes text(std::string_view s) { return Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }

// pcapng §3.1: the total length is known only at the end; it is back-filled
// in the header and repeated after the body.
class Block {
 public:
  Block(ByteWriter& w, std::uint32_t type) : w_(w), start_(w.size()) {
    PcapngBlockHeader h;
    h.set(PcapngBlockHeaderSpec::Field::BlockType, type);
    h.encode(w);
  }
  // pcapng §3.1: the Block Total Length, in the header and again at the end.
  ~Block() {
    const wire::FieldDecl& length = PcapngBlockHeader::field_decl(PcapngBlockHeaderSpec::Field::BlockTotalLength);
    const std::size_t octets = length.bit_width / 8;
    const std::size_t total = w_.size() - start_ + octets;
    w_.back_fill_be(start_ + length.octet_offset(), total, octets);
    w_.put_be(total, octets);
  }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

 private:
  ByteWriter& w_;
  std::size_t start_;
};

}  // namespace

CaptureWriter::CaptureWriter(std::ostream& out, FileFormat format, LinkType link, std::uint32_t snaplen)
    : out_(out), format_(format) {
  put(format == FileFormat::kPcapng ? pcapng_header(link, snaplen) : pcap_header(link, snaplen));
}

void CaptureWriter::write(Timestamp time, Bytes frame, std::string_view comment, std::uint32_t original_length) {
  put(format_ == FileFormat::kPcapng ? pcapng_packet(time, frame, comment, original_length)
                                     : pcap_packet(time, frame, original_length));
  ++frames_;
}

void CaptureWriter::put(const std::vector<std::uint8_t>& b) {
  out_.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::vector<std::uint8_t> CaptureWriter::pcapng_header(LinkType link, std::uint32_t snaplen) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  {
    Block shb(w, pcapng::kSectionHeaderBlock);
    PcapngSectionHeader h;
    h.set(PcapngSectionHeaderSpec::Field::ByteOrderMagic, pcapng::kByteOrderMagic);
    h.set(PcapngSectionHeaderSpec::Field::MajorVersion, 1);
    h.set(PcapngSectionHeaderSpec::Field::MinorVersion, 0);
    h.set(PcapngSectionHeaderSpec::Field::SectionLength, ~std::uint64_t{0});  // not given: we stream
    h.encode(w);
    put_option(w, pcapng::kShbUserAppl, text("rdmaconf"));
    put_end_of_options(w);
  }
  {
    Block idb(w, pcapng::kInterfaceDescriptionBlock);
    PcapngInterfaceDescription h;
    h.set(PcapngInterfaceDescriptionSpec::Field::LinkType, static_cast<std::uint32_t>(link));
    h.set(PcapngInterfaceDescriptionSpec::Field::SnapLen, snaplen);
    h.encode(w);
    // pcapng §4.2: if_tsresol 9 = timestamps count nanoseconds.
    const std::uint8_t nanoseconds = 9;
    put_option(w, pcapng::kIfTsresol, Bytes(&nanoseconds, 1));
    put_end_of_options(w);
  }
  return out;
}

std::vector<std::uint8_t> CaptureWriter::pcapng_packet(Timestamp time, Bytes frame, std::string_view comment,
                                                       std::uint32_t original_length) {
  std::vector<std::uint8_t> out;
  out.reserve(frame.size() + comment.size() + 48);
  ByteWriter w(out);
  {
    Block epb(w, pcapng::kEnhancedPacketBlock);
    using F = PcapngEnhancedPacketSpec::Field;
    const auto ts = static_cast<std::uint64_t>(time.ns);
    PcapngEnhancedPacket h;
    h.set(F::InterfaceId, 0);
    // The 64-bit timestamp split over two fields: set() keeps a field's own bits.
    h.set(F::TimestampUpper, ts >> PcapngEnhancedPacket::field_decl(F::TimestampLower).bit_width);
    h.set(F::TimestampLower, ts);
    h.set(F::CapturedPacketLength, frame.size());
    h.set(F::OriginalPacketLength, original_length != 0 ? original_length : frame.size());
    h.encode(w);
    w.put(frame);
    pad_to_32_bits(w, frame.size());
    if (!comment.empty()) {
      // An option value's length is 16 bits; a longer comment is cut there.
      put_option(w, pcapng::kOptComment, text(comment.substr(0, 0xfffc)));
      put_end_of_options(w);
    }
  }
  return out;
}

std::vector<std::uint8_t> CaptureWriter::pcap_header(LinkType link, std::uint32_t snaplen) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  PcapFileHeader h;
  h.set(PcapFileHeaderSpec::Field::MagicNumber, kPcapMagicMicroseconds);
  h.set(PcapFileHeaderSpec::Field::MajorVersion, kPcapMajorVersion);
  h.set(PcapFileHeaderSpec::Field::MinorVersion, kPcapMinorVersion);
  h.set(PcapFileHeaderSpec::Field::SnapLen, snaplen);
  h.set(PcapFileHeaderSpec::Field::LinkType, static_cast<std::uint32_t>(link));
  h.encode(w);
  return out;
}

std::vector<std::uint8_t> CaptureWriter::pcap_packet(Timestamp time, Bytes frame, std::uint32_t original_length) {
  std::vector<std::uint8_t> out;
  out.reserve(frame.size() + 16);
  ByteWriter w(out);
  PcapRecordHeader h;
  h.set(PcapRecordHeaderSpec::Field::TimestampSeconds, static_cast<std::uint64_t>(time.ns / 1'000'000'000));
  h.set(PcapRecordHeaderSpec::Field::TimestampMicroseconds,
        static_cast<std::uint64_t>(time.ns % 1'000'000'000 / 1000));
  h.set(PcapRecordHeaderSpec::Field::CapturedPacketLength, frame.size());
  h.set(PcapRecordHeaderSpec::Field::OriginalPacketLength, original_length != 0 ? original_length : frame.size());
  h.encode(w);
  w.put(frame);
  return out;
}

}  // namespace rdmaconf::capture
