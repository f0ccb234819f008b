"""DDP over SCTP (RFC 5043) for check_plugin.py sctp: the SCTP observer's
violations as the plugin's expert infos, exactly analyze's (frame, rule id),
on the captures of make_sctp_captures.cpp, on the real usrsctp capture and on
copies of it with one chunk changed, on the real kernel SCTP capture (SCTP on
IP); on the clean ones, per frame, the messages the plugin shows are decode's."""
import json
import os
import struct
import subprocess
import sys

from check_plugin import (analyze_view, as_list, make_readable, number, opcode_names, outside, plugin_view,
                          run_tshark, walk)


def sctp_messages(packets):
    """Per frame: the DDP/SCTP messages the plugin's PPID dissectors show, in order:
    ("Session Control", function code) and ("DDP segment", RDMAP opcode)."""
    shown = {}
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        frame = int(layers["frame"]["frame.number"])
        rdmaps = iter(as_list(layers.get("rdmaconf.rdmap", [])))
        seen = []
        for layer in as_list(layers.get("rdmaconf.ddp_sctp", [])):
            fields = {k: v for p, k, v in walk(layer) if outside(p, "violation")}
            if "rdmaconf.ddp_sctp.function_code" in fields:
                seen.append(("Session Control", number(fields["rdmaconf.ddp_sctp.function_code"])))
            elif "rdmaconf.ddp_sctp.ddp_ssn" in fields:
                rdmap = {k: v for p, k, v in walk(next(rdmaps, {})) if outside(p, "Terminated")}
                seen.append(("DDP segment", number(rdmap.get("rdmaconf.rdmap.opcode", "-1"))))
        if seen:
            shown[frame] = seen
    return shown


