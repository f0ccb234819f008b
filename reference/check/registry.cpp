#include "check/registry.hpp"

#include "check/clc.hpp"
#include "check/mpa_startup.hpp"
#include "check/mpa_tcp.hpp"
#include "check/segment.hpp"
#include "check/smc_tcp.hpp"
#include "check/smcr.hpp"
#include "check/ulp.hpp"

namespace rdmaconf::check {
namespace {

// One line per rule file.
constexpr RuleFile kFiles[] = {
    {"segment", segment_implementations, segment_rules},
    {"smcr", smcr_implementations, smcr_rules},
    {"ulp", ulp_implementations, ulp_rules},
    {"mpa_startup", mpa_startup_implementations, mpa_startup_rules},
    {"mpa_tcp", mpa_tcp_implementations, mpa_tcp_rules},
    {"clc", clc_implementations, clc_rules},
    {"smc_tcp", smc_tcp_implementations, smc_tcp_rules},
};
constexpr RuleFile kLocalFiles[] = {
    {"clc_local", clc_local_implementations, clc_local_rules},
};

}  // namespace

std::span<const RuleFile> rule_files() { return kFiles; }
std::span<const RuleFile> local_rule_files() { return kLocalFiles; }

std::vector<Implementation> implementations() {
  std::vector<Implementation> all;
  for (const auto& files : {std::span<const RuleFile>(kFiles), std::span<const RuleFile>(kLocalFiles)})
    for (const RuleFile& f : files)
      for (const Implementation& i : f.implementations()) all.push_back(i);
  return all;
}

std::vector<const Rule*> all_rules() {
  std::vector<const Rule*> all;
  for (const RuleFile& f : kFiles)
    for (const Rule* r : f.rules()) all.push_back(r);
  return all;
}

std::vector<const Rule*> local_rules() {
  std::vector<const Rule*> all;
  for (const RuleFile& f : kLocalFiles)
    for (const Rule* r : f.rules()) all.push_back(r);
  return all;
}

const Implementation* find_implementation(std::string_view id) {
  for (const auto& files : {std::span<const RuleFile>(kFiles), std::span<const RuleFile>(kLocalFiles)})
    for (const RuleFile& f : files)
      for (const Implementation& i : f.implementations())
        if (i.rule->id == id) return &i;
  return nullptr;
}

}  // namespace rdmaconf::check
