// The dashboard tests' throwaway databases: one path per process and name in
// the temporary directory, with any file an earlier run left there (the
// database and SQLite's -wal and -shm companions) removed first.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace rdmaconf::dashboard::test {

inline std::string temp_db(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() /
                 ("rdmaconf-dashboard-" + std::to_string(::getpid()) + "-" + name + ".sqlite");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

}  // namespace rdmaconf::dashboard::test
