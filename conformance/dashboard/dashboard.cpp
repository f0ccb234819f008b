// The dashboard's API (dashboard.hpp; docs/dashboard.md is the reference).
#include "dashboard/dashboard.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include "dashboard/assets.hpp"
#include "dashboard/captures.hpp"
#include "dashboard/case_json.hpp"
#include "http_server.hpp"
#include "dashboard/api_support.hpp"
#include "json_depth.hpp"
#include "report/report_json.hpp"
#include "requirement.hpp"
#include "dashboard/run_findings.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;

namespace {

using namespace api_support;

// RFC 9110 §15.5.20: 421, a request for a name this server does not answer for.
http::Response wrong_host(const std::string& host) {
  return error(421, "this dashboard does not answer to the name '" + host.substr(0, 200) +
                        "' (IP addresses and localhost are always answered; rdmaconf serve --allow-host NAME adds one)");
}

bool query_number(std::string_view query, std::string_view key, std::int64_t& out) {
  std::string_view v;
  if (!http::query_value(query, key, v)) return true;
  return whole_number(v, out);
}

// "/api/runs/12/cases/3" -> {"api","runs","12","cases","3"}
std::vector<std::string_view> segments(std::string_view path) {
  std::vector<std::string_view> out;
  while (!path.empty()) {
    if (path.front() == '/') {
      path.remove_prefix(1);
      continue;
    }
    const auto slash = path.find('/');
    out.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash);
  }
  return out;
}

json run_summary_event(const RunRow& r) { return {{"type", "run"}, {"run", r.to_json()}}; }

bool is_failure(const std::string& v) { return v == "fail" || v == "error"; }

// Severity for "the worst verdict": fail first, pass last.
int severity(const std::string& v) {
  static const char* const order[] = {"fail", "error", "non-strict", "unimplemented", "informational", "pass"};
  for (int i = 0; i < 6; ++i)
    if (v == order[i]) return i;
  return 6;
}

}  // namespace

json diff_runs(const json& a_cases, const json& b_cases) {
  using Key = std::pair<std::string, std::string>;  // case id, configuration
  std::map<Key, const json*> a, b;
  for (const json& c : a_cases) a[{c.value("id", ""), c.value("configuration", "")}] = &c;
  for (const json& c : b_cases) b[{c.value("id", ""), c.value("configuration", "")}] = &c;
  json out = {{"new_failures", json::array()}, {"fixed", json::array()}, {"changed", json::array()},
              {"added", json::array()},        {"removed", json::array()}, {"unchanged", 0}};
  auto entry = [](const Key& k, const json* x, const json* y) {
    json e = {{"id", k.first}, {"configuration", k.second}};
    const json& any = y ? *y : *x;
    e["protocol"] = any.value("protocol", "");
    e["level"] = any.value("level", "");
    e["title"] = any.value("title", "");
    if (x) e["before"] = {{"verdict", x->value("verdict", "")}, {"reason", x->value("reason", "")}, {"seq", x->value("seq", 0)}};
    if (y) e["after"] = {{"verdict", y->value("verdict", "")}, {"reason", y->value("reason", "")}, {"seq", y->value("seq", 0)}};
    return e;
  };
  for (const auto& [k, x] : a) {
    const auto it = b.find(k);
    if (it == b.end()) {
      out["removed"].push_back(entry(k, x, nullptr));
      continue;
    }
    const json* y = it->second;
    const std::string va = x->value("verdict", ""), vb = y->value("verdict", "");
    if (va == vb && x->value("reason", "") == y->value("reason", "")) {
      out["unchanged"] = out["unchanged"].get<int>() + 1;
      continue;
    }
    if (!is_failure(va) && is_failure(vb)) out["new_failures"].push_back(entry(k, x, y));
    else if (is_failure(va) && !is_failure(vb)) out["fixed"].push_back(entry(k, x, y));
    // Same verdict with another reason: a different code or field, which
    // after a firmware update is worth a look too.
    else out["changed"].push_back(entry(k, x, y));
  }
  for (const auto& [k, y] : b)
    if (!a.count(k)) out["added"].push_back(entry(k, nullptr, y));
  return out;
}

