// SMB Direct message decoding and encoding (smbd.hpp).
#include "ulp/smbd.hpp"

namespace rdmaconf::ulp::smbd {

namespace {

using wire::DecodeError;

constexpr std::string_view kDataTransfer = "MS-SMBD §2.2.3";

// MS-SMBD §2.2.1 and §2.2.2: MinVersion and MaxVersion are §1.7 values,
// MaxVersion at least MinVersion; 1.0 is the only one, so a range without it
// names a layout this decoder does not know.
wire::Status version_range(const wire::FieldDecl& min_field, const wire::FieldDecl& max_field, std::uint16_t min,
                           std::uint16_t max) {
  if (max < min) return wire::field_error(max_field, "is below MinVersion", 0);
  if (min > kVersion1 || max < kVersion1)
    return wire::field_error(min_field, "with MaxVersion, offers no version this decoder knows (1.0, 0x0100)", 0);
  return {};
}

wire::Result<Message> negotiate_request(wire::Bytes p) {
  wire::ByteReader r(p);
  auto h = NegotiateRequestHeader::decode(r);
  if (!h) return h.error();
  using F = NegotiateRequestSpec::Field;
  Message m;
  m.kind = Kind::kNegotiateRequest;
  m.min_version = static_cast<std::uint16_t>(h->get(F::MinVersion));
  m.max_version = static_cast<std::uint16_t>(h->get(F::MaxVersion));
  m.reserved = static_cast<std::uint16_t>(h->get(F::Reserved));
  m.credits_requested = static_cast<std::uint16_t>(h->get(F::CreditsRequested));
  m.preferred_send_size = static_cast<std::uint32_t>(h->get(F::PreferredSendSize));
  m.max_receive_size = static_cast<std::uint32_t>(h->get(F::MaxReceiveSize));
  m.max_fragmented_size = static_cast<std::uint32_t>(h->get(F::MaxFragmentedSize));
  auto ok = version_range(NegotiateRequestHeader::field_decl(F::MinVersion),
                          NegotiateRequestHeader::field_decl(F::MaxVersion), m.min_version, m.max_version);
  if (!ok) return ok.error();
  return m;
}

wire::Result<Message> negotiate_response(wire::Bytes p) {
  wire::ByteReader r(p);
  auto h = NegotiateResponseHeader::decode(r);
  if (!h) return h.error();
  using F = NegotiateResponseSpec::Field;
  Message m;
  m.kind = Kind::kNegotiateResponse;
  m.min_version = static_cast<std::uint16_t>(h->get(F::MinVersion));
  m.max_version = static_cast<std::uint16_t>(h->get(F::MaxVersion));
  m.negotiated_version = static_cast<std::uint16_t>(h->get(F::NegotiatedVersion));
  m.reserved = static_cast<std::uint16_t>(h->get(F::Reserved));
  m.credits_requested = static_cast<std::uint16_t>(h->get(F::CreditsRequested));
  m.credits_granted = static_cast<std::uint16_t>(h->get(F::CreditsGranted));
  m.status = static_cast<std::uint32_t>(h->get(F::Status));
  m.max_read_write_size = static_cast<std::uint32_t>(h->get(F::MaxReadWriteSize));
  m.preferred_send_size = static_cast<std::uint32_t>(h->get(F::PreferredSendSize));
  m.max_receive_size = static_cast<std::uint32_t>(h->get(F::MaxReceiveSize));
  m.max_fragmented_size = static_cast<std::uint32_t>(h->get(F::MaxFragmentedSize));
  auto ok = version_range(NegotiateResponseHeader::field_decl(F::MinVersion),
                          NegotiateResponseHeader::field_decl(F::MaxVersion), m.min_version, m.max_version);
  if (!ok) return ok.error();
  // MS-SMBD §2.2.2: the chosen version comes from the request's range, so
  // for a 1.0 request it is 1.0 (the only layout the rest of the
  // connection's messages are known in).
  if (m.negotiated_version != kVersion1)
    return wire::field_error(NegotiateResponseHeader::field_decl(F::NegotiatedVersion),
                             "is not 1.0 (0x0100), the only version a request can offer", 0);
  return m;
}

wire::Result<Message> data_transfer(wire::Bytes p, bool whole) {
  wire::ByteReader r(p);
  auto h = DataTransferHeader::decode(r);
  if (!h) return h.error();
  using F = DataTransferSpec::Field;
  Message m;
  m.kind = Kind::kDataTransfer;
  m.credits_requested = static_cast<std::uint16_t>(h->get(F::CreditsRequested));
  m.credits_granted = static_cast<std::uint16_t>(h->get(F::CreditsGranted));
  m.flags = static_cast<std::uint16_t>(h->get(F::Flags));
  m.reserved = static_cast<std::uint16_t>(h->get(F::Reserved));
  m.remaining_data_length = static_cast<std::uint32_t>(h->get(F::RemainingDataLength));
  m.data_offset = static_cast<std::uint32_t>(h->get(F::DataOffset));
  m.data_length = static_cast<std::uint32_t>(h->get(F::DataLength));
  const wire::FieldDecl& offset = DataTransferHeader::field_decl(F::DataOffset);
  const wire::FieldDecl& length = DataTransferHeader::field_decl(F::DataLength);
  // MS-SMBD §2.2.3: without data, DataOffset is 0; with data, the data
  // starts after the fixed fields at an 8-octet aligned offset and ends
  // inside the Send.
  if (m.data_length == 0) {
    if (m.data_offset != 0) return wire::field_error(offset, "is not 0 although DataLength is 0 (no data)", 0);
    m.data_complete = true;
    return m;
  }
  if (m.data_offset % 8 != 0) return wire::field_error(offset, "is not 8-octet aligned", 0);
  if (m.data_offset < kDataTransferHeaderSize)
    return wire::field_error(offset, "points into the message's fixed fields (below 20)", 0);
  const std::uint64_t end = std::uint64_t{m.data_offset} + m.data_length;
  if (whole && end > p.size())
    return DecodeError{length.name, "data ends past the Send that carries it (DataOffset + DataLength)",
                       kDataTransfer, length.octet_offset()};
  // Only what was received is handed out, whatever the fields claim.
  const std::size_t from = m.data_offset < p.size() ? m.data_offset : p.size();
  const std::size_t to = end < p.size() ? static_cast<std::size_t>(end) : p.size();
  m.data = p.subspan(from, to - from);
  m.data_complete = end <= p.size();
  return m;
}

}  // namespace

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::kNegotiateRequest: return "Negotiate Request";
    case Kind::kNegotiateResponse: return "Negotiate Response";
    default: return "Data Transfer";
  }
}

