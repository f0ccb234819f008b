// RPC-over-RDMA version 1 transport header decoding (rpcrdma.hpp).
#include "ulp/rpcrdma.hpp"

#include <span>
#include <string>
#include <string_view>

namespace rdmaconf::ulp::rpcrdma {

namespace {

using wire::ByteReader;
using wire::DecodeError;

constexpr std::string_view kOptionalData = "RFC 8166 §3.4.4.2";
constexpr std::string_view kCountedArray = "RFC 8166 §3.4.4.1";

// An XDR optional-data discriminator (RFC 4506 §4.19, as RFC 8166 §3.4.4.2
// uses it): a 32-bit boolean, 1 when an entry follows and 0 at the end.
wire::Result<bool> more(ByteReader& r, std::string_view list) {
  const std::size_t at = r.offset();
  const auto v = r.take_be(4);
  if (!v) return DecodeError{list, "ends before its optional-data discriminator", kOptionalData, at};
  if (*v > 1) return DecodeError{list, "optional-data discriminator is neither 0 nor 1", kOptionalData, at};
  return *v == 1;
}

Segment segment_at(wire::Bytes octets, std::size_t at) {
  using F = SegmentSpec::Field;
  return Segment{static_cast<std::uint32_t>(SegmentHeader::read(octets, F::Handle)),
                 static_cast<std::uint32_t>(SegmentHeader::read(octets, F::Length)),
                 SegmentHeader::read(octets, F::Offset), at};
}

// RFC 8166 §3.4.4: a write chunk is a counted array of segments. The count
// is checked against the octets that arrived before any segment is read.
wire::Result<WriteChunk> write_chunk(ByteReader& r, std::size_t& segments, const Limits& limits) {
  const std::size_t at = r.offset();
  const auto count = r.take_be(4);
  if (!count) return DecodeError{"Write chunk", "ends before its segment count", kCountedArray, at};
  if (*count > r.remaining() / SegmentSpec::decl.size_octets)
    return DecodeError{"Write chunk", "segment count exceeds what the header holds", kCountedArray, at};
  if (segments + *count > limits.max_segments)
    return DecodeError{"Write chunk", "more segments than this decoder accepts in one header", kCountedArray, at};
  WriteChunk chunk;
  chunk.segments.reserve(static_cast<std::size_t>(*count));
  for (std::uint64_t i = 0; i < *count; ++i) {
    const std::size_t seg_at = r.offset();
    const auto b = r.take(SegmentSpec::decl.size_octets);  // cannot fail: checked above
    chunk.segments.push_back(segment_at(*b, seg_at));
  }
  segments += static_cast<std::size_t>(*count);
  return chunk;
}

wire::Status chunk_lists(ByteReader& r, Message& m, const Limits& limits) {
  std::size_t segments = 0;
  // RFC 8166 §4.3.1: the Read list, a linked list of read segments.
  for (;;) {
    auto next = more(r, "Read list");
    if (!next) return next.error();
    if (!*next) break;
    const std::size_t at = r.offset();
    const auto b = r.take(ReadSegmentSpec::decl.size_octets);
    if (!b) return wire::truncated(ReadSegmentSpec::decl, at);
    if (++segments > limits.max_segments)
      return DecodeError{"Read list", "more segments than this decoder accepts in one header", kOptionalData, at};
    using F = ReadSegmentSpec::Field;
    m.read_list.push_back(ReadSegment{
        static_cast<std::uint32_t>(ReadSegmentHeader::read(*b, F::Position)),
        Segment{static_cast<std::uint32_t>(ReadSegmentHeader::read(*b, F::Handle)),
                static_cast<std::uint32_t>(ReadSegmentHeader::read(*b, F::Length)),
                ReadSegmentHeader::read(*b, F::Offset), at + 4}});
  }
  // RFC 8166 §4.3.2: the Write list, a linked list of write chunks.
  for (;;) {
    auto next = more(r, "Write list");
    if (!next) return next.error();
    if (!*next) break;
    auto chunk = write_chunk(r, segments, limits);
    if (!chunk) return chunk.error();
    m.write_list.push_back(std::move(*chunk));
  }
  // RFC 8166 §4.3.3: the Reply chunk, present or not.
  auto reply = more(r, "Reply chunk");
  if (!reply) return reply.error();
  if (*reply) {
    auto chunk = write_chunk(r, segments, limits);
    if (!chunk) return chunk.error();
    m.reply_chunk = std::move(*chunk);
  }
  return {};
}

}  // namespace

std::uint64_t WriteChunk::length() const {
  std::uint64_t n = 0;
  for (const Segment& s : segments) n += s.length;
  return n;
}

namespace {
// RFC 1813 §3.3 (NFS version 3 procedures 0-21).
constexpr std::string_view kNfs3[] = {"NULL",    "GETATTR", "SETATTR",  "LOOKUP",      "ACCESS", "READLINK",
                                      "READ",    "WRITE",   "CREATE",   "MKDIR",       "SYMLINK", "MKNOD",
                                      "REMOVE",  "RMDIR",   "RENAME",   "LINK",        "READDIR", "READDIRPLUS",
                                      "FSSTAT",  "FSINFO",  "PATHCONF", "COMMIT"};
// NFSACL version 3 (Linux's nfsacl program 100227: NULL, GETACL, SETACL).
constexpr std::string_view kNfsAcl3[] = {"NULL", "GETACL", "SETACL"};
// NFS version 4 (RFC 7530 §16, RFC 8881 §16): NULL and COMPOUND.
constexpr std::string_view kNfs4[] = {"NULL", "COMPOUND"};
}  // namespace

std::string rpc_procedure_name(const onc_rpc::Call& c) {
  const auto named = [&](std::string_view program, std::span<const std::string_view> procs) {
    return std::string(program) + "v" + std::to_string(c.vers) + " " +
           (c.proc < procs.size() ? std::string(procs[c.proc]) : "procedure " + std::to_string(c.proc));
  };
  if (c.prog == onc_rpc::kNfsProgram && c.vers == 3) return named("NFS", kNfs3);
  if (c.prog == onc_rpc::kNfsProgram && c.vers == 4) return named("NFS", kNfs4);
  if (c.prog == 100227 && c.vers == 3) return named("NFSACL", kNfsAcl3);
  return "program " + std::to_string(c.prog) + " v" + std::to_string(c.vers) + " procedure " + std::to_string(c.proc);
}

std::string_view proc_name(std::uint32_t proc) { return wire::value_name(names::kProc, proc); }

wire::Result<Message> decode(wire::Bytes send_payload, const Limits& limits) {
  ByteReader r(send_payload);
  auto fixed = FixedHeader::decode(r);
  if (!fixed) return fixed.error();
  using F = FixedSpec::Field;
  Message m;
  m.xid = static_cast<std::uint32_t>(fixed->get(F::XID));
  m.vers = static_cast<std::uint32_t>(fixed->get(F::Vers));
  m.credits = static_cast<std::uint32_t>(fixed->get(F::Credits));
  m.proc = static_cast<std::uint32_t>(fixed->get(F::Proc));
  if (m.vers != kVersion1)
    return wire::field_error(FixedHeader::field_decl(F::Vers),
                             "is not 1: what follows the fixed words is not version 1's layout", 0);
  switch (static_cast<Proc>(m.proc)) {
    case Proc::kMsg:
    case Proc::kNoMsg: {
      auto lists = chunk_lists(r, m, limits);
      if (!lists) return lists.error();
      break;
    }
    case Proc::kError: {
      const std::size_t at = r.offset();
      const auto err = r.take_be(4);
      if (!err) return DecodeError{"rdma_err", "ends before the error code", "RFC 8166 §4.5", at};
      m.err = static_cast<std::uint32_t>(*err);
      if (m.err == static_cast<std::uint32_t>(ErrCode::kVers)) {
        const std::size_t range_at = r.offset();
        const auto range = r.take(ErrVersSpec::decl.size_octets);
        if (!range) return wire::truncated(ErrVersSpec::decl, range_at);
        m.vers_low = static_cast<std::uint32_t>(wire::read_field(*range, ErrVersSpec::fields[0]));
        m.vers_high = static_cast<std::uint32_t>(wire::read_field(*range, ErrVersSpec::fields[1]));
      } else if (m.err != static_cast<std::uint32_t>(ErrCode::kChunk)) {
        return DecodeError{"rdma_err", "is neither ERR_VERS nor ERR_CHUNK", "RFC 8166 §4.5", at};
      }
      break;
    }
    case Proc::kMsgp:
    case Proc::kDone:
      return wire::field_error(FixedHeader::field_decl(F::Proc),
                               "names a procedure version 1 no longer uses (RDMA_MSGP, RDMA_DONE)", 0);
    default:
      return wire::field_error(FixedHeader::field_decl(F::Proc), "is no procedure of version 1", 0);
  }
  m.header_length = r.offset();
  if (m.is(Proc::kMsg)) {
    const wire::Bytes rest = send_payload.subspan(m.header_length);
    using C = onc_rpc::CallSpec::Field;
    if (rest.size() >= 4) m.rpc_xid = static_cast<std::uint32_t>(onc_rpc::CallHeader::read(rest.first(4), C::XID));
    if (rest.size() >= 8)
      m.rpc_msg_type = static_cast<std::uint32_t>(onc_rpc::CallHeader::read(rest.first(8), C::MsgType));
    m.rpc_call = onc_rpc::read_call(rest);
  }
  return m;
}

namespace {
void put_segment(const Segment& s, wire::ByteWriter& w) {
  SegmentHeader h;
  using F = SegmentSpec::Field;
  h.set(F::Handle, s.handle).set(F::Length, s.length).set(F::Offset, s.offset);
  h.encode(w);
}
// RFC 8166 §3.4.4 (xdr_write_chunk): a counted array of segments.
void put_write_chunk(const WriteChunk& c, wire::ByteWriter& w) {
  w.put_be(c.segments.size(), 4);
  for (const Segment& s : c.segments) put_segment(s, w);
}
}  // namespace

void encode(const Message& m, wire::ByteWriter& w) {
  FixedHeader fixed;
  using F = FixedSpec::Field;
  fixed.set(F::XID, m.xid).set(F::Vers, m.vers).set(F::Credits, m.credits).set(F::Proc, m.proc);
  fixed.encode(w);
  if (m.is(Proc::kError)) {
    // RFC 8166 §4.5: the error code, and for ERR_VERS the versions supported.
    w.put_be(m.err, 4);
    if (m.err == static_cast<std::uint32_t>(ErrCode::kVers)) {
      ErrVersHeader range;
      range.set(ErrVersSpec::Field::Low, m.vers_low).set(ErrVersSpec::Field::High, m.vers_high);
      range.encode(w);
    }
    return;
  }
  // RFC 8166 §4.3: each list entry is announced by an XDR "value follows"
  // word of 1, each list ended by 0 (the Reply chunk is one optional item).
  for (const ReadSegment& r : m.read_list) {
    w.put_be(1, 4);
    ReadSegmentHeader h;
    using R = ReadSegmentSpec::Field;
    h.set(R::Position, r.position).set(R::Handle, r.target.handle).set(R::Length, r.target.length);
    h.set(R::Offset, r.target.offset);
    h.encode(w);
  }
  w.put_be(0, 4);
  for (const WriteChunk& c : m.write_list) {
    w.put_be(1, 4);
    put_write_chunk(c, w);
  }
  w.put_be(0, 4);
  w.put_be(m.reply_chunk ? 1 : 0, 4);
  if (m.reply_chunk) put_write_chunk(*m.reply_chunk, w);
}

std::vector<std::uint8_t> encode(const Message& m) {
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  encode(m, w);
  return out;
}

std::optional<PrivateData> read_private_data(wire::Bytes ulp_private_data) {
  if (ulp_private_data.size() < PrivateDataSpec::decl.size_octets) return std::nullopt;
  using F = PrivateDataSpec::Field;
  if (PrivateDataHeader::read(ulp_private_data, F::Magic) != kPrivateDataMagic ||
      PrivateDataHeader::read(ulp_private_data, F::Version) != kPrivateDataVersion)
    return std::nullopt;
  const auto size = [&](F f) { return static_cast<std::uint32_t>(PrivateDataHeader::read(ulp_private_data, f) + 1) * 1024; };
  return PrivateData{PrivateDataHeader::read(ulp_private_data, F::RemoteInvalidation) != 0, size(F::MaxSend),
                     size(F::MaxReceive)};
}

}  // namespace rdmaconf::ulp::rpcrdma
