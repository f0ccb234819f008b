// The control channel's request -> response function (control.hpp).
#include "agent/control.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

#include "agent/json.hpp"
#include "json_depth.hpp"

namespace rdmaconf::agent {

using nlohmann::json;

namespace {

// "a=1&b=2" -> value of `key`; false when the key is absent.
bool query_value(std::string_view query, std::string_view key, std::string_view& value) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      return true;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

bool query_number(std::string_view query, std::string_view key, std::uint64_t& out, std::string& error) {
  std::string_view v;
  if (!query_value(query, key, v)) return true;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size() || v.empty()) {
    error = "query parameter '" + std::string(key) + "' must be a whole number";
    return false;
  }
  return true;
}

HttpResponse ok(const json& j) { return {200, dump(j)}; }

json handle_json(const Handle& h) { return {{"id", h.id}, {"address", h.address}}; }

HttpResponse backend_outcome(const Outcome<Handle>& o) {
  if (!o) return error_response(422, o.error.message.empty() ? "the backend refused" : o.error.message);
  return ok(handle_json(*o.value));
}

// Reads {"host": ..., "port": ...} shared by listen and connect bodies.
bool host_port(const json& j, std::string& host, std::uint16_t& port, bool host_required, std::string& error) {
  if (const auto it = j.find("host"); it != j.end() && !it->is_null()) {
    if (!it->is_string() || it->get_ref<const std::string&>().size() > 255) {
      error = "'host' must be a string of at most 255 characters";
      return false;
    }
    host = it->get<std::string>();
  }
  if (host_required && host.empty()) {
    error = "'host' is required";
    return false;
  }
  if (const auto it = j.find("port"); it != j.end() && !it->is_null()) {
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() > 65535) {
      error = "'port' must be a whole number from 0 to 65535";
      return false;
    }
    port = static_cast<std::uint16_t>(it->get<std::uint64_t>());
  } else if (host_required) {
    error = "'port' is required";
    return false;
  }
  return true;
}

bool case_id(const json& j, std::string& out, std::string& error) {
  if (const auto it = j.find("case"); it != j.end() && !it->is_null()) {
    if (!it->is_string() || it->get_ref<const std::string&>().size() > 200) {
      error = "'case' must be a string of at most 200 characters";
      return false;
    }
    out = it->get<std::string>();
  }
  return true;
}

}  // namespace

void EventLog::push(Event e) {
  {
    std::lock_guard lock(mu_);
    events_.emplace_back(next_++, std::move(e));
    while (events_.size() > capacity_) events_.pop_front();
  }
  cv_.notify_all();
  call_wake();
}

void EventLog::set_wake(std::function<void()> wake) {
  std::lock_guard lock(wake_mu_);
  wake_ = std::move(wake);
}

void EventLog::call_wake() {
  std::lock_guard lock(wake_mu_);
  if (wake_) wake_();
}

std::vector<std::pair<std::uint64_t, Event>> EventLog::since(std::uint64_t after, std::size_t max,
                                                             std::chrono::milliseconds wait, std::uint64_t& dropped) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, wait, [&] { return closed_ || next_ - 1 > after; });
  std::vector<std::pair<std::uint64_t, Event>> out;
  const std::uint64_t oldest = events_.empty() ? next_ : events_.front().first;
  dropped = oldest > after + 1 ? oldest - after - 1 : 0;
  // Numbers are consecutive: the first wanted is found by arithmetic, so a
  // reader that is up to date costs nothing however long the buffer.
  const std::uint64_t first = after >= oldest ? after - oldest + 1 : 0;
  for (std::uint64_t i = first; i < events_.size() && out.size() < max; ++i) out.push_back(events_[i]);
  return out;
}

std::uint64_t EventLog::last() const {
  std::lock_guard lock(mu_);
  return next_ - 1;
}

void EventLog::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
  call_wake();
}

