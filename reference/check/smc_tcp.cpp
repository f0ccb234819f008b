#include "check/smc_tcp.hpp"

#include <algorithm>

namespace rdmaconf::check {
namespace {
constexpr Implementation kImplementations[] = {
    {&kOptionInSyn, "option_in_syn"},
    {&kOptionInSynAck, "option_in_synack"},
    {&kBothOrTcp, "both_or_tcp"},
    {&kNoClcWithoutOption, "no_clc_without_option"},
    {&kOptionKind, "option_kind"},
    {&kOptionExid, "option_exid"},
    // The CDC close flags are the capture analyzer's to find (the link
    // group's observer, tied to the TCP connection by the CLC tokens).
    {&kFinAfterSmcClose, "fin_after_smc_close"},
};
constexpr const Rule* kRules[] = {&kOptionInSyn, &kOptionInSynAck, &kBothOrTcp,       &kNoClcWithoutOption,
                                  &kOptionKind,  &kOptionExid,     &kFinAfterSmcClose};

using OF = clc::SmcTcpOptionSpec::Field;

Violation at(const Rule& r, OF f, std::uint64_t seen, std::uint64_t expected) {
  const wire::FieldDecl& d = clc::SmcTcpOption::field_decl(f);
  return Violation{&r, d.name, d.octet_offset(), seen, expected};
}

// Another experiment's option, not a SMC option in a wrong form.
bool known_other(const clc::ExperimentalOption& o) {
  return (o.exid & 0xFFFF0000u) == kTcpFastOpenExid;
}
// An option the side may have meant as its SMC option: a verdict of its
// form (option_kind, option_exid) says more than "no option".
bool meant_as_smc(const SynSmc& syn) {
  const auto kept = syn.experimental.kept();
  return std::any_of(kept.begin(), kept.end(), [](const clc::ExperimentalOption& o) { return !known_other(o); });
}
// "The option": what the rules of §3.1 ask for, seen is 0 (absent).
Violation absent(const Rule& r) { return at(r, OF::ExId, 0, clc::kTcpOptionSmcExId); }
}  // namespace

Outcome option_kind(const clc::ExperimentalOption& o) {
  if (!o.smc_exid()) return std::nullopt;
  if (o.kind != clc::kTcpOptionKindExperimental) return at(kOptionKind, OF::Kind, o.kind, clc::kTcpOptionKindExperimental);
  if (o.length != clc::kTcpOptionLengthSmc) return at(kOptionKind, OF::Length, o.length, clc::kTcpOptionLengthSmc);
  return std::nullopt;
}

Outcome option_exid(const SynSmc& syn) {
  if (syn.option) return std::nullopt;
  for (const clc::ExperimentalOption& o : syn.experimental.kept())
    if (!known_other(o)) return at(kOptionExid, OF::ExId, o.exid, clc::kTcpOptionSmcExId);
  return std::nullopt;
}

Outcome option_in_syn(const SynSmc& syn) {
  if (syn.option || meant_as_smc(syn)) return std::nullopt;
  return absent(kOptionInSyn);
}

Outcome option_in_synack(const SynSmc& syn, const SynSmc& synack) {
  if (!syn.option || synack.option || meant_as_smc(synack)) return std::nullopt;
  return absent(kOptionInSynAck);
}

Outcome both_or_tcp(const SynSmc& syn, const SynSmc& synack) {
  if (syn.option && synack.option) return std::nullopt;
  return absent(kBothOrTcp);
}

Outcome no_clc_without_option(const SynSmc& synack) {
  if (synack.option) return std::nullopt;
  return absent(kNoClcWithoutOption);
}

Outcome fin_after_smc_close(bool done_writing) {
  if (done_writing) return std::nullopt;
  return Violation{&kFinAfterSmcClose, "PeerDoneWriting", 0, 0, 1};
}

std::span<const Implementation> smc_tcp_implementations() { return kImplementations; }
std::span<const Rule* const> smc_tcp_rules() { return kRules; }

}  // namespace rdmaconf::check
