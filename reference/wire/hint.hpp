// A diagnosis: when octets break a rule in a way a known encoding mistake
// explains, the mistake's name and what the octets mean read that way.
//
// Each layer offers its own `diagnose_*` functions next to its codec
// (rdmap/diagnosis.hpp, mpa/diagnosis.hpp); the observer, the decoder, the
// Wireshark plugin and the conformance engine print the hint beside the
// violation, so a vendor engineer sees the likely cause, not only the rule.
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace rdmaconf::wire {

// The encoding mistakes the reference diagnoses: a stable id (what reports
// and findings files keep) and the words a report puts after a rule the
// mistake explains. One row per mistake; the diagnoses name them by these
// constants, and a report that kept only the id finds its words here.
struct Mistake {
  std::string_view id;
  std::string_view words;
};

inline constexpr Mistake kLeBitfield{"le-bitfield", "written as a little-endian C bitfield"};
inline constexpr Mistake kByteSwapped{"byte-swapped", "sent in the other byte order"};
inline constexpr Mistake kIrdOrdSwapped{"ird-ord-swapped", "with the IRD and ORD words exchanged"};
inline constexpr std::array kMistakes{kLeBitfield, kByteSwapped, kIrdOrdSwapped};

// The words of a mistake by its id; an id this build does not know (a report
// of another rdmaconf) stands for itself.
constexpr std::string_view mistake_words(std::string_view id) {
  for (const Mistake& m : kMistakes)
    if (m.id == id) return m.words;
  return id;
}

struct Hint {
  std::string_view mistake;  // a Mistake's id (kMistakes)
  std::string text;          // one line: the reading that makes sense, and the correct octets
  // The registry id of the rule the mistake breaks by itself, whatever the
  // octets meant (empty when it only explains why they break another): a
  // report groups what it explains under that rule.
  std::string_view rule = {};
};

}  // namespace rdmaconf::wire
