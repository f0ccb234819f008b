// The libpcap read floor for `analyze` (docs/performance.md): the same file
// read by a plain libpcap loop that touches every captured octet and does
// nothing else. analyze's one-thread pace is given as a share of this one.
//
//   pcap_read_floor CAPTURE
#include <pcap/pcap.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CAPTURE\n", argv[0]);
    return 2;
  }
  char error[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline(argv[1], error);
  if (!p) {
    std::fprintf(stderr, "%s: %s\n", argv[1], error);
    return 2;
  }
  std::uint64_t frames = 0, octets = 0, sum = 0;
  pcap_pkthdr* header = nullptr;
  const u_char* data = nullptr;
  while (pcap_next_ex(p, &header, &data) == 1) {
    ++frames;
    octets += header->caplen;
    // Every octet read, eight at a time (the compiler may not skip it: the sum is printed).
    std::uint32_t i = 0;
    for (; i + 8 <= header->caplen; i += 8) {
      std::uint64_t w;
      std::memcpy(&w, data + i, 8);
      sum += w;
    }
    for (; i < header->caplen; ++i) sum += data[i];
  }
  pcap_close(p);
  std::printf("%llu frames, %llu octets, sum %016llx\n", static_cast<unsigned long long>(frames),
              static_cast<unsigned long long>(octets), static_cast<unsigned long long>(sum));
  return 0;
}
