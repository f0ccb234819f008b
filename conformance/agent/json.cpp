// JSON forms of the backend types (json.hpp). Readers check every type
// before reading, so malformed input is an error string, never an exception.
#include "agent/json.hpp"

namespace rdmaconf::agent {

using nlohmann::json;

namespace {

json choice(const Choice& c) { return {{"on", c.can_on}, {"off", c.can_off}, {"per_connection", c.per_connection}}; }

// Each reader leaves `out` alone when the key is absent; a present key of
// the wrong type is an error.
bool read(const json& j, const char* key, std::string& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string()) return error = std::string("'") + key + "' must be a string", false;
  out = it->get_ref<const std::string&>();
  return true;
}
bool read(const json& j, const char* key, bool& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) return error = std::string("'") + key + "' must be true or false", false;
  out = it->get<bool>();
  return true;
}
template <typename U>
bool read_uint(const json& j, const char* key, U& out, std::uint64_t max, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number_unsigned() || it->get<std::uint64_t>() > max)
    return error = std::string("'") + key + "' must be a whole number from 0 to " + std::to_string(max), false;
  out = static_cast<U>(it->get<std::uint64_t>());
  return true;
}
bool read(const json& j, const char* key, std::vector<std::string>& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_array()) return error = std::string("'") + key + "' must be a list of strings", false;
  out.clear();
  for (const json& v : *it) {
    if (!v.is_string()) return error = std::string("'") + key + "' must be a list of strings", false;
    out.push_back(v.get<std::string>());
  }
  return true;
}
bool read(const json& j, const char* key, Choice& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_object()) return error = std::string("'") + key + "' must be an object", false;
  return read(*it, "on", out.can_on, error) && read(*it, "off", out.can_off, error) &&
         read(*it, "per_connection", out.per_connection, error);
}
bool read_opt(const json& j, const char* key, std::optional<bool>& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  bool v = false;
  if (!read(j, key, v, error)) return false;
  out = v;
  return true;
}

}  // namespace

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::kConnection: return "connection";
    case EventKind::kCompletion: return "completion";
    case EventKind::kAsync: return "async";
    case EventKind::kClc: return "clc";
  }
  return "?";
}

json to_json(const Capabilities& c) {
  return {{"backend", c.backend},
          {"device", c.device},
          {"vendor", c.vendor},
          {"firmware", c.firmware},
          {"driver", c.driver},
          {"kernel", c.kernel},
          {"transport", c.transport},
          {"address", c.address},
          {"mpa_revisions", c.mpa_revisions},
          {"crc", choice(c.crc)},
          {"markers", choice(c.markers)},
          {"peer_to_peer", c.peer_to_peer},
          {"rtr", c.rtr},
          {"atomics", c.atomics},
          {"immediate_data", c.immediate_data},
          {"memory_windows", c.memory_windows},
          {"remote_invalidate", c.remote_invalidate},
          {"terminate_events", c.terminate_events},
          {"echo", c.echo},
          {"receives", c.receives},
          {"commands", c.commands},
          {"buffers", c.buffers},
          {"max_reply_private_data", c.max_reply_private_data},
          {"max_request_private_data", c.max_request_private_data},
          {"clc", c.clc},
          {"smcr_v1", c.smcr_v1},
          {"notes", c.notes}};
}

