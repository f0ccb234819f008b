// A set of faults a reference machine is told to commit, one bit per value of
// the machine's own Fault enum (which ends with kCount). The machines that
// take faults (rdmap::Stream, smcr::Connection) each name theirs; the set is
// this one type, so `rdmaconf faults` and the tests set them the same way.
#pragma once

#include <bitset>
#include <cstddef>

namespace rdmaconf::wire {

template <class Fault>
struct FaultSet {
  std::bitset<static_cast<std::size_t>(Fault::kCount)> bits;
  bool has(Fault f) const { return bits.test(static_cast<std::size_t>(f)); }
  FaultSet& set(Fault f) {
    bits.set(static_cast<std::size_t>(f));
    return *this;
  }
};

}  // namespace rdmaconf::wire
