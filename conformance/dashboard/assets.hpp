// The page's files, built into the binary (assets/, embedded by
// embed_assets.cmake): the dashboard works offline and needs no install step.
#pragma once

#include <string_view>

namespace rdmaconf::dashboard {

struct Asset {
  std::string_view path;          // "/index.html"
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view body;
  std::string_view sha256_hex;    // of body, 64 hex digits
};

// nullptr when no file has that path.
const Asset* find_asset(std::string_view path);

}  // namespace rdmaconf::dashboard
