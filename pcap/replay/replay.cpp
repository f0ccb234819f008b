#include "replay/replay.hpp"

#include <array>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <thread>

#include "analysis/analyzer.hpp"
#include "analysis/decode_text.hpp"
#include "capture/source.hpp"
#include "replay/sink_map.hpp"
#include "endpoint/asio.hpp"

namespace rdmaconf::replay {

namespace asio = boost::asio;
using asio::ip::tcp;
using analysis::Message;

namespace {

struct MessageRecord {
  Side side = Side::kInitiator;
  std::uint64_t offset = 0;
  std::size_t octets = 0;
  std::string type;
  std::vector<std::pair<std::string, std::string>> fields;
  std::optional<TaggedFpdu> tagged;        // a tagged FPDU: what rewriting it needs
  std::optional<ReadSink> read_sink;       // an RDMA Read Request: its Data Sink
};

MessageRecord record_of(const Message& m) {
  MessageRecord r{m.side, m.stream_offset, m.octets, analysis::message_type_name(m), analysis::describe_fields(m),
                  std::nullopt, std::nullopt};
  if (m.fpdu && m.segment && m.segment->has_header) {
    const analysis::SegmentInfo& s = *m.segment;
    if (s.ddp.tagged)
      r.tagged = TaggedFpdu{s.stag, s.to, m.fpdu->ulpdu_length, !m.fpdu->markers.empty(),
                            m.fpdu->crc_status == mpa::CrcStatus::kMatch};
    if (s.read_request) {
      using RF = rdmap::ReadRequestSpec::Field;
      r.read_sink = ReadSink{static_cast<std::uint32_t>(s.read_request->get(RF::SinkSTag)),
                             s.read_request->get(RF::SinkTO)};
    }
  }
  return r;
}

// The recorded connection: its messages in capture order and both streams.
struct Recorded {
  std::vector<MessageRecord> messages;
  std::vector<std::uint8_t> stream[2];
};

constexpr std::size_t kMaxRecordedOctets = std::size_t{256} << 20;

class Loader : public analysis::AnalysisListener {
 public:
  explicit Loader(std::uint64_t want) : want_(want) {}
  void on_message(const analysis::ConnectionInfo& c, const Message& m) override {
    if (chosen_ == 0 && (want_ == 0 || want_ == c.id)) {
      chosen_ = c.id;
      keys_[0] = c.stream(Side::kInitiator);
      keys_[1] = c.stream(Side::kResponder);
    }
    if (c.id != chosen_) return;
    out.messages.push_back(record_of(m));
  }
  std::uint64_t chosen() const { return chosen_; }
  const std::string& key(int side) const { return keys_[side]; }
  Recorded out;

 private:
  std::uint64_t want_;
  std::uint64_t chosen_ = 0;
  std::string keys_[2];
};

// Collects every stream's octets by stream key (bounded), beside the analysis.
class StreamCollector : public analysis::Analyzer {
 public:
  using Analyzer::Analyzer;
  void on_data(capture::Stream& s, const capture::StreamData& d) override {
    Analyzer::on_data(s, d);
    if (total_ + d.bytes.size() > kMaxRecordedOctets) {
      overflow = true;
      return;
    }
    total_ += d.bytes.size();
    auto& v = streams[s.key().to_string()];
    v.resize(d.offset);  // gaps stay zero
    v.insert(v.end(), d.bytes.begin(), d.bytes.end());
  }
  std::map<std::string, std::vector<std::uint8_t>> streams;
  bool overflow = false;

 private:
  std::size_t total_ = 0;
};

bool load(const ReplayOptions& o, Recorded& rec, std::string& error) {
  auto source = capture::PacketSource::open_file(o.capture, "", error);
  if (!source) return false;
  Loader loader(o.connection);
  analysis::AnalysisOptions options;
  StreamCollector collector(options, &loader);
  capture::Reassembler reassembler(collector, options.limits);
  capture::run_capture(*source, reassembler, collector);
  if (collector.overflow) {
    error = "the capture holds more than 256 MiB of TCP payload";
    return false;
  }
  if (loader.chosen() == 0) {
    error = "no MPA or CLC connection in the capture";
    return false;
  }
  rec = std::move(loader.out);
  for (int side = 0; side < 2; ++side) rec.stream[side] = std::move(collector.streams[loader.key(side)]);
  return true;
}

// Collects what the live peer sends, decoded.
struct LiveSink : analysis::ObserverSink {
  explicit LiveSink(Side peer) : peer(peer) {}
  void on_message(const Message& m) override {
    if (m.side == peer) messages.push_back(record_of(m));
  }
  void on_violation(const analysis::Violation& v) override {
    if (v.side == peer) violations.push_back(std::string(v.rule->id) + ": " + v.text);
  }
  Side peer;
  std::vector<MessageRecord> messages;
  std::vector<std::string> violations;
};

std::string fields_text(const MessageRecord& m) {
  std::string s = m.type;
  for (const auto& [k, v] : m.fields) s += " " + k + "=" + v;
  return s;
}

// The recording replayed as side `mine` against a live peer: our recorded
// octets sent in the recorded order (tagged FPDUs rewritten to the live
// peer's Data Sinks, sink_map.hpp), each message the peer recorded awaited
// live and compared field by field.
class Replay {
 public:
  Replay(const ReplayOptions& o, const Recorded& rec, ReplayResult& result)
      : o_(o), mine_(o.side), peer_(analysis::other(o.side)), result_(result), sink_(peer_), live_(sink_),
        ours_(rec.stream[static_cast<int>(o.side)]) {}

