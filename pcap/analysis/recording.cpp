#include "analysis/recording.hpp"

namespace rdmaconf::analysis {

namespace {
capture::TcpRecorder::Side tcp_side(Side s) {
  return s == Side::kInitiator ? capture::TcpRecorder::Side::kClient : capture::TcpRecorder::Side::kServer;
}
}  // namespace

ExchangeRecorder::ExchangeRecorder(const std::string& path, RecordingOptions options)
    : out_(path, std::ios::binary | std::ios::trunc) {
  writer_ = std::make_unique<capture::CaptureWriter>(out_, options.format);
  // Documentation addresses (RFC 5737) and locally administered MACs.
  capture::RecordedEndpoint client{{0x02, 0, 0, 0, 0, 0x01}, capture::ipv4(192, 0, 2, 1), options.initiator_port,
                                   capture::SeqNum{0x10000000}};
  capture::RecordedEndpoint server{{0x02, 0, 0, 0, 0, 0x02}, capture::ipv4(192, 0, 2, 2), options.responder_port,
                                   capture::SeqNum{0x20000000}};
  tcp_ = std::make_unique<capture::TcpRecorder>(*writer_, client, server,
                                                capture::Timestamp{1'700'000'000'000'000'000}, options.mss);
  capture::TcpOptions syn;
  syn.smc = options.smc_option;
  // No MSS option: the segments are the recorder's cut of what each side
  // wrote or the tester read, not how a sender segmented its stream, and
  // without the receiver's MSS the analyzer does not judge that (RFC 5044
  // §4.5, §5.1: reference/check/mpa_tcp.hpp).
  tcp_->open(syn, syn, false);
  opened_ = tcp_->now();
}

ExchangeRecorder::~ExchangeRecorder() { close(); }

void ExchangeRecorder::add(Side from, wire::Bytes octets, std::string_view comment, double at_ms) {
  std::lock_guard lock(mu_);
  if (closed_ || octets.empty()) return;
  if (at_ms >= 0) tcp_->advance_to(capture::Timestamp{opened_.ns + static_cast<std::int64_t>(at_ms * 1e6)});
  tcp_->send(tcp_side(from), octets, comment);
}

bool ExchangeRecorder::close(Side first) {
  std::lock_guard lock(mu_);
  if (!closed_) {
    closed_ = true;
    tcp_->close(tcp_side(first));
    out_.flush();
  }
  return out_.good();
}

bool ExchangeRecorder::abort(Side from) {
  std::lock_guard lock(mu_);
  if (!closed_) {
    closed_ = true;
    tcp_->reset(tcp_side(from));
    out_.flush();
  }
  return out_.good();
}

bool ExchangeRecorder::ok() const { return out_.good(); }

bool write_exchange(const std::string& path, std::span<const RecordedChunk> chunks, const RecordingOptions& options) {
  ExchangeRecorder rec(path, options);
  for (const RecordedChunk& c : chunks) rec.add(c.from, c.octets, c.comment, c.at_ms);
  return rec.close();
}

bool write_sctp_association(const std::string& path, std::span<const RecordedSctpPacket> packets,
                            capture::FileFormat format) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  capture::CaptureWriter writer(out, format, capture::LinkType::kRaw);
  // The TCP recordings' documentation addresses (RFC 5737), the initiator first.
  capture::SctpRecorder sctp(writer, {capture::ipv4(192, 0, 2, 1)}, {capture::ipv4(192, 0, 2, 2)});
  const capture::Timestamp opened = sctp.now();
  for (const RecordedSctpPacket& p : packets) {
    if (p.at_ms >= 0) sctp.advance_to(capture::Timestamp{opened.ns + static_cast<std::int64_t>(p.at_ms * 1e6)});
    sctp.send(p.from == Side::kInitiator, p.octets, p.comment);
  }
  out.flush();
  return out.good();
}

std::string case_capture_path(const std::string& dir, std::string_view case_id) {
  std::string name;
  for (char c : case_id) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '-';
    name += keep ? c : '_';
  }
  if (name.empty()) name = "case";
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  return path + name + ".pcapng";
}

}  // namespace rdmaconf::analysis
