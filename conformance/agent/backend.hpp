// What a device agent backend offers: the one header a backend author reads.
//
// rdmaconf-agent runs on the host of the device under test (the IUT). The
// tester (`rdmaconf run --agent`) speaks raw MPA/DDP/RDMAP or CLC to the
// device over TCP and asks the agent, over its control channel, for what only
// the device's host can do: make the device listen or connect as the test ULP
// (docs/conformance.md, "Test ULP"), and report what the device saw locally
// (completions, async events, connection state). A backend is that "what only
// the host can do" for one kind of device:
//
//   reference   the built-in reference IUT over TCP (conformance/engine/
//               responder.hpp), so every agent path runs in CI without hardware
//   rdma-core   libibverbs + librdmacm, any RNIC (iWARP through rdma_cm)
//
// Rules for a backend:
//  - Thread safety: the control channel calls any method from any of its
//    threads, concurrently. Events are delivered from the backend's threads.
//  - Never block a call for longer than the operation needs (listen binds and
//    returns; connect starts the connection and returns, its outcome arrives
//    as events).
//  - What the device cannot do is declared in capabilities(), not failed:
//    the tester turns every missing `needs` item into `unimplemented`.
//  - Every event names the connection's local and peer TCP address as the
//    device's host sees them: that is how the tester ties an event to the
//    case whose TCP connection it is (docs/agent.md, "Correlation").
//  - Nothing here uses more than the C++ standard library, so the interface
//    has no opinion on how a backend talks to its device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rdmaconf::agent {

// ---------------------------------------------------------------- capabilities

// How a setting can be chosen for a connection.
struct Choice {
  bool can_on = false;   // the backend can run connections with it on
  bool can_off = false;  // ... and with it off
  bool per_connection = false;  // chosen per listen/connect (else: fixed for the device, e.g. a module parameter)
};

// What the device (and the backend driving it) can do. Each field says which
// `needs` items of the catalogue (docs/conformance.md, header `needs`) it
// decides; lacks() below computes the list the tester treats as
// `--iut-lacks`.
// The host's kernel release (uname -r), for the capabilities; empty when
// uname fails.
std::string kernel_release();

struct Capabilities {
  std::string backend;    // "reference", "rdma-core"
  std::string device;     // "siw_eth0", "reference"
  std::string vendor;     // vendor id/name as the device reports it
  std::string firmware;   // firmware version, empty when none
  std::string driver;     // the kernel driver behind the device ("siw", "rxe", "irdma"), empty when unknown
  std::string kernel;     // the device host's kernel release (uname -r)
  std::string transport;  // "iwarp", "roce", "tcp" (reference)
  std::string address;    // IP address the device listens on / connects from, empty = any

  // MPA (RFC 5044, RFC 6581). Revisions the device can run: {1}, {2}, {1, 2}
  // (needs `rev2` when 2 is missing).
  std::vector<int> mpa_revisions{1};
  Choice crc;      // CRC (RFC 5044 §4.4); can_off false -> lacks `no-crc`
  Choice markers;  // Markers (RFC 5044 §4.3); can_on false -> lacks `markers`
  // Peer-to-peer model with RTR (RFC 6581 §9): which zero-length RTR kinds
  // the device can send/accept: any of "send", "write", "read".
  bool peer_to_peer = false;
  std::vector<std::string> rtr;

  // RDMAP (RFC 5040, RFC 7306).
  bool atomics = false;         // `atomics`
  bool immediate_data = false;  // `immediate`
  bool memory_windows = false;  // informational (no case needs it yet)
  bool remote_invalidate = false;  // buffers `inv`/`noinv` differ (RFC 5040 §6.2 Send with Invalidate)
  // Reports a Terminate it sent or received as an async event named so
  // (`terminate-events`). Verbs has no such event: an RNIC shows only the QP
  // going to error and the flushed work, so cases that check the Terminate
  // itself in the IUT's report are unimplemented there.
  bool terminate_events = false;

  // The test ULP profile.
  bool echo = false;      // echoes every Send (`echo`)
  bool receives = false;  // posts receives for Sends (`receives`)
  bool commands = false;  // obeys test ULP commands (`commands`)
  // Buffers it registers and advertises (`buffer:NAME`): some of
  // rw ro wo local inv noinv otherpd stale recv.
  std::vector<std::string> buffers;
  // Private data limits: what the device lets the ULP put in an MPA Reply
  // (the advertisement rides there) and in a Request it sends. rdma_cm and
  // iWARP drivers cap this below RFC 5044's 512 octets; 0 = unknown.
  std::size_t max_reply_private_data = 0;
  std::size_t max_request_private_data = 0;

  // SMC-R CLC (RFC 7609, SMC v2) through the host's AF_SMC stack.
  bool clc = false;  // `clc`
  // SMC-R version 1 (`smcr-v1`): Linux runs it only over a RoCE v1 GID, and
  // a device with RoCE v2 GIDs alone (soft-RoCE) cannot carry it.
  bool smcr_v1 = true;

