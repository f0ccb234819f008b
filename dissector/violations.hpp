// Conformance violations as Wireshark expert infos.
//
// The observer (pcap/analysis/observer.hpp) finds them and names each by its
// row of pcap/analysis/rules.hpp: the catalogue's rule id, the requirement
// level and the section, exactly as `rdmaconf analyze` prints them. Here each
// becomes an expert info (severity from the level: MUST -> error, SHOULD ->
// warning, MAY -> note) whose message starts with the rule id,
//   "<rule id> <LEVEL>: <summary> (<section>): <what was seen>",
// and a filterable generated subtree (rdmaconf.violation.rule, .level,
// .section). When a known encoding mistake explains the octets (the
// observer's hint, reference/wire/hint.hpp), the expert message names it
// after the level ("<rule id> <LEVEL> [hint: <mistake>]: ...", where
// Wireshark's label length cannot cut it off) and the subtree holds the
// whole hint as rdmaconf.violation.hint. The plugin makes no check of its
// own: one source of truth.
#pragma once

#include <string>
#include <string_view>

#include "analysis/rules.hpp"
#include "plugin.hpp"

namespace rdmaconf::dissector {

// Adds the expert info and the subtree, highlighting [offset, offset+length)
// of tvb (length -1: to the end). `proto` selects which protocol's expert
// fields carry it (ids().proto_mpa, ...).
void report(int proto, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset, int length,
            const analysis::Rule& rule, const std::string& seen, const std::string& hint = {},
            std::string_view mistake = {});

// The protocol whose expert fields a rule's violations go under, by the RFC
// its id names (MPA, DDP, RDMAP, the ULPs, the DDP/SCTP adaptation layer;
// CLC otherwise).
int proto_of_rule(const analysis::Rule& rule);

}  // namespace rdmaconf::dissector
