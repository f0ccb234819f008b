#include "capture/source.hpp"

#include <poll.h>
#include <pcap/pcap.h>

namespace rdmaconf::capture {
namespace {

// libpcap hands out DLT_* values, which differ from the file's LINKTYPE_*
// on some platforms (DLT_RAW is 12 or 14); map them to LINKTYPE_*.
LinkType link_type_of(int dlt) {
  switch (dlt) {
    case DLT_NULL: return LinkType::kNull;
    case DLT_EN10MB: return LinkType::kEthernet;
    case DLT_RAW: return LinkType::kRaw;
    case DLT_LOOP: return LinkType::kLoop;
    case DLT_LINUX_SLL: return LinkType::kLinuxSll;
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2: return LinkType::kLinuxSll2;
#endif
#ifdef DLT_IPV4
    case DLT_IPV4: return LinkType::kIpv4;
#endif
#ifdef DLT_IPV6
    case DLT_IPV6: return LinkType::kIpv6;
#endif
    default: return static_cast<LinkType>(static_cast<std::uint32_t>(dlt));
  }
}

}  // namespace

struct PacketSource::Pcap {
  pcap_t* handle = nullptr;
  int fd = -1;          // live, non-blocking: what next() polls
  int timeout_ms = 100;
  bpf_program filter{};
  bool has_filter = false;
  ~Pcap() {
    if (has_filter) pcap_freecode(&filter);
    if (handle) pcap_close(handle);
  }
};

PacketSource::PacketSource() : pcap_(std::make_unique<Pcap>()) {}
PacketSource::~PacketSource() = default;

bool PacketSource::link_supported() const {
  switch (link_) {
    case LinkType::kNull: case LinkType::kEthernet: case LinkType::kRaw: case LinkType::kLoop:
    case LinkType::kLinuxSll: case LinkType::kIpv4: case LinkType::kIpv6: case LinkType::kLinuxSll2:
      return true;
  }
  return false;
}

std::unique_ptr<PacketSource> PacketSource::open_file(const std::string& path, std::string_view bpf_filter,
                                                      std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<PacketSource> s(new PacketSource());
  s->pcap_->handle = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!s->pcap_->handle) {
    error = errbuf;
    return nullptr;
  }
  s->nanoseconds_ = pcap_get_tstamp_precision(s->pcap_->handle) == PCAP_TSTAMP_PRECISION_NANO;
  s->link_ = link_type_of(pcap_datalink(s->pcap_->handle));
  if (!bpf_filter.empty()) {
    // Filtered here rather than by pcap_setfilter, so that skipped frames
    // still count and frame numbers match Wireshark's.
    const std::string f(bpf_filter);
    if (pcap_compile(s->pcap_->handle, &s->pcap_->filter, f.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(s->pcap_->handle);
      return nullptr;
    }
    s->pcap_->has_filter = true;
  }
  return s;
}

std::unique_ptr<PacketSource> PacketSource::open_live(const std::string& interface, std::string_view bpf_filter,
                                                      const LiveOptions& options, std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<PacketSource> s(new PacketSource());
  s->live_ = true;
  pcap_t* p = pcap_create(interface.c_str(), errbuf);
  if (!p) {
    error = errbuf;
    return nullptr;
  }
  s->pcap_->handle = p;
  pcap_set_snaplen(p, static_cast<int>(options.snaplen));
  pcap_set_promisc(p, options.promiscuous ? 1 : 0);
  pcap_set_timeout(p, options.timeout_ms);
  pcap_set_immediate_mode(p, 1);  // deliver frames as they come, not when the buffer fills
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);  // best effort; checked below
  const int activated = pcap_activate(p);
  if (activated < 0) {
    error = interface + ": " + pcap_statustostr(activated) + (activated == PCAP_ERROR ? std::string(": ") + pcap_geterr(p) : "");
    return nullptr;
  }
  s->nanoseconds_ = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
  s->link_ = link_type_of(pcap_datalink(p));
  // In immediate mode Linux's libpcap waits for a packet without the
  // timeout; non-blocking reads and our own poll() bound every next().
  s->pcap_->fd = pcap_get_selectable_fd(p);
  s->pcap_->timeout_ms = options.timeout_ms;
  if (s->pcap_->fd >= 0 && pcap_setnonblock(p, 1, errbuf) != 0) {
    error = interface + ": " + errbuf;
    return nullptr;
  }
  if (!bpf_filter.empty()) {
    const std::string f(bpf_filter);
    if (pcap_compile(p, &s->pcap_->filter, f.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(p);
      return nullptr;
    }
    s->pcap_->has_filter = true;
    if (pcap_setfilter(p, &s->pcap_->filter) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(p);
      return nullptr;
    }
  }
  return s;
}

PacketSource::Next PacketSource::next(RawFrame& out) {
  for (;;) {
    pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(pcap_->handle, &header, &data);
    if (rc == 0 && pcap_->fd >= 0) {
      // Live and non-blocking: nothing buffered; wait for the interface.
      pollfd p{pcap_->fd, POLLIN, 0};
      if (::poll(&p, 1, pcap_->timeout_ms) <= 0) return Next::kTimeout;
      rc = pcap_next_ex(pcap_->handle, &header, &data);
    }
    if (rc == 0) return Next::kTimeout;
    if (rc == PCAP_ERROR_BREAK) return Next::kEnd;  // end of file, or break_loop()
    if (rc != 1) {
      error_ = pcap_geterr(pcap_->handle);
      Report r;
      // libpcap says "truncated dump file" / "truncated pcapng dump file"
      // when a record runs past the end of the file.
      r.kind = error_.find("truncated") != std::string::npos ? ReportKind::kTruncatedFile : ReportKind::kReadError;
      r.frame = FrameNumber{frames_ + 1};
      r.detail = wire::DecodeError{"capture file", r.kind == ReportKind::kTruncatedFile
                                                       ? "the file ends inside a packet record"
                                                       : "libpcap could not read further",
                                   "pcap/pcapng", 0};
      end_report_ = r;
      return r.kind == ReportKind::kTruncatedFile ? Next::kEnd : Next::kError;
    }
    ++frames_;
    // Files: apply the filter here so that every frame is counted.
    if (!live_ && pcap_->has_filter && pcap_offline_filter(&pcap_->filter, header, data) == 0) continue;
    out.number = FrameNumber{frames_};
    const std::int64_t fraction = nanoseconds_ ? header->ts.tv_usec : std::int64_t{header->ts.tv_usec} * 1000;
    out.time = Timestamp{std::int64_t{header->ts.tv_sec} * 1'000'000'000 + fraction};
    out.link = link_;
    out.captured = wire::Bytes(data, header->caplen);
    out.original_length = header->len;
    return Next::kFrame;
  }
}

void PacketSource::break_loop() { pcap_breakloop(pcap_->handle); }

RunSummary run_capture(PacketSource& source, Reassembler& reassembler, StreamConsumer& consumer,
                       const RunLimits& limits) {
  RunSummary summary;
  RawFrame frame;
  const bool timed = limits.deadline != std::chrono::steady_clock::time_point::max();
  for (;;) {
    if (limits.max_frames != 0 && summary.frames >= limits.max_frames) break;
    if (limits.stop && limits.stop->load(std::memory_order_relaxed)) break;
    // A file is read to its end quickly; only live sources look at the clock.
    if (timed && source.live() && std::chrono::steady_clock::now() >= limits.deadline) break;
    const PacketSource::Next n = source.next(frame);
    if (n == PacketSource::Next::kTimeout) continue;
    if (n != PacketSource::Next::kFrame) break;
    ++summary.frames;
    reassembler.add_frame(frame);
  }
  if (auto r = source.end_report()) {
    summary.clean_end = false;
    consumer.on_report(*r);
  }
  reassembler.finish();
  return summary;
}

}  // namespace rdmaconf::capture
