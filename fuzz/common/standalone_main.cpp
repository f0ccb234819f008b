// The standalone driver: replays files through LLVMFuzzerTestOneInput without
// libFuzzer, so every corpus and crash-regression file runs in the normal
// build and in ctest (the nghttp2 / curl-fuzzer habit).
//
//   <target>_fuzzer [--mutate=N] PATH...
//
// Each PATH is a file or a directory (its regular files, sorted, not
// recursive). A path that does not exist is skipped with a note, so a target
// without crash regressions yet needs no empty directory in git.
//
// --mutate=N also runs the target's custom mutator N times on every file and
// feeds each result to the target: the mutators are exercised by ctest too.
// LLVMFuzzerMutate, which the mutators call for plain byte mutation, is
// provided here as a small deterministic mutator (libFuzzer brings its own).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) __attribute__((weak));

namespace {

std::uint64_t g_state = 0x9e3779b97f4a7c15u;

std::uint32_t next_random() {
  // xorshift64*: deterministic, so a replay failure reproduces.
  g_state ^= g_state >> 12;
  g_state ^= g_state << 25;
  g_state ^= g_state >> 27;
  return static_cast<std::uint32_t>((g_state * 0x2545f4914f6cdd1du) >> 32);
}

std::vector<std::uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

// libFuzzer's contract: mutate data[0, size) in place, return the new size,
// never exceed max_size.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size) {
  switch (next_random() % 4) {
    case 0:  // flip a bit
      if (size > 0) data[next_random() % size] ^= static_cast<std::uint8_t>(1u << (next_random() % 8));
      return size;
    case 1:  // set an octet to an interesting value
      if (size > 0) {
        static constexpr std::uint8_t kValues[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x02, 0x10};
        data[next_random() % size] = kValues[next_random() % sizeof kValues];
      }
      return size;
    case 2:  // insert an octet
      if (size < max_size) {
        std::size_t at = size == 0 ? 0 : next_random() % (size + 1);
        std::memmove(data + at + 1, data + at, size - at);
        data[at] = static_cast<std::uint8_t>(next_random());
        return size + 1;
      }
      return size;
    default:  // erase an octet
      if (size > 1) {
        std::size_t at = next_random() % size;
        std::memmove(data + at, data + at + 1, size - at - 1);
        return size - 1;
      }
      return size;
  }
}

int main(int argc, char** argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::size_t mutations = 0;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--mutate=", 0) == 0) {
      mutations = std::strtoul(arg.c_str() + 9, nullptr, 10);
      continue;
    }
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags: ignored here
    std::filesystem::path p(arg);
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> in_dir;
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file() && e.path().filename().string()[0] != '.') in_dir.push_back(e.path());
      std::sort(in_dir.begin(), in_dir.end());
      files.insert(files.end(), in_dir.begin(), in_dir.end());
    } else if (std::filesystem::is_regular_file(p, ec)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "note: %s does not exist, skipped\n", arg.c_str());
    }
  }

  std::size_t runs = 0;
  for (const auto& f : files) {
    std::vector<std::uint8_t> input = read_file(f);
    // A copy in a buffer of exactly the input's size, so that ASan (when the
    // driver is built with it) sees a read one past the end.
    std::vector<std::uint8_t> exact(input);
    LLVMFuzzerTestOneInput(exact.data(), exact.size());
    ++runs;
    if (mutations > 0 && LLVMFuzzerCustomMutator) {
      constexpr std::size_t kMaxSize = 4096;
      std::vector<std::uint8_t> buf(std::max(kMaxSize, input.size()));
      std::copy(input.begin(), input.end(), buf.begin());
      std::size_t size = input.size();
      for (std::size_t m = 0; m < mutations; ++m) {
        size = LLVMFuzzerCustomMutator(buf.data(), size, buf.size(), next_random());
        if (size > buf.size()) {
          std::fprintf(stderr, "%s: custom mutator returned %zu > max %zu\n", f.c_str(), size, buf.size());
          return 1;
        }
        std::vector<std::uint8_t> mutated(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(size));
        LLVMFuzzerTestOneInput(mutated.data(), mutated.size());
        ++runs;
      }
    }
  }
  std::printf("replayed %zu files, %zu runs\n", files.size(), runs);
  return 0;
}
