// Delta debugging over a sequence of inputs (sequence.hpp).
#include "wirefuzz/sequence.hpp"

#include <algorithm>

namespace rdmaconf::conformance::wirefuzz {

std::vector<std::size_t> fewest_inputs(std::size_t n, const SequenceRun& reproduces, int& budget) {
  std::vector<std::size_t> cur(n);
  for (std::size_t i = 0; i < n; ++i) cur[i] = i;
  // A candidate that makes the finding, cut after the input that made it.
  auto keeps = [&](const std::vector<std::size_t>& cand) {
    if (budget <= 0 || cand.empty()) return false;
    --budget;
    const std::size_t took = reproduces(cand);
    if (took == 0) return false;
    cur.assign(cand.begin(), cand.begin() + static_cast<std::ptrdiff_t>(std::min(took, cand.size())));
    return true;
  };
  std::size_t parts = 2;
  while (cur.size() >= 2 && budget > 0) {
    parts = std::min(parts, cur.size());
    // The parts: as even as the sequence allows.
    std::vector<std::vector<std::size_t>> chunk(parts);
    for (std::size_t i = 0; i < cur.size(); ++i) chunk[i * parts / cur.size()].push_back(cur[i]);
    bool reduced = false;
    // One part alone: with two parts, the same as leaving the other out;
    // with more, a finding that takes inputs from several parts (as a lost
    // listener does) gains nothing from it and would spend a run on each.
    for (std::size_t p = 0; p < parts && !reduced && parts == 2; ++p)
      if (keeps(chunk[p])) reduced = true;
    // Every part but one.
    for (std::size_t p = 0; p < parts && !reduced && parts > 2; ++p) {
      std::vector<std::size_t> cand;
      for (std::size_t q = 0; q < parts; ++q)
        if (q != p) cand.insert(cand.end(), chunk[q].begin(), chunk[q].end());
      if (keeps(cand)) {
        parts = std::max<std::size_t>(parts - 1, 2);
        reduced = true;
      }
    }
    if (reduced) continue;
    if (parts >= cur.size()) break;  // single inputs tried: nothing more to leave out
    parts = std::min(parts * 2, cur.size());
  }
  return cur;
}

}  // namespace rdmaconf::conformance::wirefuzz
