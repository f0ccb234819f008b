// PacketSource::open_memory reads what open_file reads: the capture_file fuzz
// target opens its inputs from memory, so the two openings must agree on every
// input it has (its shipped corpus and crash regressions) and on each of them
// cut short at a few places (the end-of-file paths of both readers): the same
// open failure and message, the same frames (number, time, link, octets,
// original length) and the same end (Next, end report, error text).
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "capture/source.hpp"

namespace {

using rdmaconf::capture::PacketSource;
using rdmaconf::capture::RawFrame;
using Octets = std::vector<std::uint8_t>;

Octets read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return Octets(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::filesystem::path> capture_inputs() {
  std::vector<std::filesystem::path> out;
  for (const char* dir : {"corpus/capture_file", "regressions/capture_file"}) {
    const std::filesystem::path d = std::filesystem::path(RDMACONF_FUZZ_DIR) / dir;
    if (!std::filesystem::is_directory(d)) continue;
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.is_regular_file()) out.push_back(e.path());
  }
  return out;
}

// Everything a reader hands out, frame by frame, then how it ended.
std::string transcript(PacketSource& s) {
  std::string t = "link " + std::to_string(static_cast<std::uint32_t>(s.link_type())) + "\n";
  RawFrame f;
  for (;;) {
    const PacketSource::Next n = s.next(f);
    if (n != PacketSource::Next::kFrame) {
      t += "end " + std::to_string(static_cast<int>(n)) + " " + s.error();
      if (const auto r = s.end_report())
        t += " report " + std::to_string(static_cast<int>(r->kind)) + " frame " + std::to_string(r->frame.value) +
             " offset " + std::to_string(r->offset);
      return t;
    }
    t += std::to_string(f.number.value) + " " + std::to_string(f.time.ns) + " " +
         std::to_string(static_cast<std::uint32_t>(f.link)) + " " + std::to_string(f.original_length) + " " +
         std::string(f.captured.begin(), f.captured.end()) + "\n";
  }
}

std::string opened(std::unique_ptr<PacketSource> s, const std::string& error) {
  return s ? transcript(*s) : "failed: " + error;
}

TEST(CaptureMemory, OpenMemoryReadsWhatOpenFileReads) {
  const std::vector<std::filesystem::path> inputs = capture_inputs();
  ASSERT_GT(inputs.size(), 100u);
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() /
                                    ("rdmaconf-capture-memory-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  const std::string path = (tmp / "input").string();
  std::size_t compared = 0;
  for (const auto& p : inputs) {
    const Octets whole = read_file(p);
    for (const std::size_t cut : {whole.size(), whole.size() / 2, std::size_t{30}, std::size_t{4}, std::size_t{0}}) {
      if (cut > whole.size()) continue;
      const Octets input(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
      std::ofstream(path, std::ios::binary | std::ios::trunc)
          .write(reinterpret_cast<const char*>(input.data()), static_cast<std::streamsize>(input.size()));
      std::string file_error, memory_error;
      const std::string from_file = opened(PacketSource::open_file(path, {}, file_error), file_error);
      // open_file names the file before what is wrong with it; open_memory has no name.
      auto memory = PacketSource::open_memory(input, {}, memory_error);
      const std::string from_memory = opened(std::move(memory), path + ": " + memory_error);
      EXPECT_EQ(from_file, from_memory) << p << " cut at " << cut;
      ++compared;
    }
  }
  std::filesystem::remove_all(tmp);
  EXPECT_GT(compared, inputs.size());
}

}  // namespace
