// docs/requirements.md, "RFC 7609's link layer: the case each row wants", is
// the plan the smcr cases follow: one bullet per link-layer row, naming the
// row by its current id with W or P as the row's observability says (on the
// wire; on the wire as peer). A row renamed, withdrawn or regraded shows here.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "requirement.hpp"

namespace rq = rdmaconf::requirements;

namespace {

constexpr std::string_view kHeading = "\n## RFC 7609's link layer: the case each row wants\n";

// The section's text, from its heading to the next heading or the end.
std::string link_layer_section() {
  std::ifstream f(RDMACONF_SOURCE_DIR "/docs/requirements.md");
  std::stringstream s;
  s << f.rdbuf();
  const std::string doc = s.str();
  const auto begin = doc.find(kHeading);
  if (begin == std::string::npos) return {};
  const auto end = doc.find("\n## ", begin + kHeading.size());
  return doc.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

struct Bullet {
  std::string id;
  char kind = '?';  // 'W' or 'P' as written
};

// Bullets read "- `rfc7609-...` (W): stimulus → behaviour".
std::vector<Bullet> bullets(const std::string& text) {
  std::vector<Bullet> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("- `", 0) != 0) continue;
    const auto close = line.find('`', 3);
    if (close == std::string::npos) continue;
    Bullet b{line.substr(3, close - 3)};
    if (line.compare(close + 1, 4, " (W)") == 0) b.kind = 'W';
    if (line.compare(close + 1, 4, " (P)") == 0) b.kind = 'P';
    out.push_back(b);
  }
  return out;
}

char kind_of(const rq::Requirement& r) {
  switch (r.observable) {
    case rq::Observability::kOnTheWire: return 'W';
    case rq::Observability::kOnTheWireAsPeer: return 'P';
    case rq::Observability::kNotObservable: return 'N';
  }
  return '?';
}

TEST(Rfc7609LinkLayerDoc, EachBulletNamesARowAsItIs) {
  const auto listed = bullets(link_layer_section());
  ASSERT_FALSE(listed.empty()) << "docs/requirements.md has no section" << kHeading << "with bullets";
  std::set<std::string> seen;
  for (const Bullet& b : listed) {
    EXPECT_TRUE(seen.insert(b.id).second) << b.id << " is listed twice";
    const rq::Requirement* r = rq::find(b.id);
    if (r == nullptr) {
      ADD_FAILURE() << b.id << " is no registry row";
      continue;
    }
    EXPECT_EQ(r->id, b.id) << b.id << " is an old id: the row is " << r->id;
    EXPECT_EQ(r->rfc, "RFC 7609") << b.id;
    EXPECT_EQ(b.kind, kind_of(*r)) << b.id << ": the bullet's (W)/(P) is not the row's observability";
  }
}

}  // namespace