Dashboard::Dashboard(Store& store, std::string token, Runner runner, Catalogue catalogue, Limits limits)
    : store_(store),
      token_(std::move(token)),
      runner_(std::move(runner)),
      catalogue_(std::move(catalogue)),
      limits_(limits),
      events_(limits.event_buffer) {
  thread_ = std::thread([this] { worker(); });
}

Dashboard::~Dashboard() { stop(); }

void Dashboard::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
    cancel_current_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (fuzz_) fuzz_->stop();
}

void Dashboard::close_streams() { events_.close(); }
void Dashboard::set_stream_wake(std::function<void()> wake) { events_.set_wake(std::move(wake)); }

std::size_t Dashboard::body_limit(std::string_view method, std::string_view target) const {
  if (method == "PUT" || method == "DELETE") return limits_.max_body;
  if (method != "POST") return 0;
  const auto path = http::split_target(target).first;
  if (path.starts_with("/api/runs/") && path.ends_with("/cases")) return limits_.max_cases_body;
  if (path == "/api/captures") return limits_.max_capture_body;
  return limits_.max_body;
}

std::unique_ptr<http::Stream> Dashboard::open_stream(const http::Request& r, http::Response& refusal) {
  // Reading is open to whoever reaches the dashboard, like every GET, but
  // not to a page of another site: browsers let any page open a WebSocket
  // and say whose page it is in Origin.
  if (!http::host_allowed(r.host, allowed_hosts_)) {
    refusal = wrong_host(r.host);
    return nullptr;
  }
  if (!http::origin_allowed(r.origin, allowed_hosts_)) {
    refusal = error(403, "the event stream is not served to pages of another site (Origin '" + r.origin.substr(0, 200) +
                             "'; rdmaconf serve --allow-host NAME adds a name)");
    return nullptr;
  }
  const auto [path, query] = http::split_target(r.target);
  if (path != "/api/events") {
    refusal = error(404, "the event stream is /api/events");
    return nullptr;
  }
  std::int64_t after = 0;
  if (!query_number(query, "after", after)) {
    refusal = error(400, "'after' must be a whole number");
    return nullptr;
  }
  return std::make_unique<LogStream>(events_, static_cast<std::uint64_t>(after));
}

