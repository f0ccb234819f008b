// Fuzz runs started from the page (fuzz_runs.hpp).
#include "dashboard/fuzz_runs.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "http_server.hpp"
#include "dashboard/api_support.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;

namespace {

using namespace api_support;

constexpr std::size_t kMaxString = 256, kMaxList = 64;
constexpr std::uintmax_t kMaxCaptureFile = 64ull * 1024 * 1024;


bool short_string(const json& v) { return v.is_string() && !v.get_ref<const std::string&>().empty() && v.get_ref<const std::string&>().size() <= kMaxString; }

bool string_list(const json& v) {
  return v.is_array() && v.size() <= kMaxList && std::all_of(v.begin(), v.end(), short_string);
}

// A capture's file name as the fuzzer writes it (a case id and .pcapng):
// nothing that could leave the finding's folder.
bool plain_name(std::string_view n) {
  return !n.empty() && n.size() <= kMaxString && n.front() != '.' &&
         std::all_of(n.begin(), n.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
         });
}

}  // namespace

json checked_fuzz_request(const json& j, std::string& error) {
  static const char* const kKeys[] = {"reference", "target", "listen", "agent", "suites", "cases", "exclude",
                                      "seconds", "iterations", "seed", "time_scale", "minimize_runs", "clc",
                                      "restore"};
  for (const auto& item : j.items()) {
    const std::string& k = item.key();
    if (std::none_of(std::begin(kKeys), std::end(kKeys), [&](const char* n) { return k == n; })) {
      error = "unknown field '" + k.substr(0, 64) + "'";
      return nullptr;
    }
  }
  json out = json::object();
  for (const char* k : {"target", "listen"}) {
    if (!j.contains(k)) continue;
    if (!short_string(j[k])) return error = std::string(k) + " must be ADDR:PORT", nullptr;
    out[k] = j[k];
  }
  if (j.contains("reference")) {
    const json& r = j["reference"];
    if (!r.is_object() || (r.contains("faults") && !string_list(r["faults"])) || r.size() > (r.contains("faults") ? 1u : 0u))
      return error = "reference must be {} or {\"faults\": [NAME, ...]}", nullptr;
    out["reference"] = {{"faults", r.value("faults", json::array())}};
  }
  if (j.contains("agent")) {
    const json& a = j["agent"];
    if (!a.is_object() || !a.contains("url") || !short_string(a["url"]) || (a.contains("token") && !a["token"].is_string()) ||
        a.value("token", "").size() > kMaxString)
      return error = "agent must be {\"url\": \"http://HOST:PORT\", \"token\": T}", nullptr;
    out["agent"] = {{"url", a["url"]}, {"token", a.value("token", "")}};
  }
  const int sides = (out.contains("reference") ? 1 : 0) + (out.contains("agent") ? 1 : 0) +
                    (!out.contains("reference") && !out.contains("agent") && (out.contains("target") || out.contains("listen")) ? 1 : 0);
  if (sides != 1) return error = "give one of reference, agent, target (the IUT listens) or listen (it connects)", nullptr;
  if (out.contains("reference") && out.contains("target")) return error = "reference takes no target", nullptr;
  if (!out.contains("agent") && out.contains("target") && out.contains("listen"))
    return error = "a run fuzzes one side: target (the IUT listens) or listen (it connects)", nullptr;
  // The tester's SMC identity when it fuzzes a CLC server (`rdmaconf fuzz
  // --clc-eid/--clc-prefix/--clc-gid/--clc-mac`): a real server declines a
  // Proposal whose identity does not fit. The values are checked where the
  // command line's are (cli/clc_options.hpp), so a bad one fails the run.
  if (j.contains("clc")) {
    const json& c = j["clc"];
    const bool shaped = c.is_object() && std::all_of(c.items().begin(), c.items().end(), [](const auto& item) {
      const std::string& k = item.key();
      return (k == "eid" || k == "prefix" || k == "gid" || k == "mac") && short_string(item.value());
    });
    if (!shaped) return error = "clc must be {\"eid\", \"prefix\", \"gid\", \"mac\": short strings}", nullptr;
    out["clc"] = c;
  }
  for (const char* k : {"suites", "cases", "exclude"}) {
    if (!j.contains(k)) continue;
    if (!string_list(j[k])) return error = std::string(k) + " must be a list of at most 64 short strings", nullptr;
    out[k] = j[k];
  }
  for (const json& s : out.value("suites", json::array()))
    if (s != "mpa" && s != "ddp" && s != "rdmap" && s != "clc") return error = "suites: mpa, ddp, rdmap or clc", nullptr;
  // Bounded: a run from the page ends by itself within an hour.
  auto number = [&](const char* k, double lo, double hi) {
    if (!j.contains(k)) return true;
    if (!j[k].is_number() || j[k].get<double>() < lo || j[k].get<double>() > hi) {
      error = std::string(k) + " must be a number from " + json(lo).dump() + " to " + json(hi).dump();
      return false;
    }
    out[k] = j[k];
    return true;
  };
  if (!number("seconds", 1, 3600) || !number("iterations", 1, 1000000) || !number("seed", 0, 9007199254740991.0) ||
      !number("time_scale", 0.05, 20) || !number("minimize_runs", 1, 200))
    return nullptr;
  for (const char* k : {"iterations", "seed", "minimize_runs"})
    if (out.contains(k) && !out[k].is_number_integer() && !out[k].is_number_unsigned())
      return error = std::string(k) + " must be a whole number", nullptr;
  // The restore command is the dashboard's operator's (`rdmaconf serve
  // --fuzz-restore-command`), never a request's: a request only asks for it.
  if (j.contains("restore")) {
    if (!j["restore"].is_boolean()) return error = "restore must be true or false", nullptr;
    if (j["restore"].get<bool>() && out.contains("reference"))
      return error = "reference restores itself: restore goes with agent, target or listen", nullptr;
    out["restore"] = j["restore"];
  }
  if (!out.contains("seconds") && !out.contains("iterations")) out["seconds"] = 60;
  return out;
}