std::optional<Capabilities> capabilities_from_json(const json& j, std::string& error) {
  if (!j.is_object()) {
    error = "capabilities must be an object";
    return std::nullopt;
  }
  Capabilities c;
  c.mpa_revisions.clear();
  bool ok = read(j, "backend", c.backend, error) && read(j, "device", c.device, error) &&
            read(j, "vendor", c.vendor, error) && read(j, "firmware", c.firmware, error) &&
            read(j, "transport", c.transport, error) && read(j, "address", c.address, error) &&
            read(j, "crc", c.crc, error) && read(j, "markers", c.markers, error) &&
            read(j, "peer_to_peer", c.peer_to_peer, error) && read(j, "rtr", c.rtr, error) &&
            read(j, "atomics", c.atomics, error) && read(j, "immediate_data", c.immediate_data, error) &&
            read(j, "memory_windows", c.memory_windows, error) &&
            read(j, "remote_invalidate", c.remote_invalidate, error) &&
            read(j, "terminate_events", c.terminate_events, error) && read(j, "echo", c.echo, error) &&
            read(j, "receives", c.receives, error) && read(j, "commands", c.commands, error) &&
            read(j, "buffers", c.buffers, error) &&
            read_uint(j, "max_reply_private_data", c.max_reply_private_data, 1u << 20, error) &&
            read_uint(j, "max_request_private_data", c.max_request_private_data, 1u << 20, error) &&
            read(j, "clc", c.clc, error) && read(j, "notes", c.notes, error) &&
            (!j.contains("smcr_v1") || read(j, "smcr_v1", c.smcr_v1, error)) &&  // optional: agents before it
            (!j.contains("driver") || read(j, "driver", c.driver, error)) &&
            (!j.contains("kernel") || read(j, "kernel", c.kernel, error));
  if (ok) {
    if (const auto it = j.find("mpa_revisions"); it != j.end()) {
      if (!it->is_array()) {
        error = "'mpa_revisions' must be a list of 1 and 2";
        return std::nullopt;
      }
      for (const json& v : *it) {
        if (!v.is_number_unsigned() || (v.get<std::uint64_t>() != 1 && v.get<std::uint64_t>() != 2)) {
          error = "'mpa_revisions' must be a list of 1 and 2";
          return std::nullopt;
        }
        c.mpa_revisions.push_back(static_cast<int>(v.get<std::uint64_t>()));
      }
    }
  }
  if (!ok) return std::nullopt;
  return c;
}

json to_json(const MpaConfig& m) {
  json j = json::object();
  if (m.revision) j["revision"] = *m.revision;
  if (m.crc) j["crc"] = *m.crc;
  if (m.markers) j["markers"] = *m.markers;
  if (m.peer_to_peer) j["peer_to_peer"] = *m.peer_to_peer;
  return j;
}

std::optional<MpaConfig> mpa_from_json(const json& j, std::string& error) {
  MpaConfig m;
  if (j.is_null()) return m;
  if (!j.is_object()) {
    error = "'mpa' must be an object";
    return std::nullopt;
  }
  if (const auto it = j.find("revision"); it != j.end() && !it->is_null()) {
    if (!it->is_number_unsigned() || (it->get<std::uint64_t>() != 1 && it->get<std::uint64_t>() != 2)) {
      error = "'mpa.revision' must be 1 or 2 (RFC 5044, RFC 6581)";
      return std::nullopt;
    }
    m.revision = static_cast<int>(it->get<std::uint64_t>());
  }
  if (!read_opt(j, "crc", m.crc, error) || !read_opt(j, "markers", m.markers, error) ||
      !read_opt(j, "peer_to_peer", m.peer_to_peer, error)) {
    error = "mpa: " + error;
    return std::nullopt;
  }
  return m;
}

json to_json(const Event& e, std::uint64_t seq) {
  json j = {{"seq", seq}, {"kind", to_string(e.kind)}, {"handle", e.handle}, {"local", e.local},
            {"peer", e.peer}, {"name", e.name}};
  if (!e.status.empty()) j["status"] = e.status;
  if (e.kind == EventKind::kCompletion) {
    j["byte_len"] = e.byte_len;
    j["wr_id"] = e.wr_id;
  }
  if (!e.detail.empty()) j["detail"] = e.detail;
  return j;
}

std::optional<Event> event_from_json(const json& j, std::uint64_t& seq, std::string& error) {
  if (!j.is_object()) {
    error = "an event must be an object";
    return std::nullopt;
  }
  Event e;
  std::string kind;
  seq = 0;
  if (!read_uint(j, "seq", seq, ~std::uint64_t{0}, error) || !read(j, "kind", kind, error) ||
      !read_uint(j, "handle", e.handle, ~std::uint64_t{0}, error) || !read(j, "local", e.local, error) ||
      !read(j, "peer", e.peer, error) || !read(j, "name", e.name, error) || !read(j, "status", e.status, error) ||
      !read_uint(j, "byte_len", e.byte_len, 0xffffffffu, error) ||
      !read_uint(j, "wr_id", e.wr_id, ~std::uint64_t{0}, error) || !read(j, "detail", e.detail, error))
    return std::nullopt;
  if (kind == "connection") e.kind = EventKind::kConnection;
  else if (kind == "completion") e.kind = EventKind::kCompletion;
  else if (kind == "async") e.kind = EventKind::kAsync;
  else if (kind == "clc") e.kind = EventKind::kClc;
  else {
    error = "unknown event kind '" + kind + "'";
    return std::nullopt;
  }
  return e;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace rdmaconf::agent
