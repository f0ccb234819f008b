// What the seed generator's files share (fuzz_make_corpus: make_corpus.cpp
// writes the seeds of every target, ulp_seeds.cpp those of the upper-layer
// protocols over RDMAP for capture_observer and SMB Direct's for ulp_message).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace rdmaconf::corpus_gen {

using Octets = std::vector<std::uint8_t>;

// Writes one seed, OUTPUT_DIR/<target>/<name>; exits on a write error.
void put(const std::string& target, const std::string& name, const Octets& bytes);
Octets cat(std::initializer_list<Octets> parts);
// n octets of a fixed pattern that starts at `seed`.
Octets pattern(std::size_t n, std::uint8_t seed);
// capture_observer's events: data of one side in pieces of at most 256.
void observer_data(Octets& out, bool responder, const Octets& data);

// capture_observer's events of one iWARP connection: Request and Reply
// (`markers` asked for by both), then `segments` framed by their senders.
Octets iwarp_session_events(const std::vector<Octets>& segments, const std::vector<bool>& from_initiator,
                            bool markers);

void capture_observer_ulps();
void ulp_message_smbd();
// smcr_link_group's seeds (smcr_link_group_seeds.cpp).
void smcr_link_group();
// smcr_connection's seeds (smcr_seeds.cpp).
void smcr_connection();
// sctp_message's and sctp_session's seeds (sctp_seeds.cpp).
void sctp_all();

}  // namespace rdmaconf::corpus_gen
