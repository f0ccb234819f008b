// Capture analysis: a capture file (or any frame source) through TCP
// reassembly into one ConnectionObserver per connection, with totals, the
// violation list, JSON, and the capture written back with a comment on every
// violating frame. This is what `rdmaconf analyze` and `rdmaconf decode` run.
//
// Memory stays bounded: observers live while their connection does, the
// reassembler has its limits, and only violations are kept (up to a limit;
// beyond it they are counted, not stored).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/link_groups.hpp"
#include "analysis/observer.hpp"
#include "analysis/observer_roce.hpp"
#include "analysis/observer_sctp.hpp"
#include "capture/reassembly.hpp"
#include "capture/source.hpp"

namespace rdmaconf::analysis {

// A connection as reports name it.
struct ConnectionInfo {
  std::uint64_t id = 0;                  // 1, 2, ... in order of first appearance
  capture::StreamKey initiator_to_responder;
  std::string stream(Side from) const;  // "192.0.2.1:5000 -> 192.0.2.2:80" for that side's octets
  // RoCEv2 peers (UDP): each side's datagrams carry their own ports (both
  // go to 4791), so the responder's direction is its own key, not the reverse.
  bool datagram = false;
  capture::StreamKey responder_to_initiator;
};

// Optional listener for everything the observers say (decode uses it).
class AnalysisListener {
 public:
  virtual ~AnalysisListener() = default;
  virtual void on_message(const ConnectionInfo&, const Message&) {}
  virtual void on_violation(const ConnectionInfo&, const Violation&) {}
  virtual void on_event(const ConnectionInfo&, const Event&) {}
  virtual void on_report(const capture::Report&) {}
};

struct AnalysisOptions {
  ObserverConfig observer;
  capture::ReassemblyLimits limits;
  std::size_t max_violations_kept = 100000;
  std::string bpf_filter;
  // `--ulp`: a choice with a port applies to connections whose responder
  // listens there, one without to every connection; the last match wins.
  std::vector<UlpChoice> ulps;
  // Worker threads for the observers (`-j`): 1 runs everything on the
  // reading thread; more shard the connections (analysis/parallel.hpp) with
  // the same result. A listener always gets the one-thread run (its calls
  // come in capture order).
  std::size_t jobs = 1;
  // How a classic pcap file split over threads (analyze_shared_file,
  // parallel.hpp) is read; unset: both ways are timed on stretches of the
  // file first (SharedPcapFile::cheaper_reading). The tests force each.
  std::optional<capture::SharedPcapFile::Reading> file_reading;
};

struct ViolationRecord {
  const Rule* rule = nullptr;
  std::uint64_t frame = 0;
  std::uint64_t connection = 0;
  std::string stream;
  Side side = Side::kInitiator;
  std::uint64_t stream_offset = 0;
  std::string text;
  std::string hint_mistake;  // Violation::hint_mistake, hint
  std::string hint;
  // The file it was found in, when one run read several (analyze_files).
  std::string capture;
  // The reassembler's callback it was found in (Analyzer::set_sequence):
  // how a sharded run puts its workers' violations back in one-thread order.
  std::uint64_t sequence = 0;
};

// What one upper-layer protocol said over all connections that carry it.
struct UlpTotals {
  std::uint64_t connections = 0;
  std::map<std::string, std::uint64_t> by_source;  // how they were recognised
  std::map<std::string, std::uint64_t> messages;   // per procedure or iSCSI opcode
  std::uint64_t read_segments = 0, write_chunks = 0, reply_chunks = 0;  // RPC-over-RDMA
  std::uint64_t write_stags = 0, read_stags = 0;                        // iSER
  std::uint64_t undecoded = 0;
  std::map<std::string, std::uint64_t> operations;  // RPC procedures called, SCSI commands by CDB opcode
  UlpTransfers transfers;                           // RDMA Reads and Writes tied to chunks or STags
};

struct AnalysisSummary {
  std::uint64_t frames = 0;
  std::uint64_t streams = 0;          // TCP connections (Wireshark's tcp.stream)
  std::uint64_t mpa_connections = 0;
  std::uint64_t clc_connections = 0;
  std::uint64_t mpa_frames = 0;       // Requests and Replies
  std::uint64_t mpa_fpdus = 0;
  std::uint64_t clc_messages = 0;
  std::uint64_t violations = 0;
  std::uint64_t must_violations = 0;
  std::uint64_t resyncs = 0;
  std::uint64_t octets = 0;           // TCP payload octets delivered
  std::uint64_t skipped_octets = 0;   // delivered but not decoded, or missing
  std::uint64_t kernel_drops = 0;     // live: frames the kernel dropped before we read them
  std::uint64_t capture_reports = 0;  // frames or stream stretches the capture layer reported
  std::array<std::uint64_t, 16> rdmap_messages{};  // per opcode, complete messages
  std::array<std::uint64_t, 5> clc_types{};        // per CLC Type
  // SMC-R over RoCEv2 (UDP port 4791), per link group (RoceObserver)
  std::uint64_t roce_links = 0;        // observers: link groups (their further links' address pairs join them)
  std::uint64_t roce_packets = 0;
  std::uint64_t roce_retransmissions = 0;
  std::uint64_t roce_undecoded = 0;
  std::uint64_t roce_psn_gaps = 0;     // request PSNs that skipped ahead: packets the capture missed
  std::uint64_t cdc_messages = 0;      // new CDC messages (retransmissions not counted)
  std::uint64_t rdma_writes = 0;       // new RDMA Write messages
  std::array<std::uint64_t, 256> roce_opcodes{};   // every packet, per BTH OpCode
  std::map<std::string, std::uint64_t> llc_messages;  // new LLC messages per name
  // The SMC-R link lifecycle (RoceStats): links confirmed, added, rejected,
  // deleted; rkeys announced, confirmed, deleted; LLC pairs, TEST LINK pairs.
  std::uint64_t links_confirmed = 0, links_added = 0, links_rejected = 0, links_deleted = 0;
  std::uint64_t rkeys_announced = 0, rkeys_confirmed = 0, rkeys_deleted = 0;
  std::uint64_t llc_pairs = 0, test_link_pairs = 0;
  std::map<std::string, std::uint64_t> report_kinds;  // capture reports per kind
  std::map<std::string, std::uint64_t> violations_per_rule;
  std::map<std::string, UlpTotals> ulps;  // by ULP name ("rpc-over-rdma", "iser"): recognised ones only
  // DDP over SCTP (RFC 5043), per association (SctpObserver)
  std::uint64_t sctp_associations = 0;
  std::uint64_t sctp_ddp_associations = 0;  // those that carried DDP's PPIDs
  std::uint64_t sctp_over_udp = 0;          // of them, encapsulated in UDP (RFC 6951)
  std::uint64_t sctp_packets = 0, sctp_chunks = 0, sctp_data_chunks = 0;
  std::uint64_t sctp_bad_checksums = 0, sctp_malformed = 0, sctp_retransmissions = 0;
  std::uint64_t sctp_fragmented_messages = 0, sctp_fragment_findings = 0;
  std::uint64_t ddp_sctp_segments = 0, ddp_sctp_session_control = 0;
};

struct AnalysisResult {
  AnalysisSummary summary;
  std::vector<ViolationRecord> violations;  // in order of detection (at most max_violations_kept)
  bool clean_end = true;                    // the input ended cleanly
};

// The StreamConsumer that runs one observer per connection.
class Analyzer : public capture::StreamConsumer {
 public:
  explicit Analyzer(const AnalysisOptions& options, AnalysisListener* listener = nullptr);
  ~Analyzer() override;