def sctp_decoded(args, capture, opcodes):
    """Per frame: the same from `rdmaconf decode --json`."""
    p = subprocess.run([args.rdmaconf, "decode", capture, "--json", "-"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rdmaconf decode failed ({p.returncode}) on {capture}: {p.stderr}")
    decoded = {}
    for m in json.loads(p.stdout):
        if m["unit"] == SCTP_UNITS["control"]:
            key = ("Session Control", SCTP_FUNCTIONS[m["type"]])
        elif m["unit"] == SCTP_UNITS["segment"]:
            key = ("DDP segment", opcodes[m["type"]])
        else:
            continue
        decoded.setdefault(m["frame"], []).append(key)
    return decoded


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def pcapng_packets(data):
    """(offset of the packet data, captured length) of every Enhanced Packet Block
    of a little-endian pcapng file (pcapng §4.3)."""
    out, at = [], 0
    while at + 12 <= len(data):
        kind, length = struct.unpack_from("<II", data, at)
        if kind == 6:
            out.append((at + 28, struct.unpack_from("<I", data, at + 20)[0]))
        at += length
    return out


def craft_sctp(capture, edits, out, sctp_at):
    """The capture with DATA chunks changed, each edit (frame, chunk index in
    the packet, function(chunk bytearray)), the packet's CRC32c recomputed in
    the byte order the original uses (RFC 9260 §6.8, App. A). `sctp_at`: the
    SCTP common header's offset in a frame."""
    data = bytearray(open(capture, "rb").read())
    packets = pcapng_packets(data)
    for frame, index, change in edits:
        start, length = packets[frame - 1]
        packet = data[start + sctp_at:start + length]
        original = bytes(packet[8:12])
        packet[8:12] = b"\0\0\0\0"
        crc = crc32c(bytes(packet))
        order = "<I" if struct.pack("<I", crc) == original else ">I"
        if struct.pack(order, crc) != original:
            sys.exit(f"{capture}: frame {frame}: the CRC32c does not check before the edit")
        at, n = 12, 0
        while at + 4 <= len(packet):
            chunk_length = struct.unpack_from(">H", packet, at + 2)[0]
            if n == index:
                chunk = packet[at:at + chunk_length]
                change(chunk)
                packet[at:at + chunk_length] = chunk
                break
            at += (chunk_length + 3) & ~3
            n += 1
        packet[8:12] = struct.pack(order, crc32c(bytes(packet)))
        data[start + sctp_at:start + length] = packet
    open(out, "wb").write(bytes(data))


def clear_u(chunk):
    chunk[1] &= ~0x04  # DATA chunk flags: U is bit 2 (RFC 9260 §3.3.1)


def function_code(value):
    def change(chunk):
        # A Session Control message after the DATA chunk header: DDP-SSN, then Function Code (RFC 5043 §5.2.3).
        chunk[18:20] = struct.pack(">H", value)
    return change


# The real capture (ethernet on lo, IPv4, UDP: SCTP at octet 42) with one
# rule broken: (edits, the rules analyze must report). Frames read by hand
# (pcap/tests/sctp_captures_test.cpp): 5 the Initiate, 32 the initiator's
# Terminate, each one DATA chunk first in its packet.
SCTP_REAL_AT = 42
SCTP_CRAFTED = [
    # The Initiate without U.
    ([(5, 0, clear_u)], {(5, "rfc5043-10-unordered"): 1}),
    # The Terminate made a second Initiate: no legal sequence has one there.
    ([(32, 0, function_code(1))], {(32, "rfc5043-6.1-legal-pattern"): 1}),
]
SCTP_UNITS = {"control": "DDP Stream Session Control", "segment": "DDP segment"}
SCTP_FUNCTIONS = {"DDP Stream Session " + f: code for f, code in
                  (("Initiate", 1), ("Accept", 2), ("Reject", 3), ("Terminate", 4))}


def check_sctp(args):
    os.makedirs(args.workdir, exist_ok=True)
    subprocess.run([args.make_sctp_captures, args.workdir], check=True)
    opcodes = opcode_names(args)
    failures = []
    runs = []  # (name, capture, tshark arguments, want: None (clean) or rule ids or {(frame, rule): n})
    for e in json.load(open(os.path.join(args.workdir, "expected.json"))):
        capture = os.path.join(args.workdir, e["file"])
        # Over UDP the plugin takes the SCTP packets whatever Wireshark decodes
        # (not decoded as SCTP: no DDP message shown, the violations all the same).
        runs.append((e["name"], capture, (), e["violations"] or None))
        if e["over_udp"]:
            runs.append((e["name"] + " (UDP not decoded)", capture, ("-d", "udp.port==9899,data"),
                         e["violations"] or None))
    for shared in args.shared:
        copy = os.path.join(args.workdir, os.path.basename(shared))
        with open(shared, "rb") as src, open(copy, "wb") as dst:
            dst.write(src.read())
        # usrsctp's encapsulation port (captures/real/README.md).
        decode_as = ("-d", "udp.port==43784,sctp")
        runs.append((os.path.basename(shared), copy, decode_as, None))
        runs.append((os.path.basename(shared) + " (UDP not decoded)", copy, (), None))
        for k, (edits, want) in enumerate(SCTP_CRAFTED):
            out = os.path.join(args.workdir, f"crafted-{k}-{os.path.basename(shared)}")
            craft_sctp(copy, edits, out, SCTP_REAL_AT)
            runs.append((os.path.basename(out), out, decode_as, want))
    # SCTP on IP, as the kernel's SCTP sends it: Wireshark decodes it as SCTP by itself.
    for shared in args.shared_ip:
        copy = os.path.join(args.workdir, os.path.basename(shared))
        with open(shared, "rb") as src, open(copy, "wb") as dst:
            dst.write(src.read())
        runs.append((os.path.basename(shared), copy, (), None))
    make_readable(args.workdir)
    for name, capture, extra, want in runs:
        out, _ = run_tshark(args, "-r", capture, "-2", "-T", "json", "--no-duplicate-keys", *extra)
        packets = json.loads(out)
        _, experts, _, _ = plugin_view(packets)
        analyzed, _, _ = analyze_view(args, capture)
        if experts != analyzed:
            failures.append(f"{name}: plugin {sorted(experts.items())} != analyze {sorted(analyzed.items())}")
        rules = {rule for _, rule in analyzed}
        if want is None:
            if analyzed:
                failures.append(f"{name}: a clean capture has violations {sorted(analyzed.items())}")
            # The messages shown, where Wireshark decodes SCTP.
            if "not decoded" not in name:
                shown, decoded = sctp_messages(packets), sctp_decoded(args, capture, opcodes)
                if shown != decoded:
                    failures.append(f"{name}: plugin shows {shown}, decode {decoded}")
                if not decoded:
                    failures.append(f"{name}: no DDP/SCTP message decoded")
        elif isinstance(want, dict):
            if dict(analyzed) != want:
                failures.append(f"{name}: analyze reports {dict(analyzed)}, want {want}")
        elif set(want) - rules:
            failures.append(f"{name}: analyze does not report {sorted(set(want) - rules)} (reports {sorted(rules)})")
        print(f"{name}: violations {sorted(experts.items())}")
    if failures:
        sys.exit("\n".join(failures))
