#include "test_ulp.hpp"

#include <algorithm>
#include <string_view>

namespace rdmaconf::conformance {
namespace {
constexpr std::string_view kMagic = kUlpMagicText;
constexpr std::size_t kEntrySize = 8 + 4 + 8 + 4;
bool has_magic(wire::Bytes b) {
  return b.size() >= kMagic.size() + 1 && std::equal(kMagic.begin(), kMagic.end(), b.begin()) && b[kMagic.size()] == 1;
}
}  // namespace

std::vector<std::uint8_t> make_advertisement(const std::vector<AdvertisedBuffer>& buffers) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(1);
  out.push_back(static_cast<std::uint8_t>(buffers.size()));
  for (const AdvertisedBuffer& b : buffers) {
    std::size_t at = out.size();
    out.resize(at + kEntrySize, 0);
    std::copy_n(b.name.begin(), std::min<std::size_t>(b.name.size(), 8), out.begin() + static_cast<std::ptrdiff_t>(at));
    wire::store_be(wire::MutableBytes(out).subspan(at + 8, 4), b.stag);
    wire::store_be(wire::MutableBytes(out).subspan(at + 12, 8), b.base_to);
    wire::store_be(wire::MutableBytes(out).subspan(at + 20, 4), b.length);
  }
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> parse_advertisement(wire::Bytes pd) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  if (!has_magic(pd) || pd.size() < kMagic.size() + 2) return out;
  const std::size_t count = pd[kMagic.size() + 1];
  std::size_t at = kMagic.size() + 2;
  for (std::size_t i = 0; i < count && at + kEntrySize <= pd.size(); ++i, at += kEntrySize) {
    std::string name;
    for (std::size_t k = 0; k < 8 && pd[at + k] != 0; ++k) name.push_back(static_cast<char>(pd[at + k]));
    if (name.empty()) continue;
    out.emplace_back(name + ".stag", wire::load_be(pd.subspan(at + 8, 4)));
    out.emplace_back(name + ".to", wire::load_be(pd.subspan(at + 12, 8)));
    out.emplace_back(name + ".len", wire::load_be(pd.subspan(at + 20, 4)));
  }
  return out;
}

std::vector<std::uint8_t> make_hint(std::uint8_t flags) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(1);
  out.push_back(flags);
  return out;
}

std::uint8_t parse_hint(wire::Bytes pd) {
  if (!has_magic(pd) || pd.size() != kMagic.size() + 2) return 0;
  return pd[kMagic.size() + 1];
}

std::optional<UlpCommand> parse_command(wire::Bytes payload) {
  if (payload.size() < UlpCommandSpec::decl.size_octets) return std::nullopt;
  UlpCommand c(payload.first<UlpCommandSpec::decl.size_octets>());
  if (c.get(UlpCommandSpec::Field::Magic) != kUlpMagic || c.get(UlpCommandSpec::Field::Version) != 1) return std::nullopt;
  return c;
}

}  // namespace rdmaconf::conformance