wire::Result<Message> decode(wire::Bytes send_payload, Kind kind, bool whole) {
  switch (kind) {
    case Kind::kNegotiateRequest: return negotiate_request(send_payload);
    case Kind::kNegotiateResponse: return negotiate_response(send_payload);
    default: return data_transfer(send_payload, whole);
  }
}

wire::Result<std::vector<BufferDescriptor>> decode_buffer_descriptors(wire::Bytes channel_info) {
  if (channel_info.size() % kBufferDescriptorSize != 0)
    return DecodeError{BufferDescriptorSpec::decl.name,
                       "channel information is not a whole number of 16-octet descriptors", "MS-SMBD §2.2.3.1", 0};
  std::vector<BufferDescriptor> out;
  out.reserve(channel_info.size() / kBufferDescriptorSize);  // bounded by octets received
  using F = BufferDescriptorSpec::Field;
  for (std::size_t at = 0; at < channel_info.size(); at += kBufferDescriptorSize) {
    const wire::Bytes d = channel_info.subspan(at, kBufferDescriptorSize);
    out.push_back(BufferDescriptor{BufferDescriptorHeader::read(d, F::Offset),
                                   static_cast<std::uint32_t>(BufferDescriptorHeader::read(d, F::Token)),
                                   static_cast<std::uint32_t>(BufferDescriptorHeader::read(d, F::Length))});
  }
  return out;
}

void encode(const Message& m, wire::ByteWriter& w) {
  switch (m.kind) {
    case Kind::kNegotiateRequest: {
      using F = NegotiateRequestSpec::Field;
      NegotiateRequestHeader h;
      h.set(F::MinVersion, m.min_version).set(F::MaxVersion, m.max_version).set(F::Reserved, m.reserved);
      h.set(F::CreditsRequested, m.credits_requested).set(F::PreferredSendSize, m.preferred_send_size);
      h.set(F::MaxReceiveSize, m.max_receive_size).set(F::MaxFragmentedSize, m.max_fragmented_size);
      h.encode(w);
      return;
    }
    case Kind::kNegotiateResponse: {
      using F = NegotiateResponseSpec::Field;
      NegotiateResponseHeader h;
      h.set(F::MinVersion, m.min_version).set(F::MaxVersion, m.max_version);
      h.set(F::NegotiatedVersion, m.negotiated_version).set(F::Reserved, m.reserved);
      h.set(F::CreditsRequested, m.credits_requested).set(F::CreditsGranted, m.credits_granted);
      h.set(F::Status, m.status).set(F::MaxReadWriteSize, m.max_read_write_size);
      h.set(F::PreferredSendSize, m.preferred_send_size).set(F::MaxReceiveSize, m.max_receive_size);
      h.set(F::MaxFragmentedSize, m.max_fragmented_size);
      h.encode(w);
      return;
    }
    case Kind::kDataTransfer:
      break;
  }
  using F = DataTransferSpec::Field;
  DataTransferHeader h;
  h.set(F::CreditsRequested, m.credits_requested).set(F::CreditsGranted, m.credits_granted);
  h.set(F::Flags, m.flags).set(F::Reserved, m.reserved).set(F::RemainingDataLength, m.remaining_data_length);
  h.set(F::DataOffset, m.data_offset).set(F::DataLength, m.data_length);
  h.encode(w);
  if (m.data.empty()) return;
  // MS-SMBD §2.2.3: Padding up to DataOffset (zero octets), then the Buffer.
  if (m.data_offset > kDataTransferHeaderSize) w.put_zeros(m.data_offset - kDataTransferHeaderSize);
  w.put(m.data);
}

std::vector<std::uint8_t> encode(const Message& m) {
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  encode(m, w);
  return out;
}

void encode(const BufferDescriptor& d, wire::ByteWriter& w) {
  using F = BufferDescriptorSpec::Field;
  BufferDescriptorHeader h;
  h.set(F::Offset, d.offset).set(F::Token, d.token).set(F::Length, d.length);
  h.encode(w);
}

}  // namespace rdmaconf::ulp::smbd
