// Seeds of smcr_link_group (targets/smcr_link_group.cpp): the
// configuration octet, then commands. Each reaches one exchange of the link
// group: bring-up in both versions, a second link (v1's continuations, v2's
// extension), TEST LINK and its timer, DELETE LINK, failover, the rkey
// exchanges, and injected messages built by the encoders (encode.hpp) that
// the machine must judge: a reply nobody asked for, an unknown type, a
// CONFIRM LINK naming another QP, a DELETE LINK naming no link.
#include "corpus_gen/seeds.hpp"
#include "smcr/encode.hpp"

namespace rdmaconf::corpus_gen {
namespace {

// Configuration bits (targets/smcr_link_group.cpp).
constexpr std::uint8_t kV2 = 1, kAlternates = 2, kSecondLink = 4, kTestLink = 8;
// Commands.
constexpr std::uint8_t kInject = 0, kTime = 2, kLocal = 3, kBreak = 4, kPoll = 5;
// Sides: bit 0 server, bits 1-2 the link's slot.
constexpr std::uint8_t kServer = 1, kClient = 0;

Octets inject(std::uint8_t side, const Octets& m) {
  return cat({{kInject, side, static_cast<std::uint8_t>(m.size() >> 8), static_cast<std::uint8_t>(m.size())}, m});
}

Octets wait_steps(std::uint16_t steps) {  // 16 ms each
  return {kTime, static_cast<std::uint8_t>(steps >> 8), static_cast<std::uint8_t>(steps)};
}

}  // namespace

void smcr_link_group() {
  const std::string t = "smcr_link_group";
  put(t, "bringup_v1", {0});
  put(t, "bringup_v2", {kV2});
  put(t, "second_link_v1", {kAlternates | kSecondLink});
  put(t, "second_link_v2", {kV2 | kAlternates | kSecondLink});
  // 32 s of quiet: TEST LINK both ways; then a deaf peer's link times out.
  put(t, "test_link", cat({{kTestLink}, wait_steps(2048)}));
  put(t, "failover_v2", {kV2 | kAlternates | kSecondLink, kBreak, kServer, kPoll});
  put(t, "failover_v1", {kAlternates | kSecondLink, kBreak, kClient, kPoll});
  // Local requests: an RMB added and deleted by the server, a link deleted.
  put(t, "rkeys", {0, kLocal, kServer, 2, 0, kPoll, kLocal, kServer, 3, 0, kPoll});
  put(t, "delete_link", {kAlternates | kSecondLink, kLocal, kServer, 0x81, 2, kPoll});
  put(t, "client_requests_link_v2", {kV2 | kAlternates, kLocal, kClient, 0, 0, kPoll});
  put(t, "connection_cdc", {0, kLocal, kServer, 4, 9, kLocal, kClient, 4, 9, kLocal, kClient, 5, 9, 0, 1, kPoll});
  // Injected messages, built by the encoders.
  put(t, "reply_without_request", cat({{0}, inject(kServer, smcr::encode(smcr::TestLink{true, {}}))}));
  Octets unknown(44, 0);
  unknown[0] = 0x0a;
  unknown[1] = 44;
  put(t, "unknown_type", cat({{0}, inject(kServer, unknown)}));
  unknown[0] = 0x8a;
  put(t, "optional_type", cat({{0}, inject(kClient, unknown)}));
  put(t, "delete_unknown_link",
      cat({{0}, inject(kClient, smcr::encode(smcr::DeleteLink{false, false, true, 7, smcr::delete_reason::kLostPath}))}));
  put(t, "delete_all",
      cat({{kV2}, inject(kClient, smcr::encode(smcr::DeleteLink{false, true, false, 0, smcr::delete_reason::kLostPath},
                                               {2, std::nullopt}))}));
  smcr::ConfirmRkey rkey;
  rkey.this_link = {0x4242, 0x1000};
  put(t, "peer_confirm_rkey", cat({{0}, inject(kClient, smcr::encode(rkey))}));
  smcr::DeleteRkey del;
  del.rkeys = {0x4242, 0x1000};
  put(t, "peer_delete_rkey_v2", cat({{kV2}, inject(kServer, smcr::encode(del, {2, std::nullopt}))}));
  smcr::AddLink add;
  add.link_number = 2;
  add.mtu = 3;
  add.qp_number = 0x100;
  put(t, "peer_add_link", cat({{0}, inject(kClient, smcr::encode(add))}));
  put(t, "bad_length", cat({{0}, inject(kServer, smcr::encode(smcr::TestLink{}, {1, 40}))}));
}

}  // namespace rdmaconf::corpus_gen
