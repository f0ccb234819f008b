// record_live DIR: two reference iWARP endpoints talk over loopback through
// pcap/replay's RecordingRelay, which writes what crossed the wire as
// DIR/live.pcapng (no Markers) and DIR/live-markers.pcapng (Markers both
// ways). The plugin test compares tshark's view of these captures with
// `rdmaconf decode` and `rdmaconf analyze`: traffic the reference stack
// itself produced, cut into segments by real sockets.
//
// The initiator sends 3 Sends, 2 RDMA Writes, 2 RDMA Reads, an Atomic
// Fetch-and-Add and Immediate Data, waiting for each completion.
#include <cstdio>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "endpoint/iwarp_endpoint.hpp"
#include "replay/replay.hpp"

using namespace rdmaconf;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

endpoint::IwarpConfig config(bool markers) {
  endpoint::IwarpConfig c;
  c.mpa.want_markers = markers;
  c.fpdu_budget = 700;  // several FPDUs per message
  c.negotiation_timeout = 5s;
  return c;
}

bool completes(endpoint::IwarpEndpoint& ep) {
  auto c = ep.wait_completion(5s);
  return c && c->status == rdmap::CompletionStatus::kSuccess;
}

bool run_operations(endpoint::IwarpEndpoint& ini, ddp::Stag remote) {
  std::vector<std::uint8_t> data(3000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i);
  std::vector<std::uint8_t> sink(8192);
  const ddp::Stag sink_stag = ini.register_memory(sink, 0, ddp::Access::kLocalWrite);
  for (unsigned i = 0; i < 3; ++i)
    if (!ini.post_send(i, wire::Bytes(data).first(100u + i * 1000u)).ok() || !completes(ini)) return false;
  for (unsigned i = 0; i < 2; ++i)
    if (!ini.post_write(10 + i, data, remote, 0x4000 + i * 4000u).ok() || !completes(ini)) return false;
  for (unsigned i = 0; i < 2; ++i)
    if (!ini.post_read(20 + i, {.sink_stag = sink_stag, .sink_to = 0, .size = 2500u + i, .source_stag = remote,
                                .source_to = 0x4000})
             .ok() ||
        !completes(ini))
      return false;
  if (!ini.post_atomic(30, {.op = rdmap::AtomicOpcode::kFetchAdd, .remote_stag = remote, .remote_to = 0x4000 + 8192,
                            .add_or_swap_data = 1})
           .ok() ||
      !completes(ini))
    return false;
  return ini.post_immediate(40, 0x55).ok() && completes(ini);
}

bool record(const std::string& path, bool markers) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  // The responder: one region open to remote access, receives posted.
  endpoint::IwarpEndpoint rsp(config(markers));
  std::vector<std::uint8_t> region(16384, 0);
  const auto rights = ddp::Access::kLocalRead | ddp::Access::kLocalWrite | ddp::Access::kRemoteRead |
                      ddp::Access::kRemoteWrite | ddp::Access::kRemoteAtomic;
  const ddp::Stag stag = rsp.register_memory(region, 0x4000, rights);
  std::vector<std::vector<std::uint8_t>> rx(8, std::vector<std::uint8_t>(4096));
  for (std::size_t i = 0; i < rx.size(); ++i) rsp.post_receive(10 + i, rx[i]);

  replay::RecordingRelay relay("127.0.0.1", acceptor.local_endpoint().port(), path);
  auto accepted = std::async(std::launch::async, [&] { return rsp.accept(acceptor); });
  endpoint::IwarpEndpoint ini(config(markers));
  if (!ini.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), relay.port()))) {
    std::fprintf(stderr, "record_live: connect failed: %s\n", std::string(ini.failure()).c_str());
    return false;
  }
  if (!accepted.get()) return false;
  const bool ok = run_operations(ini, stag);
  ini.close();
  rsp.wait_closed(3s);
  relay.stop();
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: record_live DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  for (bool markers : {false, true}) {
    const std::string path = dir + (markers ? "/live-markers.pcapng" : "/live.pcapng");
    if (!record(path, markers)) {
      std::fprintf(stderr, "record_live: the session for %s did not complete\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