FuzzRuns::FuzzRuns(FuzzRunner runner, std::string dir) : runner_(std::move(runner)), dir_(std::move(dir)) {}

FuzzRuns::~FuzzRuns() { stop(); }

void FuzzRuns::stop() {
  cancel_ = true;
  if (thread_.joinable()) thread_.join();
}

FuzzRuns::Run* FuzzRuns::find(std::int64_t id) {
  auto it = std::find_if(runs_.begin(), runs_.end(), [&](const Run& r) { return r.id == id; });
  return it == runs_.end() ? nullptr : &*it;
}

json FuzzRuns::run_json(const Run& r, bool whole) const {
  json j = {{"id", r.id}, {"status", r.status}, {"message", r.message}, {"request", r.request},
            {"progress", r.progress}, {"findings_count", r.findings.size()}};
  if (!whole) return j;
  json list = json::array();
  for (std::size_t k = 0; k < r.findings.size(); ++k) {
    json f = r.findings[k];
    f.erase("folder");  // a path on the dashboard's host; the captures are served by name
    f["n"] = k + 1;
    f["captures"] = r.captures[k];
    list.push_back(std::move(f));
  }
  j["findings"] = std::move(list);
  return j;
}

http::Response FuzzRuns::api(std::string_view method, const std::vector<std::string_view>& seg, const json& body) {
  const bool get = method == "GET", post = method == "POST";
  std::int64_t id = 0;
  if (seg.size() == 2) {
    if (post) return start(body);
    if (!get) return error(405, "use GET, or POST to start a fuzz run");
    std::lock_guard lock(mu_);
    json list = json::array();
    for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) list.push_back(run_json(*it, false));
    return ok({{"runs", list}, {"running", running_}});
  }
  if (!whole_number(seg[2], id)) return error(404, "no such fuzz run");
  if (seg.size() == 3) {
    if (!get) return error(405, "use GET");
    std::lock_guard lock(mu_);
    const Run* r = find(id);
    return r ? ok(run_json(*r, true)) : error(404, "no such fuzz run (the dashboard keeps the last 16)");
  }
  if (seg.size() == 4 && seg[3] == "cancel") {
    if (!post) return error(405, "use POST");
    std::lock_guard lock(mu_);
    const Run* r = find(id);
    if (!r || r->status != "running") return error(409, "fuzz run " + std::to_string(id) + " is not running");
    cancel_ = true;
    return ok({{"id", id}, {"status", "cancelling"}}, 202);
  }
  std::int64_t k = 0;
  if (seg.size() == 6 && seg[3] == "findings" && whole_number(seg[4], k) && seg[5] == "captures")
    return error(404, "name the capture: .../captures/NAME");
  if (seg.size() == 7 && seg[3] == "findings" && whole_number(seg[4], k) && seg[5] == "captures") {
    if (!get) return error(405, "use GET");
    return capture(id, k, seg[6]);
  }
  return error(404, "no such fuzz request (docs/dashboard.md, \"Fuzzing\")");
}

