#include "engine/test_ulp.hpp"

#include <algorithm>
#include <string_view>

namespace rdmaconf::conformance {
namespace {
constexpr std::string_view kMagic = kUlpMagicText;
constexpr std::size_t kEntrySize = AdvertisedBufferEntry::kSize;
using F = AdvertisedBufferSpec::Field;
bool has_magic(wire::Bytes b) {
  return b.size() >= kMagic.size() + 1 && std::equal(kMagic.begin(), kMagic.end(), b.begin()) && b[kMagic.size()] == 1;
}
}  // namespace

std::vector<std::uint8_t> make_advertisement(const std::vector<AdvertisedBuffer>& buffers) {
  std::vector<std::uint8_t> out(kMagic.begin(), kMagic.end());
  out.push_back(1);
  out.push_back(static_cast<std::uint8_t>(buffers.size()));
  for (const AdvertisedBuffer& b : buffers) {
    AdvertisedBufferEntry e;
    const wire::Bytes name(reinterpret_cast<const std::uint8_t*>(b.name.data()), b.name.size());
    e.set_octets(F::Name, name).set(F::Stag, b.stag).set(F::BaseTo, b.base_to).set(F::Length, b.length);
    out.insert(out.end(), e.bytes().begin(), e.bytes().end());
  }
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> parse_advertisement(wire::Bytes pd) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  if (!has_magic(pd) || pd.size() < kMagic.size() + 2) return out;
  const std::size_t count = pd[kMagic.size() + 1];
  std::size_t at = kMagic.size() + 2;
  for (std::size_t i = 0; i < count && at + kEntrySize <= pd.size(); ++i, at += kEntrySize) {
    const AdvertisedBufferEntry e(pd.subspan(at).first<kEntrySize>());
    std::string name;
    for (std::uint8_t c : e.octets(F::Name)) {
      if (c == 0) break;
      name.push_back(static_cast<char>(c));
    }
    if (name.empty()) continue;
    out.emplace_back(name + ".stag", e.get(F::Stag));
    out.emplace_back(name + ".to", e.get(F::BaseTo));
    out.emplace_back(name + ".len", e.get(F::Length));
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
