// Sends the frames of a capture file out of a network interface at a set
// rate, for the live-capture benchmark (ci/analyze-live-bench.sh,
// docs/performance.md "Live capture"): `rdmaconf analyze -i` listens on the
// other end of a veth pair and must see every frame sent.
//
//   pcap_send_rate INTERFACE CAPTURE MBIT_PER_S SECONDS
//
// Frames go out in the file's order, unchanged, through a packet socket
// (root, or CAP_NET_RAW), in batches of at most 64 (sendmmsg) paced so that
// the octets sent never run ahead of MBIT_PER_S (Ethernet frame octets as
// captured, no preamble or gap); 0 sends as fast as the socket takes them. It
// stops after SECONDS or at the end of the capture, whichever comes first,
// and prints one line: frames, octets, seconds, Mbit/s and frames/s sent.
// The capture must be of Ethernet frames no larger than the interface's MTU
// plus the Ethernet header.
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_packet.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "capture/source.hpp"

using namespace rdmaconf;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s INTERFACE CAPTURE MBIT_PER_S SECONDS\n", argv[0]);
    return 2;
  }
  const std::string interface = argv[1];
  const double mbit = std::strtod(argv[3], nullptr);
  const double seconds = std::strtod(argv[4], nullptr);
  if (!(mbit >= 0) || !(seconds > 0)) {
    std::fprintf(stderr, "%s: MBIT_PER_S must be 0 or more, SECONDS more than 0\n", argv[0]);
    return 2;
  }
  std::string error;
  auto source = capture::PacketSource::open_file(argv[2], "", error);
  if (!source) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 2;
  }
  if (source->link_type() != capture::LinkType::kEthernet) {
    std::fprintf(stderr, "%s: %s is not a capture of Ethernet frames\n", argv[0], argv[2]);
    return 2;
  }
  const unsigned index = ::if_nametoindex(interface.c_str());
  const int fd = ::socket(AF_PACKET, SOCK_RAW, 0);  // protocol 0: sends only, receives nothing
  if (index == 0 || fd < 0) {
    std::fprintf(stderr, "%s: %s: %s\n", argv[0], interface.c_str(), std::strerror(errno));
    return 2;
  }
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_ifindex = static_cast<int>(index);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    std::fprintf(stderr, "%s: bind to %s: %s\n", argv[0], interface.c_str(), std::strerror(errno));
    return 2;
  }
  // Straight to the driver: the queueing discipline would only add its own cost to the sender's.
  const int one = 1;
  ::setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
  // Wake when asked, not up to 50 us later: the pacing below sleeps often.
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

  constexpr std::size_t kBatch = 64;
  std::vector<std::vector<std::uint8_t>> frames(kBatch);
  std::vector<iovec> iov(kBatch);
  std::vector<mmsghdr> msgs(kBatch);
  const double octets_per_ns = mbit * 1e6 / 8 / 1e9;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::uint64_t sent_frames = 0, sent_octets = 0;
  bool more = true;
  capture::RawFrame f;
  while (more && Clock::now() < end) {
    // A batch: never more octets at once than 200 us of the rate, so the
    // pace stays even at low rates.
    const double batch_octets = octets_per_ns > 0 ? octets_per_ns * 200e3 : 1e18;
    std::size_t n = 0, octets = 0;
    while (n < kBatch && (n == 0 || static_cast<double>(octets) < batch_octets)) {
      if (source->next(f) != capture::PacketSource::Next::kFrame) {
        more = false;
        break;
      }
      frames[n].assign(f.captured.begin(), f.captured.end());
      octets += f.captured.size();
      ++n;
    }
    if (n == 0) break;
    if (octets_per_ns > 0) {
      // Not before the octets already sent have had their time at the rate.
      const auto due = start + std::chrono::nanoseconds(static_cast<std::int64_t>(
                                   static_cast<double>(sent_octets) / octets_per_ns));
      std::this_thread::sleep_until(due);
    }
    for (std::size_t i = 0; i < n; ++i) {
      iov[i] = {frames[i].data(), frames[i].size()};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
    }
    for (std::size_t done = 0; done < n;) {
      const int r = ::sendmmsg(fd, msgs.data() + done, static_cast<unsigned>(n - done), 0);
      if (r < 0 && (errno == EINTR || errno == ENOBUFS || errno == EAGAIN)) continue;
      if (r < 0) {
        std::fprintf(stderr, "%s: send on %s: %s\n", argv[0], interface.c_str(), std::strerror(errno));
        return 1;
      }
      done += static_cast<std::size_t>(r);
    }
    sent_frames += n;
    sent_octets += octets;
  }
  const double took = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf("sent %llu frames, %llu octets in %.3f s: %.1f Mbit/s, %.0f frames/s\n",
              static_cast<unsigned long long>(sent_frames), static_cast<unsigned long long>(sent_octets), took,
              static_cast<double>(sent_octets) * 8 / took / 1e6, static_cast<double>(sent_frames) / took);
  ::close(fd);
  return 0;
}
