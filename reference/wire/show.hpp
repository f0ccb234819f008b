// Octets that came where a protocol was expected, shown as a person reads
// them: what a target answered instead of an MPA Reply, what a file holds
// instead of a capture header. Text (an HTTP status line, an SSH banner) is
// shown as text, escaped; anything else as hex.
#pragma once

#include <cstddef>
#include <string>

#include "wire/bytes.hpp"

namespace rdmaconf::wire {

// When the octets are text (printable ASCII, tab, CR, LF): the first line,
// at most `max_text` characters, with control characters escaped
// ("HTTP/1.1 400 Bad Request"); otherwise the first `max_hex` octets as hex
// ("16 03 01 02 00"). "..." marks anything left out. Empty octets: "".
std::string show_octets(Bytes b, std::size_t max_text = 72, std::size_t max_hex = 16);

}  // namespace rdmaconf::wire