http::Response Dashboard::handle(const http::Request& r) {
  // Before anything is read or changed: a name this dashboard does not
  // answer to is a DNS-rebinding page (http::host_allowed).
  if (!http::host_allowed(r.host, allowed_hosts_)) return wrong_host(r.host);
  if (r.target.size() > limits_.max_target) return error(414, "request target too long");
  const auto [path, query] = http::split_target(r.target);
  if (!path.starts_with("/api/")) {
    if (r.method != "GET") return error(405, "use GET for the page");
    const Asset* a = find_asset(path == "/" ? "/index.html" : path);
    if (!a) return error(404, "no such page");
    http::Response res{200, std::string(a->body), std::string(a->content_type)};
    // Everything the page needs is served from here; no inline script, no
    // other origin.
    res.headers = {{"Content-Security-Policy",
                    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
                    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
                   {"Cache-Control", "no-cache"},
                   {"Referrer-Policy", "no-referrer"}};
    return res;
  }
  try {
    return api(r, path, query);
  } catch (const json::exception& e) {
    return error(400, std::string("malformed request: ") + e.what());
  } catch (const std::exception& e) {
    return error(500, std::string("internal error: ") + e.what());
  }
}

// The API's resources (docs/dashboard.md): reading the catalogue and
// coverage, diffs, captures and runs. A call that changes something needs the
// token, and its body is JSON (a capture upload excepted: the file itself).
http::Response Dashboard::api(const http::Request& r, std::string_view path, std::string_view query) {
  const auto seg = segments(path);
  const bool get = r.method == "GET", post = r.method == "POST", put = r.method == "PUT", del = r.method == "DELETE";
  if (!get && !post && !put && !del) return error(405, "use GET, POST, PUT or DELETE");
  json body = json::object();
  if (!get) {
    if (!http::bearer_matches(r.authorization, token_))
      return error(401, "missing or wrong bearer token (Authorization: Bearer TOKEN, printed by rdmaconf serve at start)");
    if (!r.body.empty() && path != "/api/captures") {
      if (!http::json_nesting_within(r.body, limits_.max_json_depth))
        return error(400, "JSON nested deeper than " + std::to_string(limits_.max_json_depth));
      body = json::parse(r.body, nullptr, false);
      if (body.is_discarded()) return error(400, "body is not valid JSON");
      if (!body.is_object()) return error(400, "body must be a JSON object");
    }
  }
  // seg[0] == "api"
  if (seg.size() >= 2 && seg[1] == "captures") return captures_api(r, seg, query);
  if (seg.size() >= 2 && seg[1] == "fuzz")
    return fuzz_ ? fuzz_->api(r.method, seg, body) : error(404, "this dashboard runs no fuzz runs (rdmaconf serve does)");
  if (seg.size() >= 2 && seg[1] == "runs") {
    if (auto res = runs_api(r, seg, query, body)) return std::move(*res);
  } else if (auto res = read_api(seg, query, get)) {
    return std::move(*res);
  }
  return error(404, "no such request: " + std::string(path.substr(0, 200)) + " (docs/dashboard.md lists them)");
}

// What only reads (GET): the service, coverage, the catalogue and its
// scripts, a diff of two runs, the baselines. Nothing for another path.
std::optional<http::Response> Dashboard::read_api(const std::vector<std::string_view>& seg, std::string_view query,
                                                  bool get) {
  const auto on_get = [&](auto answer) -> http::Response { return get ? answer() : error(405, "use GET"); };
  if (seg.size() == 3 && seg[1] == "scripts") return on_get([&]() -> http::Response {
      const auto text = catalogue_.script ? catalogue_.script(std::string(seg[2])) : std::nullopt;
      if (!text) return error(404, "no case with that id in the catalogue");
      return ok({{"id", seg[2]}, {"text", *text}});
    });
  if (seg.size() != 2) return std::nullopt;
  if (seg[1] == "info") return on_get([&] {
      std::lock_guard lock(mu_);
      return ok({{"tool", "rdmaconf"}, {"api", 1}, {"schema", Store::kSchemaVersion}, {"running", current_},
                 {"queued", queue_.size()}, {"last_event", events_.last()}});
    });
  if (seg[1] == "coverage") return on_get([&] { return ok(coverage()); });
  if (seg[1] == "catalogue") return on_get([&] { return ok({{"cases", catalogue_.cases}}); });
  if (seg[1] == "diff") return on_get([&] { return diff(query); });
  if (seg[1] == "baselines") return on_get([&] { return ok({{"baselines", store_.baselines()}}); });
  return std::nullopt;
}

// GET /api/diff?a=ID&b=ID: two runs by cases and by findings.
http::Response Dashboard::diff(std::string_view query) {
  std::int64_t a = 0, b = 0;
  if (!query_number(query, "a", a) || !query_number(query, "b", b) || !a || !b)
    return error(400, "give two run ids: /api/diff?a=ID&b=ID");
  const auto ra = store_.run(a), rb = store_.run(b);
  if (!ra || !rb) return error(404, "no such run");
  json d = diff_runs(store_.cases(a), store_.cases(b));
  d["a"] = ra->to_json();
  d["b"] = rb->to_json();
  StoredRun sa, sb;
  std::string why;
  if (read_stored_run(store_, *ra, equivalent_command_line(ra->config), sa, why) &&
      read_stored_run(store_, *rb, equivalent_command_line(rb->config), sb, why))
    d["findings"] = diff_findings(sa, sb);
  else
    d["findings"] = {{"new", json::array()}, {"still", json::array()}, {"fixed", json::array()}, {"error", why}};
  return ok(d);
}

// /api/captures: the list and uploads; /api/captures/ID and its annotated
// capture.
http::Response Dashboard::captures_api(const http::Request& r, const std::vector<std::string_view>& seg,
                                       std::string_view query) {
  const bool get = r.method == "GET";
  if (seg.size() == 2) {
    if (get) return ok({{"captures", store_.list_captures(200)}});
    return upload_capture(query, r.body);
  }
  std::int64_t id = 0;
  if (!whole_number(seg[2], id)) return error(404, "a capture id is a whole number");
  if (!get) return error(405, "use GET");
  if (seg.size() == 3) {
    const auto c = store_.capture(id);
    if (!c) return error(404, "no such capture");
    return ok(*c);
  }
  if (seg.size() == 4 && seg[3] == "annotated.pcapng") {
    auto octets = store_.capture_annotated(id);
    if (!octets) return error(404, "no annotated capture for that id");
    http::Response res{200, std::move(*octets), "application/octet-stream"};
    res.headers = {{"Content-Disposition", "attachment; filename=\"capture-" + std::to_string(id) + "-annotated.pcapng\""}};
    return res;
  }
  return error(404, "no such request");
}

// /api/runs: the list and starting one; /api/runs/ID with its findings, its
// baseline mark, cancelling, a publisher's cases and finish, and one case.
// Nothing for a path it does not know.
std::optional<http::Response> Dashboard::runs_api(const http::Request& r, const std::vector<std::string_view>& seg,
                                                  std::string_view query, const json& body) {
  const bool get = r.method == "GET", post = r.method == "POST", put = r.method == "PUT", del = r.method == "DELETE";
  if (seg.size() == 2) {
    if (post) return start_run(body);
    std::int64_t limit = 100, before = 0;
    if (!query_number(query, "limit", limit) || !query_number(query, "before", before))
      return error(400, "'limit' and 'before' must be whole numbers");
    limit = std::clamp<std::int64_t>(limit, 1, 1000);
    json list = json::array();
    for (const RunRow& row : store_.list_runs(static_cast<std::size_t>(limit), before)) list.push_back(row.to_json());
    return ok({{"runs", list}});
  }
  std::int64_t id = 0;
  if (!whole_number(seg[2], id)) return error(404, "a run id is a whole number");
  if (seg.size() == 3) {
    if (!get) return error(405, "use GET");
    return run_findings(id, true);
  }
  if (seg.size() == 4 && seg[3] == "findings") {
    if (!get) return error(405, "use GET");
    return run_findings(id, false);
  }
  if (seg.size() == 4 && seg[3] == "baseline") {
    if (!put && !del) return error(405, "use PUT (mark) or DELETE (unmark)");
    return mark_baseline(id, put);
  }
  if (seg.size() == 4 && seg[3] == "cancel") {
    if (!post) return error(405, "use POST");
    return cancel_run(id);
  }
  if (seg.size() == 4 && seg[3] == "cases" && post) return publish_cases(id, body);
  if (seg.size() == 4 && seg[3] == "finish") {
    if (!post) return error(405, "use POST");
    return publish_finish(id, body);
  }
  if (seg.size() == 5 && seg[3] == "cases") {
    if (!get) return error(405, "use GET");
    std::int64_t seq = 0;
    if (!whole_number(seg[4], seq)) return error(404, "a case number is a whole number");
    const auto c = store_.case_detail(id, seq);
    if (!c) return error(404, "no such case in that run");
    return ok(*c);
  }
  return std::nullopt;
}

namespace {

// %XX and '+' of a query value; false when malformed.
bool percent_decode(std::string_view in, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '+') out += ' ';
    else if (in[i] != '%') out += in[i];
    else {
      if (i + 2 >= in.size()) return false;
      int v = 0;
      const auto [p, ec] = std::from_chars(in.data() + i + 1, in.data() + i + 3, v, 16);
      if (ec != std::errc() || p != in.data() + i + 3) return false;
      out += static_cast<char>(v);
      i += 2;
    }
  }
  return true;
}

}  // namespace