bool constant_time_equal(std::string_view a, std::string_view b) {
  // The length of the token is not secret (it is fixed); its octets are.
  unsigned diff = a.size() == b.size() ? 0u : 1u;
  const std::size_t n = std::max(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

HttpResponse error_response(int status, std::string_view message) {
  return {status, dump(json{{"error", {{"status", status}, {"message", message}}}})};
}

Control::Control(Backend& backend, std::string token, ControlLimits limits)
    : backend_(backend), token_(std::move(token)), limits_(limits), events_(limits.event_buffer) {
  backend_.set_event_sink([this](Event e) { events_.push(std::move(e)); });
}

bool Control::authorized(std::string_view authorization) const {
  constexpr std::string_view kScheme = "Bearer ";
  if (token_.empty() || authorization.size() < kScheme.size()) return false;
  // RFC 6750 §2.1: the scheme name is case-insensitive.
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != std::tolower(static_cast<unsigned char>(kScheme[i])))
      return false;
  return constant_time_equal(authorization.substr(kScheme.size()), token_);
}

bool Control::stream_target(std::string_view target, std::uint64_t& after, HttpResponse& error) const {
  const auto q = target.find('?');
  const std::string_view path = target.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  if (path != "/v1/events/stream") {
    error = error_response(404, "no WebSocket at " + std::string(path) + " (the event stream is /v1/events/stream)");
    return false;
  }
  after = 0;
  std::string why;
  if (!query_number(query, "after", after, why)) {
    error = error_response(400, why);
    return false;
  }
  return true;
}

HttpResponse Control::handle(const HttpRequest& r) {
  if (r.target.size() > limits_.max_target) return error_response(414, "request target too long");
  if (!authorized(r.authorization))
    return error_response(401, "missing or wrong bearer token (Authorization: Bearer TOKEN, printed by rdmaconf-agent at start)");
  if (r.body.size() > limits_.max_request_body)
    return error_response(413, "request body over " + std::to_string(limits_.max_request_body) + " octets");
  const auto q = r.target.find('?');
  const std::string_view target(r.target);
  const std::string_view path = target.substr(0, q);
  const std::string_view query = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);

  auto method_is = [&](std::string_view m) { return r.method == m; };
  // GET requests carry no body; POST bodies are one JSON object.
  json body = json::object();
  if (method_is("POST") && !r.body.empty()) {
    if (!http::json_nesting_within(r.body, limits_.max_json_depth))
      return error_response(400, "JSON nested deeper than " + std::to_string(limits_.max_json_depth));
    body = json::parse(r.body, nullptr, false);
    if (body.is_discarded()) return error_response(400, "body is not valid JSON");
    if (!body.is_object()) return error_response(400, "body must be a JSON object");
  }
  std::string error;
  try {
    if (path == "/v1/info") {
      if (!method_is("GET")) return error_response(405, "use GET for /v1/info");
      return ok({{"api", kApiVersion}, {"agent", "rdmaconf-agent"}, {"backend", backend_.capabilities().backend},
                 {"last_event", events_.last()}});
    }
    if (path == "/v1/capabilities") {
      if (!method_is("GET")) return error_response(405, "use GET for /v1/capabilities");
      const Capabilities c = backend_.capabilities();
      return ok({{"capabilities", to_json(c)}, {"lacks", lacks(c)}});
    }
    if (path == "/v1/events") {
      if (!method_is("GET")) return error_response(405, "use GET for /v1/events");
      std::uint64_t after = 0, max = limits_.max_events_per_poll, wait_ms = 0;
      if (!query_number(query, "after", after, error) || !query_number(query, "max", max, error) ||
          !query_number(query, "wait_ms", wait_ms, error))
        return error_response(400, error);
      max = std::min<std::uint64_t>(std::max<std::uint64_t>(max, 1), limits_.max_events_per_poll);
      const auto wait = std::min(std::chrono::milliseconds(std::min<std::uint64_t>(wait_ms, 1u << 20)), limits_.max_poll_wait);
      std::uint64_t dropped = 0;
      json list = json::array();
      std::uint64_t next = after;
      for (const auto& [seq, ev] : events_.since(after, max, wait, dropped)) {
        list.push_back(to_json(ev, seq));
        next = seq;
      }
      return ok({{"events", list}, {"next", next}, {"dropped", dropped}});
    }
    if (path == "/v1/kernel-log") {
      if (!method_is("GET")) return error_response(405, "use GET for /v1/kernel-log");
      std::uint64_t after = 0, max = limits_.max_events_per_poll;
      if (!query_number(query, "after", after, error) || !query_number(query, "max", max, error))
        return error_response(400, error);
      if (!kernel_log_) return ok({{"available", false}, {"reason", "this agent was started without a kernel log"}});
      max = std::min<std::uint64_t>(std::max<std::uint64_t>(max, 1), limits_.max_events_per_poll);
      const KernelLogPage page = kernel_log_(after, static_cast<std::size_t>(max));
      if (!page.available) return ok({{"available", false}, {"reason", page.reason}, {"boot_id", page.boot_id}});
      json lines = json::array();
      for (const auto& [seq, text] : page.lines) lines.push_back({{"seq", seq}, {"text", text}});
      return ok({{"available", true}, {"boot_id", page.boot_id}, {"lines", lines}, {"next", page.next},
                 {"dropped", page.dropped}});
    }
    const bool listen = path == "/v1/listen", connect = path == "/v1/connect";
    const bool clc_listen = path == "/v1/clc/listen", clc_connect = path == "/v1/clc/connect";
    if (listen || connect || clc_listen || clc_connect || path == "/v1/close") {
      if (!method_is("POST")) return error_response(405, "use POST for " + std::string(path));
    } else {
      return error_response(404, "no such request: " + std::string(path) + " (docs/agent.md lists them)");
    }
    if (path == "/v1/close") {
      const auto it = body.find("id");
      if (it == body.end() || !it->is_number_unsigned()) return error_response(400, "'id' (a listener or connection id) is required");
      const Outcome<bool> o = backend_.close(it->get<std::uint64_t>());
      if (!o) return error_response(404, o.error.message);
      return ok({{"closed", it->get<std::uint64_t>()}});
    }
    std::optional<MpaConfig> mpa = MpaConfig{};
    if (const auto it = body.find("mpa"); it != body.end()) mpa = mpa_from_json(*it, error);
    if (!mpa) return error_response(400, error);
    if (listen) {
      ListenRequest lr;
      lr.mpa = *mpa;
      if (!host_port(body, lr.host, lr.port, false, error)) return error_response(400, error);
      return backend_outcome(backend_.listen(lr));
    }
    if (connect) {
      ConnectRequest cr;
      cr.mpa = *mpa;
      if (!host_port(body, cr.host, cr.port, true, error) || !case_id(body, cr.case_id, error))
        return error_response(400, error);
      return backend_outcome(backend_.connect(cr));
    }
    if (clc_listen) {
      ClcListenRequest lr;
      if (!host_port(body, lr.host, lr.port, false, error)) return error_response(400, error);
      return backend_outcome(backend_.clc_listen(lr));
    }
    ClcConnectRequest cr;
    if (!host_port(body, cr.host, cr.port, true, error) || !case_id(body, cr.case_id, error))
      return error_response(400, error);
    return backend_outcome(backend_.clc_connect(cr));
  } catch (const json::exception& e) {
    // Every read above checks its type first; this is the net under it.
    return error_response(400, std::string("malformed request: ") + e.what());
  }
}

}  // namespace rdmaconf::agent