http::Response FuzzRuns::start(const json& body) {
  std::string why;
  json request = checked_fuzz_request(body, why);
  if (request.is_null()) return error(400, why);
  std::lock_guard lock(mu_);
  if (running_) return error(409, "a fuzz run is under way: one at a time (cancel it first)");
  if (thread_.joinable()) thread_.join();  // the last one, ended
  Run r;
  r.id = next_id_++;
  r.request = request;
  if (r.request.contains("agent")) r.request["agent"].erase("token");
  // Ids start again with the service: the folder names the start time too.
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  r.dir = (std::filesystem::path(dir_) / ("fuzz-" + std::to_string(now.count()) + "-" + std::to_string(r.id))).string();
  runs_.push_back(r);
  if (runs_.size() > kKeep) runs_.erase(runs_.begin());
  running_ = true;
  cancel_ = false;
  thread_ = std::thread([this, id = r.id, dir = r.dir, request = std::move(request)] {
    FuzzContext ctx;
    ctx.id = id;
    ctx.request = request;
    ctx.out_dir = dir;
    ctx.cancel = &cancel_;
    ctx.progress = [this, id](const json& p) {
      std::lock_guard l(mu_);
      if (Run* run = find(id)) run->progress = p;
    };
    ctx.finding = [this, id](const json& f) {
      std::vector<std::string> names;
      std::error_code ec;
      if (f.contains("folder") && f["folder"].is_string())
        for (const auto& e : std::filesystem::directory_iterator(f["folder"].get<std::string>(), ec)) {
          const std::string n = e.path().filename().string();
          if (e.is_regular_file(ec) && plain_name(n) && (n.ends_with(".pcapng") || n.ends_with(".pcap"))) names.push_back(n);
        }
      std::sort(names.begin(), names.end());
      std::lock_guard l(mu_);
      if (Run* run = find(id)) {
        run->findings.push_back(f);
        run->captures.push_back(std::move(names));
      }
    };
    FuzzEnd end;
    try {
      end = runner_(ctx);
    } catch (const std::exception& e) {
      end = {"failed", e.what()};
    }
    std::lock_guard l(mu_);
    if (Run* run = find(id)) {
      run->status = end.status;
      run->message = end.message;
    }
    running_ = false;
  });
  return ok({{"id", r.id}, {"status", "running"}}, 201);
}

http::Response FuzzRuns::capture(std::int64_t id, std::int64_t finding, std::string_view name) {
  std::string path;
  {
    std::lock_guard lock(mu_);
    const Run* r = find(id);
    if (!r) return error(404, "no such fuzz run");
    if (finding < 1 || static_cast<std::size_t>(finding) > r->findings.size()) return error(404, "no such finding");
    const auto& names = r->captures[static_cast<std::size_t>(finding - 1)];
    const json& found = r->findings[static_cast<std::size_t>(finding - 1)];
    if (std::find(names.begin(), names.end(), name) == names.end() || !found.contains("folder"))
      return error(404, "no such capture of this finding");
    path = (std::filesystem::path(r->findings[static_cast<std::size_t>(finding - 1)]["folder"].get<std::string>()) /
            std::string(name)).string();
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxCaptureFile) return error(404, "the capture is gone or too large to serve");
  std::ifstream f(path, std::ios::binary);
  std::string octets(static_cast<std::size_t>(size), '\0');
  f.read(octets.data(), static_cast<std::streamsize>(octets.size()));
  if (!f) return error(404, "the capture could not be read");
  http::Response res{200, std::move(octets), "application/vnd.tcpdump.pcap"};
  res.headers = {{"Content-Disposition", "attachment; filename=\"" + std::string(name) + "\""},
                 {"X-Content-Type-Options", "nosniff"}};
  return res;
}

}  // namespace rdmaconf::dashboard
