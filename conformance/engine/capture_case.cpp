// Capture cases (capture_case.hpp): a header of `key: value` lines, nothing
// else.
#include "engine/capture_case.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rdmaconf::conformance {
namespace {

// A case file is a dozen short lines; anything much longer is not one.
constexpr std::size_t kMaxFileSize = 16 * 1024;

bool well_formed_id(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// A path below the captures folder: relative, no "..", no backslash.
bool well_formed_path(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\\') != std::string_view::npos) return false;
  std::size_t at = 0;
  while (at <= p.size()) {
    const auto slash = p.find('/', at);
    const std::string_view part = p.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
    if (part.empty() || part == "..") return false;
    if (slash == std::string_view::npos) break;
    at = slash + 1;
  }
  return true;
}

}  // namespace

std::variant<CaptureCase, SyntaxError> parse_capture_case(std::string_view text, std::string_view file) {
  CaptureCase c;
  c.file = std::string(file);
  auto error = [&](int line, std::string message) { return SyntaxError{std::string(file), line, std::move(message)}; };
  if (text.size() > kMaxFileSize) return error(0, "longer than a capture case can be");
  std::vector<std::string_view> seen;
  int line = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    std::string_view l = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    ++line;
    if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
    l = trim(l);
    if (l.empty()) continue;
    const auto colon = l.find(':');
    if (colon == std::string_view::npos) return error(line, "expected `key: value`, got \"" + std::string(l) + "\"");
    const std::string_view key = trim(l.substr(0, colon));
    const std::string_view value = trim(l.substr(colon + 1));
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return error(line, "`" + std::string(key) + "` given twice");
    seen.push_back(key);
    if (value.empty()) return error(line, "`" + std::string(key) + "` has no value");
    if (key == "id") {
      if (!well_formed_id(value)) return error(line, "id must be [a-z0-9-]");
      c.id = value;
    } else if (key == "title") {
      c.title = value;
    } else if (key == "requirement") {
      if (value.find(',') != std::string_view::npos) return error(line, "a capture case names one requirement");
      c.requirement = value;
    } else if (key == "rfc") {
      c.rfc = value;
    } else if (key == "level") {
      const auto lv = parse_level(value);
      if (!lv) return error(line, "expected a level (MUST, MUST NOT, SHOULD, SHOULD NOT, MAY)");
      c.level = *lv;
    } else if (key == "passes" || key == "fails") {
      if (!well_formed_path(value)) return error(line, "expected a relative path below the test captures");
      (key == "passes" ? c.passes : c.fails) = value;
    } else {
      return error(line, "unknown key `" + std::string(key) + "` (id, title, requirement, rfc, level, passes, fails)");
    }
  }
  for (const auto& [key, value] : {std::pair{"id", &c.id}, {"title", &c.title}, {"requirement", &c.requirement},
                                   {"rfc", &c.rfc}, {"passes", &c.passes}, {"fails", &c.fails}})
    if (value->empty()) return error(0, std::string("missing `") + key + "`");
  if (c.passes == c.fails) return error(0, "`passes` and `fails` name the same capture");
  return c;
}

CaptureCatalogue load_capture_cases(const std::string& dir) {
  namespace fs = std::filesystem;
  CaptureCatalogue cat;
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".capture") files.push_back(it->path());
  if (ec) {
    cat.errors.push_back({dir, 0, "cannot read the catalogue folder: " + ec.message()});
    return cat;
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& p : files) {
    std::ifstream in(p, std::ios::binary);
    std::string text(kMaxFileSize + 1, '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    auto parsed = parse_capture_case(text, fs::relative(p, dir).generic_string());
    if (auto* e = std::get_if<SyntaxError>(&parsed)) {
      cat.errors.push_back(*e);
      continue;
    }
    auto& c = std::get<CaptureCase>(parsed);
    if (std::any_of(cat.cases.begin(), cat.cases.end(), [&](const CaptureCase& o) { return o.id == c.id; })) {
      cat.errors.push_back({c.file, 0, "id " + c.id + " is used twice"});
      continue;
    }
    cat.cases.push_back(std::move(c));
  }
  return cat;
}

}  // namespace rdmaconf::conformance
