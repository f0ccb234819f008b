// Test support: a folder of its own under the temporary directory for one
// test's files, removed with everything in it when the test ends, and a
// file's contents read whole.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rdmaconf::test_support {

class ScratchFolder {
 public:
  // `what` names the tests in the folder's name ("run" -> rdmaconf-run-test-PID-N).
  explicit ScratchFolder(const std::string& what)
      : path_(std::filesystem::temp_directory_path() /
              ("rdmaconf-" + what + "-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace rdmaconf::test_support