http::Response Dashboard::upload_capture(std::string_view query, const std::string& octets) {
  std::string_view raw_name;
  std::string name = "capture";
  if (http::query_value(query, "name", raw_name) && !percent_decode(raw_name, name))
    return error(400, "'name' is not percent-encoded correctly");
  if (name.empty() || name.size() > 200) return error(400, "'name' must have 1 to 200 characters");
  if (octets.size() < 24) return error(400, "the body must be a pcap or pcapng file");
  std::string annotated, why;
  const json result = analyze_capture(octets, annotated, why);
  if (result.is_null()) return error(422, "the capture cannot be read: " + why);
  const std::int64_t id = store_.add_capture(name, octets.size(), result, annotated);
  events_.push(dump({{"type", "capture"}, {"capture", {{"id", id}, {"name", name}}}}));
  json j = result;
  j["id"] = id;
  j["name"] = name;
  return ok(j, 201);
}

http::Response Dashboard::start_run(const json& body) {
  if (body.contains("publish")) {
    // A CLI run (`rdmaconf run --publish`): recorded, not queued.
    const json& p = body["publish"];
    if (!p.is_object()) return error(400, "'publish' must be an object");
    const json target = p.value("target", json(""));
    if (!target.is_string() || target.get_ref<const std::string&>().size() > 1024)
      return error(400, "'publish.target' must be a string of at most 1024 characters");
    json config = p.value("config", json::object());
    if (!config.is_object() || config.dump().size() > 16 * 1024) return error(400, "'publish.config' must be a small object");
    json identity;
    if (const auto it = p.find("identity"); it != p.end() && !it->is_null()) {
      std::string why;
      identity = checked_identity(*it, why);
      if (identity.is_null()) return error(400, "'publish.identity': " + why);
    }
    const std::int64_t id = store_.create_run("cli", "running", target.get<std::string>(), config);
    json caps = p.value("capabilities", json());
    if (!identity.is_null()) store_.set_identity(id, identity);
    store_.set_running(id, target.get<std::string>(), caps.is_object() ? caps : json());
    announce_run(id);
    return ok({{"id", id}, {"status", "running"}}, 201);
  }
  std::string why;
  json request = checked_run_request(body, why);
  if (request.is_null()) return error(400, why);
  std::lock_guard lock(mu_);
  if (queue_.size() >= limits_.max_queue) return error(429, "the queue is full (" + std::to_string(limits_.max_queue) + " runs)");
  const std::int64_t id = store_.create_run("dashboard", "queued", "", shown_config(request));
  // What the run will say about itself once it starts (the runner adds the
  // build, the catalogue and the times).
  store_.set_identity(id, {{"command_line", equivalent_command_line(request)},
                           {"labels", request.value("labels", json::object())}});
  queue_.push_back({id, std::move(request)});
  cv_.notify_all();
  events_.push(dump(run_summary_event(*store_.run(id))));
  return ok({{"id", id}, {"status", "queued"}}, 201);
}

