// AgentRun (agent_run.hpp).
#include "cli/agent_run.hpp"

#include <chrono>
#include <thread>

#include "agent/json.hpp"

namespace rdmaconf::cli {

namespace cf = conformance;
using nlohmann::json;

namespace {

bool is_loopback(const std::string& host) { return host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost"; }

// "HOST:PORT" -> parts; "PORT" alone -> port only.
bool split_optional_host(const std::string& s, std::string& host, std::uint16_t& port) {
  if (s.find(':') == std::string::npos) {
    if (s.empty() || s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) return false;
    const unsigned long p = std::stoul(s);
    if (p > 65535) return false;
    port = static_cast<std::uint16_t>(p);
    return true;
  }
  return cf::split_host_port(s, host, port);
}

std::uint16_t port_of(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return 0;
  try {
    const unsigned long p = std::stoul(address.substr(colon + 1));
    return p <= 65535 ? static_cast<std::uint16_t>(p) : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

bool parse_config(const std::string& spec, agent::MpaConfig& m, std::string& error) {
  std::size_t at = 0;
  while (at <= spec.size()) {
    const auto comma = spec.find(',', at);
    const std::string item = spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    const bool on = value == "on" || value == "1", off = value == "off" || value == "0";
    if ((key == "rev" || key == "revision") && (value == "1" || value == "2")) m.revision = value == "1" ? 1 : 2;
    else if (key == "crc" && (on || off)) m.crc = on;
    else if (key == "markers" && (on || off)) m.markers = on;
    else if (key == "p2p" && (on || off)) m.peer_to_peer = on;
    else {
      error = "--agent-config: expected rev=1|2, crc=on|off, markers=on|off or p2p=on|off, got '" + item + "'";
      return false;
    }
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return true;
}

}  // namespace

AgentRun::AgentRun(AgentRunArgs args) : args_(std::move(args)) {}

AgentRun::~AgentRun() {
  if (client_) client_->stop_events();
}

bool AgentRun::open(std::string& error) {
  if (!agent::parse_agent_url(args_.url, url_)) {
    error = "--agent expects http://HOST:PORT, got '" + args_.url + "'";
    return false;
  }
  if (args_.token.empty()) {
    error = "--agent needs --token (rdmaconf-agent prints it at start)";
    return false;
  }
  client_ = std::make_unique<agent::AgentClient>(url_, args_.token);
  const auto info = client_->get("/v1/info");
  if (!info) {
    error = info.error.empty() ? "the agent did not answer /v1/info" : info.error;
    return false;
  }
  if (!info.body.is_object() || !info.body.contains("api") || info.body["api"] != agent::kApiVersion) {
    error = "the agent speaks another API version (this tester speaks v" + std::to_string(agent::kApiVersion) + ")";
    return false;
  }
  const auto caps = client_->get("/v1/capabilities");
  if (!caps || !caps.body.is_object() || !caps.body.contains("capabilities")) {
    error = caps.error.empty() ? "no capabilities from the agent" : caps.error;
    return false;
  }
  std::string why;
  auto c = agent::capabilities_from_json(caps.body["capabilities"], why);
  if (!c) {
    error = "the agent's capabilities do not parse: " + why;
    return false;
  }
  caps_ = std::move(*c);
  lacks_ = agent::lacks(caps_);
  view_ = std::make_unique<cf::AgentView>(args_.nat);
  std::uint64_t after = 0;
  if (info.body.contains("last_event") && info.body["last_event"].is_number_unsigned())
    after = info.body["last_event"].get<std::uint64_t>();
  client_->start_events(
      [this](std::uint64_t, agent::Event e) {
        view_->add({0, std::string(agent::to_string(e.kind)), e.name, e.status, e.byte_len, e.detail, e.local, e.peer});
      },
      [this] { view_->restart(); }, after, [this] { view_->lost(); });
  // The first case's events must not race the stream's opening.
  for (int i = 0; i < 100 && !client_->events_connected(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return true;
}

std::string AgentRun::describe() const {
  // The target a lab's runs of one device share (the dashboard keeps a
  // baseline per target): what changes from build to build (firmware,
  // driver, kernel) is in the report's identity, not here.
  std::string out = "device " + caps_.device + " through the agent at " + url_.host + ":" + std::to_string(url_.port) +
                    " (backend " + caps_.backend;
  if (!caps_.vendor.empty()) out += ", vendor " + caps_.vendor;
  return out + ")";
}

bool AgentRun::configurations(std::vector<agent::MpaConfig>& out, std::string& error) const {
  out.clear();
  const bool automatic = args_.configs.empty() || (args_.configs.size() == 1 && args_.configs[0] == "auto");
  if (automatic) {
    // One pass per setting the device can choose per connection.
    std::vector<std::optional<bool>> crc{std::nullopt}, markers{std::nullopt};
    if (caps_.crc.per_connection && caps_.crc.can_on && caps_.crc.can_off) crc = {true, false};
    if (caps_.markers.per_connection && caps_.markers.can_on && caps_.markers.can_off) markers = {false, true};
    for (const auto& c : crc)
      for (const auto& m : markers) out.push_back({std::nullopt, c, m, std::nullopt});
    return true;
  }
  for (const std::string& spec : args_.configs) {
    agent::MpaConfig m;
    if (spec != "default" && !parse_config(spec, m, error)) return false;
    auto check = [&](const std::optional<bool>& v, const agent::Choice& c, const char* what) {
      if (!v) return true;
      if ((*v && !c.can_on) || (!*v && !c.can_off) || !c.per_connection) {
        error = std::string("--agent-config: the device cannot choose ") + what + (*v ? " on" : " off") +
                " per connection (see its capabilities)";
        return false;
      }
      return true;
    };
    if (!check(m.crc, caps_.crc, "CRC") || !check(m.markers, caps_.markers, "Markers")) return false;
    out.push_back(m);
  }
  return true;
}

std::string AgentRun::reachable(const std::string& address) const {
  // A listener on every address is reached where the agent is.
  for (const char* any : {"0.0.0.0:", "[::]:", ":"})
    if (address.rfind(any, 0) == 0) return url_.host + ":" + std::to_string(port_of(address));
  return address;
}

bool AgentRun::relisten(std::string& error) {
  std::string host;
  std::uint16_t port = 0;
  if (!args_.agent_listen.empty()) split_optional_host(args_.agent_listen, host, port);
  else if (!args_.target.empty()) port = port_of(args_.target);
  json body{{"port", port}, {"mpa", agent::to_json(cfg_)}};
  if (!host.empty()) body["host"] = host;
  const auto r = client_->post("/v1/listen", body);
  if (!r || !r.body.is_object() || !r.body.contains("id") || !r.body["id"].is_number_unsigned() ||
      !r.body.contains("address") || !r.body["address"].is_string()) {
    error = "the agent did not listen: " + (r.error.empty() ? std::string("malformed answer") : r.error);
    return false;
  }
  listen_id_ = r.body["id"].get<std::uint64_t>();
  connect_address_ = args_.target.empty() ? reachable(r.body["address"].get<std::string>()) : args_.target;
  ++listens_;
  agent_lost_ = false;
  return true;
}

// The CLC listener opened again on the port it had (mu_ held).
bool AgentRun::clc_relisten(std::string& error) {
  const auto r = client_->post("/v1/clc/listen", json{{"port", clc_port_}});
  if (!r || !r.body.is_object() || !r.body.contains("id") || !r.body["id"].is_number_unsigned()) {
    error = "the agent did not open a CLC listener again: " + (r.error.empty() ? std::string("malformed answer") : r.error);
    return false;
  }
  handles_.push_back(clc_id_ = r.body["id"].get<std::uint64_t>());
  ++clc_listens_;
  agent_lost_ = false;
  return true;
}

// The agent did not answer a case's request (mu_ held): it may be starting
// again (restarted by hand, its host rebooting). Waits up to --agent-return
// for it to answer, polling /v1/info; the other jobs wait on the lock
// meanwhile and then find it back, so a restart costs the cases it cut, not
// every case the jobs reach while it is away. After a wait that ended
// without it, the next cases do not wait until it has answered once (a
// listen or a connect): they are errors at once, as with no wait.
bool AgentRun::agent_back(std::string& error) {
  if (args_.agent_return.count() <= 0 || agent_lost_) return false;
  const auto deadline = std::chrono::steady_clock::now() + args_.agent_return;
  for (;;) {
    if (client_->get("/v1/info")) return true;
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  agent_lost_ = true;
  error += "; no answer from the agent within " + std::to_string(args_.agent_return.count() / 1000) + " s";
  return false;
}

// A case's connection to one of the agent's listeners (`connect`). When
// it cannot be made the agent may have restarted, its listeners gone:
// unless another job had it listen again meanwhile (`listens` moved), it
// listens again (`relisten`, mu_ held), after waiting for it when it does
// not answer (agent_back), and the connection is tried once more; if that
// fails too, the case is an error and the run goes on.
int AgentRun::connect_to_listener(const std::uint64_t& listens, bool (AgentRun::*relisten)(std::string&),
                                  const std::function<int(std::string&)>& connect, std::string& err) {
  std::uint64_t seen = 0;
  {
    std::lock_guard lock(mu_);
    seen = listens;
  }
  if (const int fd = connect(err); fd >= 0) return fd;
  std::string why;
  {
    std::lock_guard lock(mu_);
    if (listens == seen && !(this->*relisten)(why) && !(agent_back(why) && (this->*relisten)(why))) {
      err += "; " + why;
      return -1;
    }
  }
  err.clear();
  return connect(err);
}

bool AgentRun::begin_pass(const agent::MpaConfig& cfg, bool with_clc, cf::RunOptions& o, std::string& error) {
  {
    std::lock_guard lock(mu_);
    cfg_ = cfg;
    with_clc_ = with_clc;
    if (!relisten(error)) return false;
  }
  o.agent = view_.get();
  if (args_.nat) o.jobs = 1;
  o.connect_responder = [this](const cf::Case& c, std::string& err) {
    return connect_to_listener(listens_, &AgentRun::relisten, [this, &c](std::string& e) {
      std::string address;
      {
        std::lock_guard lock(mu_);
        address = connect_address_;
      }
      std::string host;
      std::uint16_t port = 0;
      cf::split_host_port(address, host, port);
      return cf::tcp_connector(host, port, std::chrono::milliseconds(3000))(c, e);
    }, err);
  };
  if (with_clc) {
    std::string host;
    std::uint16_t port = 0;
    if (!args_.clc_target.empty()) port = port_of(args_.clc_target);
    const auto r = client_->post("/v1/clc/listen", json{{"port", port}});
    if (!r || !r.body.is_object() || !r.body.contains("address") || !r.body["address"].is_string() ||
        !r.body["id"].is_number_unsigned()) {
      error = "the agent did not open a CLC listener: " + r.error;
      return false;
    }
    handles_.push_back(clc_id_ = r.body["id"].get<std::uint64_t>());
    clc_port_ = port_of(r.body["address"].get<std::string>());
    const std::string address = args_.clc_target.empty() ? reachable(r.body["address"].get<std::string>()) : args_.clc_target;
    if (!cf::split_host_port(address, host, port)) {
      error = "the agent's CLC address '" + address + "' is not HOST:PORT";
      return false;
    }
    o.connect_clc = [this, host, port](const cf::Case& c, std::string& err) {
      return connect_to_listener(clc_listens_, &AgentRun::clc_relisten, [&](std::string& e) {
        return cf::tcp_connector(host, port, std::chrono::milliseconds(3000))(c, e);
      }, err);
    };
  }
  // Initiator role: the tester listens, the agent connects. On loopback a
  // listener per case (cases in parallel); otherwise --listen, one case at a
  // time.
  std::string listen_host = "127.0.0.1";
  std::uint16_t listen_port = 0;
  if (!args_.listen.empty() && !cf::split_host_port(args_.listen, listen_host, listen_port)) {
    error = "--listen expects ADDR:PORT";
    return false;
  }
  std::string dial_host = listen_host;
  std::uint16_t dial_port = 0;
  if (!args_.connect_to.empty() && !split_optional_host(args_.connect_to, dial_host, dial_port)) {
    error = "--agent-connect-to expects HOST[:PORT]";
    return false;
  }
  if (args_.listen.empty() && args_.connect_to.empty() && !is_loopback(url_.host)) return true;  // no initiator role
  auto ask_connect = [this, dial_host, dial_port](const cf::Case& c, std::uint16_t port, std::string& err) {
    agent::MpaConfig m;
    {
      std::lock_guard lock(mu_);
      m = cfg_;
    }
    // Cases that need Rev 2 get the peer-to-peer model with RTR (RFC 6581 §9.2).
    if (!m.revision) m.revision = c.needs_item("rev2") ? 2 : 1;
    if (!m.peer_to_peer && *m.revision == 2) m.peer_to_peer = true;
    const bool clc = cf::uses_clc(c.protocol);
    const json body{{"host", dial_host}, {"port", dial_port ? dial_port : port}, {"mpa", agent::to_json(m)}, {"case", c.id}};
    auto r = client_->post(clc ? "/v1/clc/connect" : "/v1/connect", body);
    if (!r && r.status == 0) {
      // Not reached: once more after waiting for it (agent_back).
      std::lock_guard lock(mu_);
      if (agent_back(r.error)) r = client_->post(clc ? "/v1/clc/connect" : "/v1/connect", body);
    }
    if (!r) {
      err = "the agent did not connect: " + r.error;
      return false;
    }
    std::lock_guard lock(mu_);
    agent_lost_ = false;  // it answered: the next time it is away is waited for again
    if (r.body.is_object() && r.body.contains("id") && r.body["id"].is_number_unsigned())
      handles_.push_back(r.body["id"].get<std::uint64_t>());
    return true;
  };
  if (listen_port == 0) {
    o.accept_initiator = [listen_host, ask_connect](const cf::Case& c, std::string& err) -> int {
      cf::Listener l;
      if (!cf::listen_on(listen_host, 0, l, err)) return -1;
      if (!ask_connect(c, port_of(l.address), err)) return -1;
      return cf::accept_connector(l, std::chrono::milliseconds(10000))(c, err);
    };
    o.initiator_parallel = true;
  } else {
    shared_listener_ = std::make_unique<cf::Listener>();
    if (!cf::listen_on(listen_host, listen_port, *shared_listener_, error)) return false;
    auto accept = cf::accept_connector(*shared_listener_, std::chrono::milliseconds(10000));
    o.accept_initiator = [accept, ask_connect, listen_port](const cf::Case& c, std::string& err) -> int {
      if (!ask_connect(c, listen_port, err)) return -1;
      return accept(c, err);
    };
    o.initiator_parallel = false;
  }
  return true;
}

bool AgentRun::resume_pass(std::chrono::milliseconds within, std::string& error) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  for (;;) {
    const auto info = client_->get("/v1/info");
    if (info) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      error = "the agent did not answer within " + std::to_string(within.count() / 1000) + " s of the restore (" +
              (info.error.empty() ? std::string("no answer") : info.error) + ")";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::lock_guard lock(mu_);
  // A new agent holds no listener. The same agent (a driver reloaded under
  // it) may still hold the old one on the port wanted: that one is closed
  // first, then the agent listens again.
  std::string why;
  if (!relisten(why)) {
    if (listen_id_) (void)client_->post("/v1/close", json{{"id", listen_id_}});
    if (!relisten(error)) return false;
  }
  if (!with_clc_) return true;
  if (clc_relisten(why)) return true;
  if (clc_id_) (void)client_->post("/v1/close", json{{"id", clc_id_}});
  return clc_relisten(error);
}

void AgentRun::end_pass() {
  std::vector<std::uint64_t> ids;
  {
    std::lock_guard lock(mu_);
    ids.swap(handles_);
    if (listen_id_) ids.push_back(listen_id_);
    listen_id_ = 0;
  }
  for (std::uint64_t id : ids) (void)client_->post("/v1/close", json{{"id", id}});
  shared_listener_.reset();
}

}  // namespace rdmaconf::cli
