// What one SctpLink (endpoint/sctp_link.hpp) reported, waited on by a test:
// the link tests of both stacks (usrsctp_link_test.cpp,
// kernel_sctp_link_test.cpp) record its events here, and a passive link may
// echo every message back on the association it came on.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "endpoint/sctp_link.hpp"

namespace rdmaconf::endpoint::sctp_link_testing {

struct LinkSeen {
  std::mutex mu;
  std::condition_variable cv;
  std::map<AssociationId, SctpUp> up;
  std::vector<std::pair<AssociationId, SctpMessage>> messages;
  int dry = 0;
  int gone = 0;

  // Until `done` holds (under the lock), at most 5 s; false when it did not.
  template <typename P>
  bool wait(P done) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(5), [&] { return done(); });
  }
};

// Events that record into `seen`; with `echo_on` pointing at a link, each
// message is sent back on it first.
inline SctpEvents seen_events(LinkSeen& seen, SctpLink** echo_on = nullptr) {
  const auto note = [&seen](auto change) {
    std::lock_guard lock(seen.mu);
    change();
    seen.cv.notify_all();
  };
  SctpEvents e;
  e.up = [note, &seen](AssociationId id, const SctpUp& up) { note([&] { seen.up[id] = up; }); };
  e.message = [note, &seen, echo_on](AssociationId id, SctpMessage m) {
    if (echo_on && *echo_on) {
      std::string why;
      (*echo_on)->send(id, m, why);
    }
    note([&] { seen.messages.emplace_back(id, std::move(m)); });
  };
  e.dry = [note, &seen](AssociationId) { note([&] { ++seen.dry; }); };
  e.gone = [note, &seen](AssociationId, const std::string&) { note([&] { ++seen.gone; }); };
  return e;
}

}  // namespace rdmaconf::endpoint::sctp_link_testing