  // Anything a vendor engineer should read (module parameters, limits).
  std::vector<std::string> notes;
};

// The `needs` items (and "buffer:NAME" items) the device does not offer, in
// the form RunOptions::iut_lacks takes. Defined in capabilities.cpp.
std::vector<std::string> lacks(const Capabilities& c);

// ------------------------------------------------------------ configurations

// How one listener or connection runs MPA. The tester runs the catalogue once
// per configuration the device can choose and labels each pass in the report.
// nullopt = the backend's default (reference: whatever the tester's Request
// asks; rdma-core: the device's fixed setting).
struct MpaConfig {
  std::optional<int> revision;       // 1 or 2
  std::optional<bool> crc;           // the device asks for CRC
  std::optional<bool> markers;       // the device asks for Markers
  std::optional<bool> peer_to_peer;  // Rev 2 enhanced setup with RTR (as initiator: what the Request offers)
  std::string label() const;         // "rev2 crc=on markers=off", "default"
};

// listen(): accept MPA connections as the test ULP's responder (the tester
// connects as MPA initiator). Port 0 picks a free port.
struct ListenRequest {
  std::string host;  // empty = Capabilities::address, or the backend's default
  std::uint16_t port = 0;
  MpaConfig mpa;
};

// connect(): connect to a tester listening at host:port as the test ULP's MPA
// initiator (initiator-role cases).
struct ConnectRequest {
  std::string host;
  std::uint16_t port = 0;
  MpaConfig mpa;
  std::string case_id;  // for the backend's log only
};

// clc_listen()/clc_connect(): the host's SMC stack as CLC server / client
// (an AF_SMC socket), for the clc suite.
struct ClcListenRequest {
  std::string host;
  std::uint16_t port = 0;
};
struct ClcConnectRequest {
  std::string host;
  std::uint16_t port = 0;
  std::string case_id;
};

// What listen()/connect() return: an id for later calls and events, and the
// address the device listens on (listen) or is connecting from when known.
struct Handle {
  std::uint64_t id = 0;
  std::string address;  // "10.0.0.2:7001"
};

struct Error {
  std::string message;  // one line a vendor engineer can act on
};

template <typename T>
struct Outcome {
  std::optional<T> value;
  Error error;
  explicit operator bool() const { return value.has_value(); }
};

// ------------------------------------------------------------------- events

enum class EventKind : std::uint8_t {
  kConnection,  // state of a connection: name = "established", "rejected", "closed", "failed"
  kCompletion,  // a work completion: name = opcode ("recv", "send", "rdma_read", "rdma_write", "atomic", "recv_imm")
  kAsync,       // an async event or local error: name = "terminate_sent", "terminate_received", "local_length_error", ...
  kClc,         // what the SMC stack says: name = "smc", "fallback", with the reason in detail
};

struct Event {
  EventKind kind = EventKind::kConnection;
  std::uint64_t handle = 0;   // the listener or connect Handle it belongs to
  std::string local, peer;    // TCP addresses of the connection as the device's host sees them, "ip:port"
  std::string name;           // see EventKind
  std::string status;         // completions: "success" or the error ("local length error", "remote access error"...)
  std::uint32_t byte_len = 0; // completions: octets transferred
  std::uint64_t wr_id = 0;    // completions: the work request
  std::string detail;         // free text: Terminate layer/type/code, fallback reason, rdma_cm event name
};

using EventSink = std::function<void(Event)>;

// ------------------------------------------------------------------ backend

class Backend {
 public:
  virtual ~Backend() = default;

  // The sink receives every event from now on (set once, before listen or
  // connect). It may be called from any backend thread, never re-entrantly
  // from inside a Backend call.
  virtual void set_event_sink(EventSink sink) = 0;

  virtual Capabilities capabilities() = 0;

  virtual Outcome<Handle> listen(const ListenRequest& r) = 0;
  virtual Outcome<Handle> connect(const ConnectRequest& r) = 0;
  virtual Outcome<Handle> clc_listen(const ClcListenRequest& r) = 0;
  virtual Outcome<Handle> clc_connect(const ClcConnectRequest& r) = 0;

  // Ends a listener (no more accepts) or a connection started by connect,
  // and every connection it accepted. Unknown ids are an error.
  virtual Outcome<bool> close(std::uint64_t id) = 0;

  // Ends everything; after stop() only the destructor is called.
  virtual void stop() = 0;
};

// Factories (each backend's own .cpp). create_rdma_core returns nullptr with
// `error` set when the build or the host lacks it (no libibverbs, no device).
std::unique_ptr<Backend> create_reference_backend(const std::vector<std::string>& faults, std::string& error);
std::unique_ptr<Backend> create_rdma_core_backend(const std::string& device, std::string& error);

}  // namespace rdmaconf::agent
