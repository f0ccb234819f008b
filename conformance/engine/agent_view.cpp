// AgentView (agent_view.hpp).
#include "engine/agent_view.hpp"

#include <algorithm>

#include "engine/engine.hpp"

namespace rdmaconf::conformance {

std::string describe(const AgentEvent& e) {
  std::string out = e.kind + " " + e.name;
  if (!e.status.empty()) out += " " + e.status;
  if (e.kind == "completion") out += ", " + std::to_string(e.byte_len) + " octets";
  if (!e.detail.empty()) out += " (" + e.detail + ")";
  return out;
}

double AgentView::now_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0_).count();
}

std::string AgentView::resolve(const std::string& agent_key) {
  if (!serial_) return agent_key;
  if (const auto it = alias_.find(agent_key); it != alias_.end()) return it->second;
  if (cases_.count(agent_key)) return agent_key;  // no NAT after all
  // A connection the tester does not know by its addresses: the running
  // case's, when one runs (cases run one at a time in serial mode).
  if (current_.empty()) return agent_key;
  alias_[agent_key] = current_;
  return current_;
}

void AgentView::add(AgentEvent e) {
  {
    std::lock_guard lock(mu_);
    if (e.at_ms == 0) e.at_ms = now_ms();
    by_key_[resolve(key(e.local, e.peer))].push_back(std::move(e));
  }
  cv_.notify_all();
}

void AgentView::restart() {
  std::lock_guard lock(mu_);
  alias_.clear();
}

void AgentView::lost() {
  std::lock_guard lock(mu_);
  ++epoch_;
}

std::uint64_t AgentView::epoch() const {
  std::lock_guard lock(mu_);
  return epoch_;
}

void AgentView::begin_case(const std::string& tester, const std::string& iut) {
  std::lock_guard lock(mu_);
  const std::string k = key(iut, tester);
  cases_.insert(k);
  if (!serial_) return;
  current_ = k;
  // Events that arrived between the IUT's accept and now, under addresses
  // nobody claimed: this case's.
  for (auto it = by_key_.begin(); it != by_key_.end();) {
    if (it->first != k && !cases_.count(it->first) && !alias_.count(it->first) &&
        std::none_of(alias_.begin(), alias_.end(), [&](const auto& a) { return a.second == it->first; })) {
      alias_[it->first] = k;
      auto& dst = by_key_[k];
      dst.insert(dst.end(), it->second.begin(), it->second.end());
      std::sort(dst.begin(), dst.end(), [](const AgentEvent& a, const AgentEvent& b) { return a.at_ms < b.at_ms; });
      it = by_key_.erase(it);
    } else {
      ++it;
    }
  }
}

void AgentView::end_case(const std::string& tester, const std::string& iut) {
  std::lock_guard lock(mu_);
  const std::string k = key(iut, tester);
  if (current_ == k) current_.clear();
}

std::vector<AgentEvent> AgentView::events(const std::string& tester, const std::string& iut) const {
  std::lock_guard lock(mu_);
  const auto it = by_key_.find(key(iut, tester));
  return it == by_key_.end() ? std::vector<AgentEvent>{} : it->second;
}

bool AgentView::wait_for(const std::string& tester, const std::string& iut,
                         const std::function<bool(const AgentEvent&)>& pred,
                         std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock lock(mu_);
  const std::string k = key(iut, tester);
  return cv_.wait_until(lock, deadline, [&] {
    const auto it = by_key_.find(k);
    return it != by_key_.end() && std::any_of(it->second.begin(), it->second.end(), pred);
  });
}

bool is_agent_unit(const std::string& unit) {
  return unit == "agent.completion" || unit == "agent.async" || unit == "agent.connection";
}

bool agent_field_known(const std::string& field) {
  return field == "name" || field == "opcode" || field == "status" || field == "byte_len" || field == "detail";
}

std::string agent_match(const std::string& unit, const std::vector<AgentMatcher>& matchers, const AgentEvent& e) {
  if (unit != "agent." + e.kind) return "a " + e.kind + " event";
  for (const AgentMatcher& m : matchers) {
    bool equal = false;
    std::string got;
    if (m.field == "byte_len") {
      equal = e.byte_len == m.number;
      got = std::to_string(e.byte_len);
    } else if (m.field == "detail") {
      equal = e.detail.find(m.text) != std::string::npos;
      got = e.detail;
    } else {
      got = m.field == "status" ? e.status : e.name;
      equal = got == m.text;
    }
    if (equal == m.negate) return m.field + " " + (got.empty() ? "empty" : "'" + got + "'");
  }
  return {};
}

std::string expect_agent(const AgentView& view, const ExchangeRecord& ex, const Step& st,
                         std::chrono::milliseconds bound) {
  const Alternative& alt = st.alternatives.front();
  std::vector<AgentMatcher> matchers;
  for (const Arg& a : alt.args) {
    AgentMatcher m;
    m.field = a.name == "opcode" ? "name" : a.name;
    m.negate = a.op == Op::kNe;
    if (a.value.kind == Value::Kind::kNumber) {
      m.number = a.value.number;
      m.is_number = true;
      m.text = std::to_string(a.value.number);
    } else {
      m.text = a.value.text;
    }
    // Event names are one word with underscores; scripts may write spaces
    // as underscores in statuses too ("local_length_error").
    if (m.field == "status") std::replace(m.text.begin(), m.text.end(), '_', ' ');
    matchers.push_back(std::move(m));
  }
  const auto deadline = std::chrono::steady_clock::now() + bound;
  if (view.wait_for(ex.tester_address, ex.iut_address,
                    [&](const AgentEvent& e) { return agent_match(alt.unit, matchers, e).empty(); }, deadline))
    return {};
  std::string seen;
  for (const AgentEvent& e : view.events(ex.tester_address, ex.iut_address)) {
    if (!seen.empty()) seen += "; ";
    seen += describe(e);
  }
  const auto from = st.text.find_first_not_of("< ");
  const std::string what = from == std::string::npos ? alt.unit : st.text.substr(from);
  return "the IUT reported no " + what + " within " +
         std::to_string(bound.count()) + " ms (it reported: " + (seen.empty() ? "nothing" : seen) + ")";
}

void collect_agent_view(AgentView& view, CaseResult& result, double t0_ms, std::chrono::milliseconds settle) {
  const auto& ex = result.exchange;
  view.wait_for(ex.tester_address, ex.iut_address,
                [](const AgentEvent& e) { return e.kind == "connection" && e.name == "closed"; },
                std::chrono::steady_clock::now() + settle);
  view.end_case(ex.tester_address, ex.iut_address);
  result.agent = view.events(ex.tester_address, ex.iut_address);
  for (AgentEvent& e : result.agent) e.at_ms -= t0_ms;
}

}  // namespace rdmaconf::conformance
