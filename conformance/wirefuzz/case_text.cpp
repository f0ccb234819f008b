// Printing a case back into the script language (case_text.hpp).
#include "wirefuzz/case_text.hpp"

#include <cstdio>

namespace rdmaconf::conformance::wirefuzz {
namespace {

std::string duration_text(Duration d) { return std::to_string(d.count()) + "ms"; }

std::string hex_text(const std::vector<std::uint8_t>& bytes) {
  std::string out = "hex:";
  char b[3];
  for (std::uint8_t o : bytes) {
    std::snprintf(b, sizeof b, "%02x", o);
    out += b;
  }
  return out;
}

}  // namespace

std::string value_text(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kNone: return {};
    case Value::Kind::kNumber: return std::to_string(v.number);
    case Value::Kind::kString: {
      std::string out = "\"";
      for (char c : v.text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
      }
      return out + "\"";
    }
    case Value::Kind::kBytes: return hex_text(v.bytes);
    case Value::Kind::kWord: return v.text;
    case Value::Kind::kVariable:
      return "$" + v.text + (v.offset > 0 ? "+" + std::to_string(v.offset) : v.offset < 0 ? std::to_string(v.offset) : "");
    case Value::Kind::kCapture: return "@" + v.text;
  }
  return {};
}

std::string arg_text(const Arg& a) {
  std::string out = a.name;
  if (a.mask) out += "&" + std::to_string(*a.mask);
  if (!a.has_value) return out;
  const std::string_view op = a.op == Op::kNone ? std::string_view("=") : to_string(a.op);
  // A duration is written as one (pause=30ms): the parser reads it as a number of milliseconds.
  if (a.name == "pause" && a.value.kind == Value::Kind::kNumber) return out + "=" + std::to_string(a.value.number) + "ms";
  return out + std::string(op) + value_text(a.value);
}

std::string step_text(const Step& st) {
  auto args = [](const std::vector<Arg>& list) {
    std::string out;
    for (const Arg& a : list) out += " " + arg_text(a);
    return out;
  };
  switch (st.kind) {
    case StepKind::kHandshake: return "handshake" + args(st.args);
    case StepKind::kSend:
      // `> raw hex:...`: its octets come first, without a name (the parser calls them `octets`).
      if (st.unit == "raw" && !st.args.empty() && st.args.front().name == "octets")
        return "> raw " + value_text(st.args.front().value) +
               args(std::vector<Arg>(st.args.begin() + 1, st.args.end()));
      return "> " + st.unit + args(st.args);
    case StepKind::kWait: return "wait " + duration_text(st.duration) + (st.unscaled ? " unscaled" : "");
    case StepKind::kConnection: return "connection " + std::to_string(st.connection);
    case StepKind::kExpect: {
      std::string out = "<";
      for (std::size_t i = 0; i < st.alternatives.size(); ++i)
        out += (i ? " | " : " ") + st.alternatives[i].unit + args(st.alternatives[i].args);
      if (st.within) out += " within " + duration_text(*st.within);
      return out;
    }
  }
  return {};
}

std::string case_text(const Case& c) {
  std::string out;
  auto key = [&out](std::string_view k, const std::string& v) {
    if (!v.empty()) out += std::string(k) + std::string(13 - k.size(), ' ') + v + "\n";
  };
  auto list = [](const std::vector<std::string>& items) {
    std::string s;
    for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
    return s;
  };
  key("id:", c.id);
  key("title:", c.title);
  key("requirement:", list(c.requirements));
  key("rfc:", c.rfc);
  key("level:", std::string(to_string(c.level)));
  key("role:", std::string(to_string(c.role)));
  key("needs:", list(c.needs));
  key("timeout:", duration_text(c.timeout));
  if (c.skip_after_close) key("after_close:", "skip");
  out += "\n";
  for (const Step& st : c.steps) out += step_text(st) + "\n";
  return out;
}

}  // namespace rdmaconf::conformance::wirefuzz