  void on_stream_start(capture::Stream& s) override;
  void on_data(capture::Stream& s, const capture::StreamData& d) override;
  void on_gap(capture::Stream& s, const capture::StreamGap& g) override;
  void on_stream_end(capture::Stream& s, capture::StreamEnd why) override;
  void on_conflict(capture::Stream& s, const capture::StreamConflict& c) override;
  void on_report(const capture::Report& r) override;
  // RoCEv2 is UDP: the analyzer takes datagrams to port 4791 (IBTA Annex A17).
  bool wants_udp() const override { return true; }
  bool on_udp(const capture::UdpDatagram& d) override;
  // SCTP (RFC 9260) over IP, and over UDP (RFC 6951): analysis of DDP over
  // SCTP (RFC 5043), one SctpObserver per association.
  bool wants_sctp() const override { return true; }
  bool on_sctp(const capture::SctpPacket& p) override;

  // After the reassembler's finish(): totals of every connection.
  AnalysisResult take_result(std::uint64_t frames);

  // For a sharded run (analysis/parallel.hpp): the number of the callback
  // about to run, kept with each violation and each new connection, and the
  // callback number each connection (by its id, 1, 2, ...) was created in.
  void set_sequence(std::uint64_t sequence) { sequence_ = sequence; }
  // A worker may see a connection's callbacks after later ones of others
  // (held until its worker was chosen): it keeps the violations of the
  // lowest callback numbers, not the first it saw.
  void keep_by_sequence() { by_sequence_ = true; }
  const std::vector<std::uint64_t>& creation_sequences() const { return creation_sequences_; }

