// What the two SctpLink implementations (usrsctp_link.cpp,
// kernel_sctp_link.cpp) do alike, whichever stack carries their packets:
// connect() and listen() run on the link's I/O thread, which alone touches
// its sockets, while the caller waits for the outcome; the active side has
// one association (id 0), the passive side numbers those it accepts and
// keeps at most SctpLinkConfig::max_associations of them open; a link is
// one or the other. Each link adds only its stack's calls.
//
// The functions take the link's state by duck typing: `io`, `config`, and
// `mu` guarding `listening`, `assocs` (AssociationId to the stack's own
// Assoc, each with `gone`) and `next_id`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <future>
#include <mutex>
#include <string>

#include "endpoint/asio.hpp"
#include "endpoint/sctp_link.hpp"

namespace rdmaconf::endpoint::sctp_link_impl {

// Runs `step` on `io`'s thread and waits for it; `step` returns empty, or
// why it failed. False with `error` then. Never from `io`'s own thread.
template <typename Step>
bool run_on_io_thread(asio::io_context& io, Step step, std::string& error) {
  std::promise<std::string> outcome;
  asio::post(io, [&] { outcome.set_value(step()); });
  error = outcome.get_future().get();
  return error.empty();
}

// The active side's association, id 0, given its socket by `take` under
// the link's lock; empty, or why not (the link listens, or has one).
template <typename Link, typename Take>
std::string claim_active(Link& p, Take take) {
  std::lock_guard lock(p.mu);
  if (p.listening || !p.assocs.empty()) return "the link already has an association";
  take(p.assocs[0]);
  p.next_id = 1;
  return {};
}

// Whether the link goes on to listen: false when it listens already (and
// `error` stays empty) or has an active association (`error` says so).
template <typename Link>
bool claim_passive(Link& p, std::string& error) {
  std::lock_guard lock(p.mu);
  if (p.listening) return false;
  if (!p.assocs.empty()) return error = "the link already has an association", false;
  p.listening = true;
  return true;
}

// connect(): on the link's I/O thread, the active side's association
// claimed (`take` gives it its socket), then `connect` starts the stack's
// association setup (empty, or why it could not).
template <typename Link, typename Take, typename Connect>
bool connect_active(Link& p, Take take, Connect connect, std::string& error) {
  return run_on_io_thread(
      p.io,
      [&]() -> std::string {
        if (std::string e = claim_active(p, take); !e.empty()) return e;
        return connect();
      },
      error);
}

// listen(): on the link's I/O thread, unless it listens already or has an
// active association, `listen` with the backlog (the associations the link
// keeps open, at most 64); empty, or why it could not.
template <typename Link, typename Listen>
bool listen_passive(Link& p, Listen listen, std::string& error) {
  return run_on_io_thread(
      p.io,
      [&]() -> std::string {
        std::string e;
        if (!claim_passive(p, e)) return e;
        return listen(static_cast<int>(std::min<std::size_t>(p.config.max_associations, 64)));
      },
      error);
}

// Whether one more accepted association stays under the limit; under the
// link's lock. One beyond it is shut down at once, never served.
template <typename Link>
bool room_for_another(const Link& p) {
  std::size_t open = 0;
  for (const auto& [id, a] : p.assocs) open += a.gone ? 0 : 1;
  return open < p.config.max_associations;
}

}  // namespace rdmaconf::endpoint::sctp_link_impl
