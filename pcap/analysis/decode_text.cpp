#include "analysis/decode_text.hpp"
#include "analysis/observer_sctp.hpp"

#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "analysis/hex.hpp"
#include "analysis/observer_roce.hpp"
#include "clc/headers.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::analysis {

namespace {

std::string_view crc_name(mpa::CrcStatus s) {
  switch (s) {
    case mpa::CrcStatus::kMatch: return "ok";
    case mpa::CrcStatus::kMismatch: return "bad";
    default: return "off";
  }
}

// (name, value) pairs of the message's fields, for both output forms: a
// number is a JSON number, anything else a JSON string.
struct Fields {
  std::vector<std::pair<std::string, std::string>> items;
  std::vector<std::optional<std::uint64_t>> numbers;  // beside items: the value when it is a number
  void num(std::string k, std::uint64_t v) {
    items.emplace_back(std::move(k), std::to_string(v));
    numbers.push_back(v);
  }
  void text(std::string k, std::string v) {
    items.emplace_back(std::move(k), std::move(v));
    numbers.push_back(std::nullopt);
  }
};

// Every field of a declared block by its filter name; reserved fields only
// when they are not zero.
void block_fields(Fields& f, const wire::HeaderDecl& decl, wire::Bytes block) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (const wire::FieldDecl& d : decl.fields) {
    if (d.is_octet_string()) {
      wire::Bytes o = block.subspan(d.octet_offset(), d.bit_width / 8);
      bool zero = true;
      std::string h;
      for (std::uint8_t b : o) {
        zero = zero && b == 0;
        h += kDigits[b >> 4];
        h += kDigits[b & 0xf];
      }
      if (d.rule == wire::Rule::kAny || !zero) f.text(std::string(d.abbrev), h);
      continue;
    }
    const std::uint64_t v = wire::read_field(block, d);
    if (d.rule != wire::Rule::kAny && v == 0) continue;
    if (d.display == wire::Display::kHex) f.text(std::string(d.abbrev), hex(v));
    else f.num(std::string(d.abbrev), v);
  }
}

void roce_fields(Fields& f, const RoceInfo& r) {
  if (!r.packet) {
    f.text("error", r.error->to_string());
    return;
  }
  const smcr::RocePacket& p = *r.packet;
  f.text("opcode", hex(p.opcode()));
  f.text("dest_qp", hex(p.dest_qp()));
  f.num("psn", p.psn());
  if (r.retransmission) f.num("retransmission", 1);
  if (p.reth) block_fields(f, smcr::RethSpec::decl, p.reth->bytes());
  if (p.aeth) block_fields(f, smcr::AethSpec::decl, p.aeth->bytes());
  f.num("payload", p.payload.size());
  if (r.error) f.text("error", r.error->to_string());
  if (!r.smcr) return;
  if (const auto* c = std::get_if<smcr::CdcMessage>(r.smcr)) {
    block_fields(f, smcr::CdcSpec::decl, c->header.bytes());
    return;
  }
  const smcr::LlcMessage& l = std::get<smcr::LlcMessage>(*r.smcr);
  f.text("llc.type", hex(l.type()));
  f.num("llc.version", l.version);
  f.num("llc.length", l.length);
  f.text("llc.flags", hex(l.flags));
  for (const wire::FieldDecl& d : l.info->flags)
    if (d.rule == wire::Rule::kAny) f.num(std::string(d.abbrev), l.flag(d));
  block_fields(f, *l.info->body, l.body);
  if (l.add_link_ext) block_fields(f, smcr::AddLinkV2ExtSpec::decl, l.add_link_ext->bytes());
  if (l.entry_count > 0) f.num("entries", l.entry_count);
}

