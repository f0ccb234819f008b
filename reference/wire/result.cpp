#include "wire/result.hpp"

namespace rdmaconf::wire {

std::string DecodeError::to_string() const {
  std::string s;
  s.reserve(field.size() + rule.size() + rfc_section.size() + 24);
  s.append(field).append(": ").append(rule).append(" (").append(rfc_section);
  s.append(", octet ").append(std::to_string(offset)).append(")");
  return s;
}

}  // namespace rdmaconf::wire