http::Response Dashboard::cancel_run(std::int64_t id) {
  std::lock_guard lock(mu_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->id != id) continue;
    queue_.erase(it);
    store_.finish_run(id, "cancelled", "cancelled before it started", 0, json::array());
    events_.push(dump(run_summary_event(*store_.run(id))));
    return ok({{"id", id}, {"status", "cancelled"}});
  }
  if (current_ == id) {
    cancel_current_ = true;
    return ok({{"id", id}, {"status", "cancelling"}}, 202);
  }
  const auto row = store_.run(id);
  if (!row) return error(404, "no such run");
  return error(409, "run " + std::to_string(id) + " is " + row->status + ", not queued or running here");
}

http::Response Dashboard::publish_cases(std::int64_t id, const json& body) {
  const auto row = store_.run(id);
  if (!row) return error(404, "no such run");
  if (row->source != "cli" || row->status != "running") return error(409, "cases are published only into a running CLI run");
  const auto it = body.find("cases");
  if (it == body.end() || !it->is_array() || it->size() > 5000) return error(400, "'cases' must be a list of at most 5000 cases");
  std::vector<json> cases;
  for (const json& c : *it) {
    std::string why;
    json checked = checked_case(c, why);
    if (checked.is_null()) return error(400, "case " + std::to_string(cases.size()) + ": " + why);
    cases.push_back(std::move(checked));
  }
  std::lock_guard lock(publish_mu_);
  const std::int64_t first = store_.add_cases(id, cases);
  if (!first) return error(404, "no such run");
  announce_cases(id, first, cases);
  return ok({{"id", id}, {"stored", cases.size()}});
}

