// make_captures --bench and --fuzz: one large marker-free iWARP capture for
// the side-by-side benchmark, and captures built from a fuzz corpus or from
// seeded random mutations (make_captures.hpp).
#include "make_captures.hpp"

namespace rdmaconf::make_captures {

// A marker-free CRC connection carrying `mib` MiB of RDMA Writes and Sends in
// MSS-sized segments, for the side-by-side benchmark.
int bench(const fs::path& file, std::size_t mib) {
  Expect e{"bench", {}, {}, {}};
  Writer w(file);
  const std::size_t target = mib << 20;
  std::size_t written = 0;
  std::uint16_t port = 50000;
  while (written < target) {
    MpaConnection c(w.w, e, port++, {});
    c.startup();
    std::uint32_t msn = 1;
    std::uint64_t to = 0;
    const Bytes payload = pattern(1400, 3);
    for (int k = 0; k < 20000 && written < target; ++k) {
      if (k % 8 == 7)
        c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn++, 0, true), Bytes(payload.begin(), payload.begin() + 200)));
      else {
        c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x100, to, true, Bytes(payload.begin(), payload.begin() + 1390)));
        to += 1390;
      }
      c.flush(Side::kClient);
      written += 1460 + 54;
    }
  }
  return 0;
}

namespace {

// Captures built from the fuzz corpora (fuzz/corpus/<target>/), or, without
// them, from seeded mutations of valid streams:
// - byte-stream targets (MPA, DDP/RDMAP, CLC, sessions): each input becomes
//   (a) the initiator's full-operation stream after a clean startup, cut at
//   an odd segment size, (b) the whole initiator stream (Request position),
//   (c) a CLC stream after SYNs with the SMC option;
// - capture_observer and every 16th ulp_tracker input (both
//   fuzz/common/observer_events.hpp): the event script as a TCP connection
//   (SYN flags from octet 0, each data event one segment of its side; gap
//   events dropped);
// - capture_frames: its frames as they are, one capture per link type.
// (capture_file inputs are whole files: check_plugin.py hands a sample of
// them to tshark directly. conformance_script, rfc_text and agent_control
// inputs are text and JSON that never reach a dissector: left out.)
std::vector<Bytes> read_inputs(const fs::path& dir) {
  std::vector<Bytes> inputs;
  if (!fs::is_directory(dir)) return inputs;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.file_size() <= (1u << 20)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return inputs;
}

void observer_script(capture::CaptureWriter& w, std::uint16_t port, const Bytes& in) {
  if (in.empty()) return;
  const std::uint8_t flags = in[0];
  Connection c(w, port, (flags & 0x0a) == 0x0a, (flags & 0x05) == 0x05);
  for (std::size_t at = 1; at + 1 < in.size();) {
    const bool responder = (in[at] & 0x80) != 0;
    const bool gap = (in[at] & 0x03) == 0x03;
    const std::size_t n = std::min<std::size_t>(in[at + 1] + 1u, in.size() - at - 2);
    at += 2;
    if (gap) continue;
    c.send(responder ? Side::kServer : Side::kClient, Bytes(in.begin() + static_cast<std::ptrdiff_t>(at),
                                                            in.begin() + static_cast<std::ptrdiff_t>(at + n)));
    at += n;
  }
}

}  // namespace