  // Connects as the initiator, or accepts one connection (30 s) as the
  // responder; false with the error in the result.
  bool connect() {
    boost::system::error_code ec;
    const tcp::endpoint target(asio::ip::make_address(o_.host, ec), o_.port);
    if (ec) {
      result_.error = "bad target address " + o_.host;
      return false;
    }
    if (mine_ == Side::kInitiator) {
      socket_.connect(target, ec);
    } else {
      tcp::acceptor acceptor(io_, target);
      bool done = false;
      acceptor.async_accept(socket_, [&](const boost::system::error_code& e) {
        ec = e;
        done = true;
      });
      io_.run_for(std::chrono::seconds(30));
      if (!done) ec = asio::error::timed_out;
      io_.restart();
    }
    if (ec) {
      result_.error = "cannot reach " + o_.host + ":" + std::to_string(o_.port) + ": " + ec.message();
      return false;
    }
    socket_.set_option(tcp::no_delay(true));
    return true;
  }

  // One of our messages: paced after a live answer, a tagged FPDU rewritten
  // to the live Data Sink, then sent up to its end. False when sending failed.
  bool send_mine(const MessageRecord& m) {
    if (answered_ && o_.pace.count() > 0) std::this_thread::sleep_for(o_.pace);
    answered_ = false;
    if (m.tagged && m.offset + m.octets <= ours_.size() && m.offset >= sent_) {
      const RewriteResult rw = sinks_.rewrite(*m.tagged, std::span<std::uint8_t>(ours_).subspan(m.offset, m.octets));
      if (rw == RewriteResult::kNotRewritable)
        result_.differences.push_back({peer_index_, "stag", "a tagged FPDU to a live Data Sink",
                                       "cannot be rewritten (Markers inside the FPDU)"});
    }
    const std::size_t end = std::min<std::size_t>(ours_.size(), m.offset + m.octets);
    if (end > sent_) {
      boost::system::error_code ec;
      send(wire::Bytes(ours_).subspan(sent_, end - sent_), ec);
      sent_ = end;
      if (ec) return false;
    }
    ++result_.sent_messages;
    return true;
  }

  // The peer's next recorded message: the live one awaited (answer_timeout)
  // and compared with it.
  void await_peer(const MessageRecord& m) {
    const auto deadline = std::chrono::steady_clock::now() + o_.answer_timeout;
    while (sink_.messages.size() <= peer_index_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0 || !read_some(left)) break;
    }
    if (sink_.messages.size() <= peer_index_) {
      result_.differences.push_back({peer_index_, "message", fields_text(m), "(nothing within the timeout)"});
      ++peer_index_;
      return;
    }
    const MessageRecord& got = sink_.messages[peer_index_];
    answered_ = true;
    if (m.read_sink && got.read_sink) sinks_.learn(*m.read_sink, *got.read_sink);
    result_.matched_messages += compare(m, got);
    ++peer_index_;
  }

  // The rest of our stream sent, our side closed, and what the live peer
  // sends beyond the recording counted as differences too.
  void finish() {
    boost::system::error_code ec;
    if (sent_ < ours_.size()) send(wire::Bytes(ours_).subspan(sent_), ec);
    socket_.shutdown(tcp::socket::shutdown_send, ec);
    while (read_some(std::chrono::milliseconds(300))) {
    }
    for (std::size_t i = peer_index_; i < sink_.messages.size(); ++i)
      result_.differences.push_back({i, "message", "(not in the recording)", fields_text(sink_.messages[i])});
    result_.live_violations = sink_.violations;
  }

 private:
  void send(wire::Bytes out, boost::system::error_code& ec) {
    asio::write(socket_, asio::buffer(out.data(), out.size()), ec);
    live_.on_data(mine_, frame_++, out);
  }

  // Reads once, waiting at most `t`; false on timeout or close.
  bool read_some(std::chrono::milliseconds t) {
    if (peer_closed_) return false;
    bool done = false;
    std::size_t n = 0;
    boost::system::error_code rec_ec;
    socket_.async_read_some(asio::buffer(buf_), [&](const boost::system::error_code& e, std::size_t k) {
      rec_ec = e;
      n = k;
      done = true;
    });
    io_.restart();
    io_.run_for(t);
    if (!done) {
      socket_.cancel();
      io_.restart();
      io_.run();
      return false;
    }
    if (rec_ec) {
      peer_closed_ = true;
      return false;
    }
    live_.on_data(peer_, frame_++, wire::Bytes(buf_).first(n));
    return true;
  }

