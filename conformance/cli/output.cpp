// Outputs (output.hpp).
#include "cli/output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <vector>

namespace rdmaconf::cli {

namespace fs = std::filesystem;

CLI::Option* add_json_option(CLI::App& sub, std::string& path, const std::string& what) {
  return sub.add_option("--json", path, what + " to FILE; '-': to standard output, which then holds nothing else")
      ->type_name("FILE|-");
}

std::ostream& text_stream(const std::string& json_path) { return is_stdout(json_path) ? std::cerr : std::cout; }

namespace {

std::string why(int error) { return std::strerror(error); }

// Makes `folder` and its parents; false with `error` naming the first part
// of the path that is in the way.
bool make_folders(const fs::path& folder, std::string& error) {
  if (folder.empty()) return true;
  std::error_code ec;
  if (fs::is_directory(folder, ec)) return true;
  fs::create_directories(folder, ec);
  if (!ec) return true;
  // Name what is in the way: the deepest existing part that is no folder.
  for (fs::path p = folder; !p.empty() && p != p.parent_path(); p = p.parent_path()) {
    std::error_code e2;
    if (fs::exists(p, e2) && !fs::is_directory(p, e2)) {
      error = "cannot make the folder " + folder.string() + ": " + p.string() + " is a file";
      return false;
    }
  }
  error = "cannot make the folder " + folder.string() + ": " + ec.message();
  return false;
}

// Creates and removes a file of its own in `folder`.
bool probe_folder(const fs::path& folder, std::string& error) {
  const fs::path probe = folder / (".rdmaconf-write-check-" + std::to_string(::getpid()));
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot write into " + folder.string() + ": " + why(errno);
    return false;
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return true;
}

}  // namespace

bool prepare_output(const std::string& path, OutputKind kind, std::string& error) {
  if (path.empty()) return true;
  const fs::path p(path);
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  if (kind == OutputKind::kFolder) {
    if (fs::exists(st) && !fs::is_directory(st)) {
      error = path + " is a file; a folder is needed here";
      return false;
    }
    return make_folders(p, error) && probe_folder(p, error);
  }
  if (is_stdout(path)) return true;
  if (fs::is_directory(st)) {
    error = path + " is a folder; give a file name";
    return false;
  }
  if (!make_folders(p.parent_path(), error)) return false;
  if (fs::exists(st)) {
    // Opened for writing, not truncated: the earlier report stays until the
    // new one replaces it. A device (/dev/stdout) or a pipe is only asked.
    if (!fs::is_regular_file(st)) {
      if (::access(path.c_str(), W_OK) == 0) return true;
      error = "cannot write " + path + ": " + why(errno);
      return false;
    }
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
      error = "cannot write " + path + ": " + why(errno);
      return false;
    }
    ::close(fd);
    return true;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot create " + path + ": " + why(errno);
    return false;
  }
  ::close(fd);
  ::unlink(path.c_str());
  return true;
}

bool write_output(const std::string& path, const std::function<void(std::ostream&)>& write, std::string& error) {
  if (is_stdout(path)) {
    write(std::cout);
    std::cout.flush();
    if (std::cout) return true;
    error = "cannot write to standard output";
    return false;
  }
  // The folders were made before the run; someone may have removed them since.
  if (!make_folders(fs::path(path).parent_path(), error)) return false;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    error = "cannot write " + path + ": " + why(errno);
    return false;
  }
  errno = 0;
  write(f);
  f.flush();
  const int write_errno = errno;
  f.close();
  if (!f) {
    error = "cannot write " + path + ": " + why(write_errno ? write_errno : EIO);
    return false;
  }
  return true;
}

std::string write_fallback(const std::string& stem, const std::function<void(std::ostream&)>& write,
                           std::string& error) {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp && *tmp ? tmp : "/tmp";
  std::string name = (fs::path(dir) / (stem + "-XXXXXX.json")).string();
  std::vector<char> buf(name.begin(), name.end());
  buf.push_back('\0');
  const int fd = ::mkstemps(buf.data(), 5);
  if (fd < 0) {
    error = "cannot create a file in " + dir + ": " + why(errno);
    return {};
  }
  ::close(fd);
  name = buf.data();
  if (!write_output(name, write, error)) return {};
  return name;
}

}  // namespace rdmaconf::cli