int fuzz(const fs::path& dir, const std::optional<fs::path>& corpus) {
  fs::create_directories(dir);
  std::vector<Bytes> streams;
  std::vector<Bytes> scripts, frames;
  if (corpus && fs::is_directory(*corpus)) {
    for (const auto& entry : fs::directory_iterator(*corpus)) {
      const std::string target = entry.path().filename().string();
      if (target == "capture_file" || target == "conformance_script" || target == "rfc_text" ||
          target == "agent_control")
        continue;
      std::vector<Bytes> in = read_inputs(entry.path());
      if (target == "ulp_tracker") {
        // Whole RPC and iSER sessions of up to 256-octet events, one frame
        // each (about 80 frames per KiB under tshark -V): every 16th.
        std::vector<Bytes> sample;
        for (std::size_t i = 0; i < in.size(); i += 16) sample.push_back(std::move(in[i]));
        in = std::move(sample);
      }
      const bool script = target == "capture_observer" || target == "ulp_tracker";
      std::vector<Bytes>& to = script ? scripts : target == "capture_frames" ? frames : streams;
      to.insert(to.end(), std::make_move_iterator(in.begin()), std::make_move_iterator(in.end()));
    }
  }
  if (streams.empty()) {
    std::mt19937 rng(20240601);
    for (int k = 0; k < 300; ++k) {
      mpa::Framer f({k % 2 == 0, true, 0});
      Bytes s;
      for (int n = 0; n < 4; ++n)
        f.frame(wire::Bytes(untagged(u(static_cast<rdmap::Opcode>(rng() % 12), static_cast<std::uint32_t>(rng() % 4), 1, 0, (rng() & 1) != 0),
                                     pattern(rng() % 700, static_cast<std::uint8_t>(k)))),
                s);
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < flips && !s.empty(); ++i) s[rng() % s.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      if (rng() % 4 == 0 && !s.empty()) s.resize(rng() % s.size());
      streams.push_back(s);
    }
  }
  // Many inputs per capture: tshark's start-up, not the dissection, is what
  // a capture costs.
  constexpr std::size_t kPerFile = 700;
  std::size_t file_no = 0;
  for (std::size_t base = 0; base < streams.size(); base += kPerFile) {
    Writer w(dir / ("fuzz_streams_" + std::to_string(file_no++) + ".pcapng"));
    Expect ignored{"fuzz", {}, {}, {}};
    std::uint16_t port = 20000;
    for (std::size_t i = base; i < std::min(streams.size(), base + kPerFile); ++i) {
      const Bytes& in = streams[i];
      {
        MpaConnection::Options o;
        o.markers_to_responder = i % 2 == 1;
        MpaConnection c(w.w, ignored, port++, o);
        c.startup();
        c.raw(Side::kClient, in, {1 + i % 1460});
      }
      {
        MpaConnection c(w.w, ignored, port++, {});
        c.raw(Side::kClient, in);
      }
      {
        Connection c(w.w, port++, true);
        Bytes clc = {0xe2, 0xd4, 0xc3, 0xd9};
        clc.insert(clc.end(), in.begin(), in.end());
        c.send(Side::kClient, clc, {7, 1460});
      }
    }
  }
  // Scripts of about 256 KiB per capture, so that check_plugin.py's two
  // tshark workers share them (ulp_tracker's are whole RPC or iSER sessions).
  constexpr std::size_t kScriptOctetsPerFile = 256 << 10;
  for (std::size_t at = 0, file = 0; at < scripts.size(); ++file) {
    Writer w(dir / ("fuzz_observer_" + std::to_string(file) + ".pcapng"));
    std::uint16_t port = 20000;
    for (std::size_t octets = 0; at < scripts.size() && octets < kScriptOctetsPerFile; ++at) {
      observer_script(w.w, port++, scripts[at]);
      octets += scripts[at].size();
    }
  }
  // capture_frames: octet 0 picks the link type, then (length, octets beyond
  // the snapshot, frame) triples, as fuzz/targets/capture_frames.cpp reads them.
  static constexpr capture::LinkType kLinks[] = {
      capture::LinkType::kEthernet, capture::LinkType::kRaw,  capture::LinkType::kLinuxSll,
      capture::LinkType::kLinuxSll2, capture::LinkType::kNull, capture::LinkType::kLoop,
      capture::LinkType::kIpv4,     capture::LinkType::kIpv6};
  for (std::size_t l = 0; l < std::size(kLinks) && !frames.empty(); ++l) {
    std::ofstream out(dir / ("fuzz_frames_" + std::to_string(l) + ".pcapng"), std::ios::binary);
    capture::CaptureWriter w(out, capture::FileFormat::kPcapng, kLinks[l]);
    std::int64_t t = 1'700'000'000'000'000'000;
    for (const Bytes& in : frames) {
      if (in.empty() || (in[0] & 7) != l) continue;
      for (std::size_t at = 1; at + 4 <= in.size();) {
        const std::size_t length = std::size_t{in[at]} << 8 | in[at + 1];
        at += 4;
        const std::size_t n = std::min(length, in.size() - at);
        w.write(capture::Timestamp{t += 1000}, wire::Bytes(in).subspan(at, n));
        at += n;
      }
    }
  }
  return 0;
}

}  // namespace rdmaconf::make_captures
