// A diagnosis: when octets break a rule in a way a known encoding mistake
// explains, the mistake's name and what the octets mean read that way.
//
// Each layer offers its own `diagnose_*` functions next to its codec
// (rdmap/diagnosis.hpp, mpa/diagnosis.hpp); the observer, the decoder, the
// Wireshark plugin and the conformance engine print the hint beside the
// violation, so a vendor engineer sees the likely cause, not only the rule.
#pragma once

#include <string>
#include <string_view>

namespace rdmaconf::wire {

struct Hint {
  std::string_view mistake;  // stable id, e.g. "le-bitfield", "byte-swapped"
  std::string text;          // one line: the reading that makes sense, and the correct octets
  // The registry id of the rule the mistake breaks by itself, whatever the
  // octets meant (empty when it only explains why they break another): a
  // report groups what it explains under that rule.
  std::string_view rule = {};
};

}  // namespace rdmaconf::wire