  // The recorded message against the live one: its type, then each recorded
  // field not ignored. True when they agree.
  bool compare(const MessageRecord& m, const MessageRecord& got) {
    if (got.type != m.type) {
      result_.differences.push_back({peer_index_, "type", m.type, got.type});
      return false;
    }
    bool same = true;
    for (const auto& field : m.fields) {
      const std::string& k = field.first;  // (a structured binding: clang 14 cannot capture it)
      const std::string& v = field.second;
      if (o_.ignore_fields.count(k)) continue;
      auto it = std::find_if(got.fields.begin(), got.fields.end(), [&](const auto& f) { return f.first == k; });
      const std::string live_value = it == got.fields.end() ? "(absent)" : it->second;
      if (live_value != v) {
        result_.differences.push_back({peer_index_, k, v, live_value});
        same = false;
      }
    }
    return same;
  }

  const ReplayOptions& o_;
  const Side mine_, peer_;
  ReplayResult& result_;
  asio::io_context io_;
  tcp::socket socket_{io_};
  LiveSink sink_;
  analysis::ConnectionObserver live_;
  analysis::FrameNo frame_ = 1;
  std::array<std::uint8_t, 65536> buf_{};
  bool peer_closed_ = false;
  // Our recorded octets, patched where the live peer chose other values than the recorded one did.
  std::vector<std::uint8_t> ours_;
  std::size_t sent_ = 0;  // octets of ours_ sent
  std::size_t peer_index_ = 0;
  SinkMap sinks_;
  bool answered_ = false;  // a live answer came since we last sent
};

}  // namespace

ReplayResult replay(const ReplayOptions& o) {
  ReplayResult result;
  Recorded rec;
  if (!load(o, rec, result.error)) return result;
  const Side peer = analysis::other(o.side);
  for (const MessageRecord& m : rec.messages) result.expected_messages += m.side == peer;
  Replay r(o, rec, result);
  if (!r.connect()) return result;
  result.setup_ok = true;
  for (const MessageRecord& m : rec.messages) {
    if (m.side != o.side) r.await_peer(m);
    else if (!r.send_mine(m)) break;
  }
  r.finish();
  return result;
}

// ------------------------------------------------------------ relay

struct RecordingRelay::Impl {
  Impl(const std::string& host, std::uint16_t port, const std::string& path, analysis::RecordingOptions options)
      : target(asio::ip::make_address(host), port), recorder(path, options) {
    acceptor.async_accept(client, [this](const boost::system::error_code& e) {
      if (e) return;
      boost::system::error_code ec;
      server.connect(target, ec);
      if (ec) return;
      client.set_option(tcp::no_delay(true));
      server.set_option(tcp::no_delay(true));
      pump(client, server, Side::kInitiator, 0);
      pump(server, client, Side::kResponder, 1);
    });
    thread = std::thread([this] { io.run(); });
  }
  // Reads from `from`, records, writes to `to`, repeats; EOF half-closes.
  void pump(tcp::socket& from, tcp::socket& to, Side side, int i) {
    from.async_read_some(asio::buffer(bufs[i]), [this, &from, &to, side, i](const boost::system::error_code& e,
                                                                             std::size_t n) {
      if (e) {
        boost::system::error_code ignored;
        to.shutdown(tcp::socket::shutdown_send, ignored);
        return;
      }
      recorder.add(side, wire::Bytes(bufs[i]).first(n));
      asio::async_write(to, asio::buffer(bufs[i].data(), n),
                        [this, &from, &to, side, i](const boost::system::error_code& we, std::size_t) {
                          if (!we) pump(from, to, side, i);
                        });
    });
  }
  void stop() {
    if (stopped) return;
    stopped = true;
    asio::post(io, [this] {
      boost::system::error_code ignored;
      acceptor.close(ignored);
      client.close(ignored);
      server.close(ignored);
    });
    io.stop();
    if (thread.joinable()) thread.join();
    recorder.close();
  }

  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
  tcp::socket client{io}, server{io};
  tcp::endpoint target;
  analysis::ExchangeRecorder recorder;
  std::array<std::array<std::uint8_t, 65536>, 2> bufs{};
  std::thread thread;
  bool stopped = false;
};

RecordingRelay::RecordingRelay(const std::string& target_host, std::uint16_t target_port,
                               const std::string& capture_path, analysis::RecordingOptions options)
    : impl_(std::make_unique<Impl>(target_host, target_port, capture_path, options)) {}
RecordingRelay::~RecordingRelay() { impl_->stop(); }
std::uint16_t RecordingRelay::port() const { return impl_->acceptor.local_endpoint().port(); }
void RecordingRelay::stop() { impl_->stop(); }

}  // namespace rdmaconf::replay