Fields fields_of(const Message& m) {
  Fields f;
  if (m.roce) {
    roce_fields(f, *m.roce);
    return f;
  }
  if (m.req_rep) {
    const mpa::ReqRepFrame& r = *m.req_rep;
    f.num("rev", r.revision);
    f.num("m", r.markers);
    f.num("c", r.crc);
    f.num("r", r.reject);
    f.num("pd_length", r.private_data.size());
    if (r.enhanced_data) {
      f.num("ird", r.enhanced_data->ird);
      f.num("ord", r.enhanced_data->ord);
      f.num("p2p", r.enhanced_data->peer_to_peer);
    }
  } else if (m.fpdu || m.kind == MessageKind::kDdpSegment || m.kind == MessageKind::kSctpControl) {
    if (m.fpdu) {
      const mpa::Fpdu& p = *m.fpdu;
      f.num("ulpdu_length", p.ulpdu_length);
      f.text("crc", std::string(crc_name(p.crc_status)));
      f.num("markers", p.markers.size());
    }
    // The SCTP chunk a DDP segment or control message came in (RFC 5043 §5.2).
    if (m.sctp) {
      const SctpInfo& c = *m.sctp;
      f.num("sctp_stream", c.stream);
      f.num("ppid", c.ppid);
      f.num("tsn", c.tsn);
      f.num("u", c.unordered);
      if (c.fragments > 1) f.num("fragments", c.fragments);
      if (c.ddp_ssn) f.num("ddp_ssn", *c.ddp_ssn);
      if (c.function) f.num("pd_length", c.private_data.size());
    }
    if (m.segment && m.segment->has_header) {
      const SegmentInfo& s = *m.segment;
      f.num("t", s.ddp.tagged);
      f.num("l", s.ddp.last);
      if (s.ddp.tagged) {
        f.text("stag", hex(s.stag));
        f.text("to", hex(s.to));
      } else {
        f.num("qn", s.qn);
        f.num("msn", s.msn);
        f.num("mo", s.mo);
      }
      f.num("payload", s.payload_length);
      if (s.read_request) {
        using RF = rdmap::ReadRequestSpec::Field;
        f.text("sink_stag", hex(s.read_request->get(RF::SinkSTag)));
        f.num("read_size", s.read_request->get(RF::ReadSize));
        f.text("source_stag", hex(s.read_request->get(RF::SourceSTag)));
      }
      if (s.terminate) {
        // By name, as RFC 5040 §4.8, RFC 5041 §7.2 and RFC 5044 §8 call them.
        const rdmap::TerminateMessage& t = *s.terminate;
        const ddp::ErrorRow* row = rdmap::find_error(t.code);
        f.num("layer", static_cast<std::uint8_t>(t.code.layer));
        f.text("layer_name", std::string(rdmap::layer_name(t.code.layer)));
        f.num("etype", t.code.etype);
        f.text("etype_name", row ? std::string(row->etype_name) : "unknown");
        f.num("error_code", t.code.code);
        f.text("error_name", row && !row->any_code ? std::string(row->name) : row ? "any" : "unknown");
        std::string hdrct;
        for (auto [set, n] : {std::pair{t.m, "M"}, std::pair{t.d, "D"}, std::pair{t.r, "R"}})
          if (set) hdrct += n;
        f.text("hdrct", hdrct.empty() ? "none" : hdrct);
        if (t.has_segment_length()) f.num("ddp_segment_length", t.ddp_segment_length);
      }
      if (s.ulp) {
        f.text("ulp", std::string(name(s.ulp->ulp)));
        f.text("ulp_message", s.ulp->decoded ? s.ulp->summary : "not decoded: " + s.ulp->error);
      }
      if (s.ulp_tie) f.text("ulp_tie", describe(*s.ulp_tie));
    }
  } else if (m.clc) {
    std::visit([&](const auto& msg) { f.num("version", msg.version()); }, *m.clc);
  }
  return f;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> describe_fields(const Message& m) { return fields_of(m).items; }

std::string message_type_name(const Message& m) {
  switch (m.kind) {
    case MessageKind::kMpaRequest: return "MPA Request";
    case MessageKind::kMpaReply: return m.req_rep && m.req_rep->reject ? "MPA Reply (reject)" : "MPA Reply";
    case MessageKind::kClc: {
      const auto type = static_cast<std::uint64_t>(clc::message_type(*m.clc));
      const std::string_view name = wire::value_name(clc::kMessageTypeNames, type);
      return name.empty() ? std::string("CLC") : "CLC " + std::string(name);
    }
    case MessageKind::kRoce:
      if (m.roce && m.roce->smcr) return smcr::message_name(*m.roce->smcr);
      if (m.roce && m.roce->packet) return smcr::opcode_name(m.roce->packet->opcode());
      return "RoCEv2 (undecodable)";
    case MessageKind::kSctpControl:
      if (m.sctp && m.sctp->function) return "DDP Stream Session " + std::string(sctp::name(*m.sctp->function));
      return "DDP Stream Session Control";
    case MessageKind::kDdpSegment:
    case MessageKind::kFpdu:
      if (!m.segment || !m.segment->has_header) return m.fpdu ? "FPDU (short ULPDU)" : "DDP segment (short)";
      if (const rdmap::OpcodeInfo* i = rdmap::find_opcode(m.segment->rdmap.opcode)) return std::string(i->name);
      return "reserved opcode " + std::to_string(m.segment->rdmap.opcode);
  }
  return "?";
}

std::string describe_line(const ConnectionInfo& c, const Message& m) {
  std::string s = "frame " + std::to_string(m.frame) + "  " + c.stream(m.side) + "  " + message_type_name(m) + " (" +
                  std::to_string(m.octets) + " octets)";
  const Fields f = fields_of(m);
  for (const auto& [k, v] : f.items) s += " " + k + "=" + (v.find(' ') == std::string::npos ? v : "\"" + v + "\"");
  return s;
}

std::string describe_json(const ConnectionInfo& c, const Message& m) {
  using Json = nlohmann::ordered_json;
  Json j{{"frame", m.frame},
         {"first_frame", m.first_frame},
         {"connection", c.id},
         {"stream", c.stream(m.side)},
         {"side", name(m.side)},
         {"unit", name(m.kind)},
         {"type", message_type_name(m)},
         {"stream_offset", m.stream_offset},
         {"octets", m.octets}};
  const Fields f = fields_of(m);
  for (std::size_t i = 0; i < f.items.size(); ++i) {
    if (f.numbers[i]) j[f.items[i].first] = *f.numbers[i];
    else j[f.items[i].first] = f.items[i].second;
  }
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rdmaconf::analysis
