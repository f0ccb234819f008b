// Runs a shell command for the tests that drive the `rdmaconf` binary or
// tshark: its standard output, and its wait status as pclose() gives it.
#pragma once

#include <cstdio>
#include <string>

namespace rdmaconf::testing {

inline std::string run_command(const std::string& cmd, int* status = nullptr) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int s = ::pclose(p);
  if (status) *status = s;
  return out;
}

}  // namespace rdmaconf::testing