http::Response Dashboard::publish_finish(std::int64_t id, const json& body) {
  const auto row = store_.run(id);
  if (!row) return error(404, "no such run");
  if (row->source != "cli" || row->status != "running") return error(409, "only a running CLI run is finished this way");
  const std::string status = body.value("status", json("done")).is_string() ? body.value("status", "done") : "";
  if (status != "done" && status != "cancelled" && status != "failed")
    return error(400, "'status' must be done, cancelled or failed");
  const json message = body.value("message", json(""));
  const json duration = body.value("duration_ms", json(0));
  const json skipped = body.value("skipped", json::array());
  if (!message.is_string() || message.get_ref<const std::string&>().size() > 4096 || !duration.is_number_integer() ||
      !skipped.is_array() || skipped.size() > 256)
    return error(400, "'message' (string), 'duration_ms' (whole number) and 'skipped' (list) expected");
  for (const json& s : skipped)
    if (!s.is_string() || s.get_ref<const std::string&>().size() > 1024) return error(400, "'skipped' holds strings");
  json identity;
  if (const auto it = body.find("identity"); it != body.end() && !it->is_null()) {
    std::string why;
    identity = checked_identity(*it, why);
    if (identity.is_null()) return error(400, "'identity': " + why);
  }
  if (!identity.is_null()) store_.set_identity(id, identity);
  store_.finish_run(id, status, message.get<std::string>(), duration.get<std::int64_t>(), skipped);
  store_findings(id);
  announce_run(id);
  return ok({{"id", id}, {"status", status}});
}

http::Response Dashboard::run_findings(std::int64_t id, bool with_cases) {
  const auto row = store_.run(id);
  if (!row) return error(404, "no such run");
  json j = with_cases ? row->to_json() : json{{"id", id}};
  j["cases"] = with_cases ? store_.cases(id) : json::array();
  add_run_findings(*row, j);
  if (!with_cases) j.erase("cases");
  return ok(j);
}

void Dashboard::add_run_findings(const RunRow& row, json& j) {
  std::int64_t base_id = 0;  // run ids start at 1
  if (!row.target.empty())
    if (const auto b = store_.baseline_of(row.target)) base_id = *b;
  j["baseline_run"] = base_id ? json(base_id) : json();
  StoredRun run;
  std::string why;
  if (!read_stored_run(store_, row, equivalent_command_line(row.config), run, why)) {
    // The run view still shows the cases; the page says why there are no findings.
    j["findings"] = json::array();
    j["baseline"] = nullptr;
    j["findings_error"] = why;
    return;
  }
  // The baseline run itself is compared with nothing (all of it is known).
  std::optional<baseline::Comparison> cmp;
  if (base_id && base_id != row.id)
    if (const auto base_row = store_.run(base_id)) {
      StoredRun base;
      baseline::Baseline known;
      if (read_stored_run(store_, *base_row, equivalent_command_line(base_row->config), base, why) &&
          baseline_of(base, "run " + std::to_string(base_id), known, why))
        cmp = baseline::compare(known, run.results, run.found);
      else
        j["baseline_error"] = why;
    }
  add_findings(j, run.results, run.info, run.found, cmp ? &*cmp : nullptr);
  if (cmp) j["baseline"]["run"] = base_id;
}

void Dashboard::store_findings(std::int64_t id) {
  const auto row = store_.run(id);
  if (!row) return;
  StoredRun run;
  std::string why;
  // A run whose cases do not read back keeps no findings (the API says why).
  if (!read_stored_run(store_, *row, equivalent_command_line(row->config), run, why)) return;
  json list = json::array();
  for (const findings::Finding& f : run.found) list.push_back(json(conformance::finding_json(f, run.info)));
  store_.set_findings(id, list);
}

http::Response Dashboard::mark_baseline(std::int64_t id, bool set) {
  const auto row = store_.run(id);
  if (!row) return error(404, "no such run");
  const std::string run = "run " + std::to_string(id);
  if (set) {
    if (row->status == "queued" || row->status == "running")
      return error(409, run + " is " + row->status + ": a baseline is a run that ended");
    if (row->target.empty()) return error(409, run + " has no target to be the baseline of");
    store_.set_baseline(row->target, id);
  } else if (!store_.clear_baseline(row->target, id)) {
    return error(404, run + " is not the baseline of its target");
  }
  const json now = set ? json(id) : json();
  events_.push(dump({{"type", "baseline"}, {"target", row->target}, {"run", now}}));
  return ok({{"target", row->target}, {"run", now}});
}