 private:
  struct Connection;
  struct RoceLink;
  struct Association;
  void on_sctp_packet(const capture::IpAddress& src, const capture::IpAddress& dst, std::optional<std::uint16_t> udp_port,
                      FrameNo frame, wire::Bytes packet);
  void retire(Association& a);
  // SCTP associations by their two ends (address and SCTP port, lower first).
  using EndpointPair = std::pair<capture::Endpoint, capture::Endpoint>;
  std::map<EndpointPair, std::unique_ptr<Association>> associations_;
  void record(const ConnectionInfo& info, const Violation& v);
  Connection& connection_for(capture::Stream& s);
  void retire(Connection& c);
  void retire(RoceLink& l);
  void on_roce(RoceLink& l, const capture::IpAddress& initiator, const capture::UdpDatagram& d);
  void judge_fin(Connection& c, Side side, FrameNo frame, std::uint64_t offset);

  AnalysisOptions options_;
  AnalysisListener* listener_;
  AnalysisResult result_;
  std::unordered_map<std::uint64_t, std::unique_ptr<Connection>> connections_;
  // RoCE peers by (lower, higher) IP address; the CLC clients seen, by the
  // same pair, so that the side that opened the TCP connection is the
  // initiator of the RoCE link too.
  using IpPair = std::pair<capture::IpAddress, capture::IpAddress>;
  std::map<IpPair, std::unique_ptr<RoceLink>> roce_links_;
  // The link of the last RoCEv2 datagram: consecutive datagrams of one link
  // skip the map (its ordered compare of two addresses is most of a lookup).
  RoceLink* last_roce_ = nullptr;
  capture::IpAddress last_roce_src_, last_roce_dst_, last_roce_initiator_;
  // A link group's further links between other addresses (RFC 7609
  // §3.5.1.6), routed to the group's observer (link_groups.hpp).
  LinkGroupRoutes<RoceLink, capture::IpAddress> roce_aliases_;
  std::map<IpPair, capture::IpAddress> clc_clients_;
  // SMC-R connections the CLC exchanges set up, per pair of RoCE peers (the
  // addresses in the GIDs of the Accept and Confirm): what the client
  // announced in its Confirm and the server in its Accept.
  struct ClcLink {
    capture::IpAddress client;
    ClcRmbe client_rmbe, server_rmbe;
  };
  std::map<IpPair, std::vector<ClcLink>> clc_links_;
  void add_clc_link(const IpPair& pair, const ClcLink& l);
  std::uint64_t next_id_ = 1;
  std::uint64_t sequence_ = 0;
  bool by_sequence_ = false;
  void trim_by_sequence();
  std::vector<std::uint64_t> creation_sequences_;  // [id - 1]
  std::uint64_t new_id() {
    creation_sequences_.push_back(sequence_);
    return next_id_++;
  }
};

// RFC 6951: a UDP datagram carries an SCTP packet when either port is
// SCTP's registered encapsulation port, or when its first octets read as an
// SCTP common header whose CRC32c checks (the encapsulation may use any
// port: usrsctp lets each side pick one). Both analyzers ask this.
bool sctp_over_udp(const capture::UdpDatagram& d);

// Adds one summary's counts to another's (files or shards analyzed apart).
void add_summary(AnalysisSummary& into, const AnalysisSummary& s);

// Reads a capture file through reassembly and the observers.
// nullopt with `error` set when the file cannot be opened.
std::optional<AnalysisResult> analyze_file(const std::string& path, const AnalysisOptions& options,
                                           AnalysisListener* listener, std::string& error);

// Live capture on an interface ("lo", "eth0", "any"; BPF filter from
// options.bpf_filter) until a limit or `stop`. `on_capturing` runs once the
// interface is open and capturing (the CLI says so; tests start traffic).
// nullopt with `error` set when the interface cannot be opened.
struct LiveAnalysis {
  std::string interface;
  std::chrono::milliseconds duration{0};  // 0: no limit
  std::uint64_t max_frames = 0;           // 0: no limit
  std::uint32_t buffer_mib = capture::LiveOptions{}.buffer_mib;  // the kernel's capture ring
  const std::atomic<bool>* stop = nullptr;
  std::function<void()> on_capturing;
};
std::optional<AnalysisResult> analyze_live(const LiveAnalysis& live, const AnalysisOptions& options,
                                           AnalysisListener* listener, std::string& error);

// `rdmaconf analyze`'s JSON: summary, per-type counts, violations.
void write_json(std::ostream& out, const AnalysisResult& result, const std::string& capture_path);
// Several files read as one (analyze_files): "captures" lists them, each
// violation names its own.
void write_json(std::ostream& out, const AnalysisResult& result, const std::vector<std::string>& capture_paths);

// Writes the capture again as pcapng, each violating frame with a comment
// listing its violations ("rule-id LEVEL section: text"). false + `error` on failure.
bool write_annotated(const std::string& in_path, const std::string& out_path, const AnalysisResult& result,
                     std::string& error);

}  // namespace rdmaconf::analysis