json Dashboard::coverage() {
  // Registry rows -> the catalogue's cases naming them, live and capture
  // cases (aliases resolved).
  const conformance::CasesPerRow& cases_of = catalogue_.cases_per_row;
  // Per target, its latest run: case id -> the worst verdict over its configurations.
  json targets = json::array();
  std::vector<std::map<std::string, std::string>> verdicts;
  for (const auto& [target, run] : store_.latest_run_per_target(20)) {
    targets.push_back({{"target", target}, {"run", run}});
    auto& v = verdicts.emplace_back();
    for (const json& c : store_.cases(run)) {
      const std::string id = c.value("id", ""), verdict = c.value("verdict", "");
      const auto it = v.find(id);
      if (it == v.end() || severity(verdict) < severity(it->second)) v[id] = verdict;
    }
  }
  json rows = json::array();
  std::size_t with_cases = 0;
  for (const requirements::Requirement& r : requirements::all()) {
    const auto it = cases_of.find(r.id);
    const std::vector<std::string> none;
    const std::vector<std::string>& cases = it == cases_of.end() ? none : it->second;
    if (!cases.empty()) ++with_cases;
    json per_target = json::array();
    for (const auto& v : verdicts) {
      std::string worst;
      for (const std::string& id : cases) {
        const auto f = v.find(id);
        if (f != v.end() && (worst.empty() || severity(f->second) < severity(worst))) worst = f->second;
      }
      per_target.push_back(worst.empty() ? json() : json(worst));
    }
    rows.push_back({{"id", r.id}, {"rfc", r.rfc}, {"section", r.section}, {"level", requirements::name(r.level)},
                    {"summary", r.summary}, {"observable", requirements::name(r.observable)}, {"cases", cases},
                    {"verdicts", std::move(per_target)}});
  }
  json totals = {{"rows", rows.size()},
                 {"with_cases", with_cases},
                 {"observable_without_cases", conformance::observable_rows_without_case(cases_of).size()}};
  return {{"targets", std::move(targets)}, {"requirements", std::move(rows)}, {"totals", std::move(totals)}};
}

void Dashboard::announce_run(std::int64_t id) {
  if (const auto row = store_.run(id)) events_.push(dump(run_summary_event(*row)));
}

void Dashboard::announce_cases(std::int64_t id, std::int64_t first_seq, const std::vector<json>& cases) {
  std::int64_t seq = first_seq;
  for (const json& c : cases) {
    // The live view needs the row, not the exchange (fetched on demand).
    json row = {{"seq", seq++},
                {"id", c.value("id", "")},
                {"configuration", c.value("configuration", "")},
                {"protocol", c.value("protocol", "")},
                {"level", c.value("level", "")},
                {"verdict", c.value("verdict", "")},
                {"rfc", c.value("rfc", "")},
                {"requirements", c.value("requirements", json::array())},
                {"title", c.value("title", "")},
                {"reason", c.value("reason", "")}};
    events_.push(dump({{"type", "case"}, {"run_id", id}, {"case", std::move(row)}}));
  }
}

void Dashboard::worker() {
  for (;;) {
    Queued q;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      q = std::move(queue_.front());
      queue_.pop_front();
      current_ = q.id;
      cancel_current_ = false;
    }
    RunContext ctx;
    ctx.id = q.id;
    ctx.request = std::move(q.request);
    ctx.cancel = &cancel_current_;
    ctx.started = [&](const std::string& target, const json& caps) {
      store_.set_running(q.id, target, caps);
      announce_run(q.id);
    };
    ctx.identified = [&](const json& identity) {
      store_.set_identity(q.id, identity);
      announce_run(q.id);
    };
    ctx.case_done = [&](const json& c) {
      // One transaction per case: a kill loses no case already reported.
      const std::vector<json> one{c};
      if (const std::int64_t seq = store_.add_cases(q.id, one)) announce_cases(q.id, seq, one);
    };
    RunEnd end;
    try {
      end = runner_(ctx);
    } catch (const std::exception& e) {
      end.status = "failed";
      end.message = e.what();
    }
    if (cancel_current_ && end.status == "done") end.status = "cancelled";
    store_.finish_run(q.id, end.status, end.message, end.duration_ms, end.skipped);
    store_findings(q.id);
    announce_run(q.id);
    std::lock_guard lock(mu_);
    current_ = 0;
  }
}

}  // namespace rdmaconf::dashboard
