#!/usr/bin/env python3
"""Checks the rdmaconf Wireshark plugin with tshark.

  check_plugin.py captures  tshark -T json on the generated captures (and on
                            sessions recorded live between two reference
                            endpoints) agrees with `rdmaconf decode --json`:
                            per frame, the same messages (MPA Request/Reply,
                            FPDU with opcode and MSN or STag, CLC type); its
                            expert infos are exactly `rdmaconf analyze`'s
                            violations (rule id and frame); each crafted
                            capture makes analyze report the rule it was
                            built to break (and a diagnosis capture the
                            mistake, with the plugin showing the same hints);
                            real Linux captures agree the same way; clean
                            captures also match the
                            reference codecs' counts (expected.json)
  check_plugin.py fields    every FieldDecl of every declaration is a field
  check_plugin.py fuzz      the fuzz corpora under tshark: no crash, no
                            "Dissector bug" / malformed-packet report
  check_plugin.py sctp      (check_sctp.py) DDP over SCTP: the SCTP observer's violations as
                            expert infos, exactly analyze's, on crafted
                            captures and the real usrsctp one (and copies of
                            it with one rule broken); decode's messages on
                            the clean ones
  check_plugin.py ulp       the real NFS/RDMA and iSER captures: the RPC
                            messages and iSCSI PDUs the plugin hands to
                            Wireshark's rpc and iscsi dissectors, counted by
                            procedure and opcode, every RDMA transfer tied to
                            what the ULP advertised, nothing malformed

tshark runs through tshark_with_plugin.sh (unprivileged when run as root).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from collections import Counter


def run_tshark(args, *tshark_args):
    cmd = [args.runner, args.plugin, args.abi, *tshark_args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"tshark failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr}")
    return p.stdout, p.stderr


def make_captures(args, *extra):
    os.makedirs(args.workdir, exist_ok=True)
    subprocess.run([args.make_captures, *extra], check=True)
    make_readable(args.workdir)


def make_readable(workdir):
    """tshark may run as nobody: the captures must be world-readable."""
    for root, dirs, files in os.walk(workdir):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    for d in (workdir, os.path.dirname(workdir)):
        os.chmod(d, os.stat(d).st_mode | 0o755)


def as_list(v):
    return v if isinstance(v, list) else [v]


def walk(node, path=()):
    """Yields (path, key, value) for every leaf of a tshark JSON layer tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            for item in as_list(v):
                if isinstance(item, (dict, list)):
                    yield from walk(item, path + (k,))
                else:
                    yield path, k, item


def number(s):
    return int(s, 0)


def opcode_names(args):
    """RDMAP opcode names -> values, from the plugin's own value strings."""
    out, _ = run_tshark(args, "-G", "values")
    names = {}
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[0] == "V" and parts[1] == "rdmaconf.rdmap.opcode":
            names[parts[3]] = int(parts[2], 0)
    return names


CLC_TYPES = {"CLC Proposal": 1, "CLC Accept": 2, "CLC Confirm": 3, "CLC Decline": 4}


def outside(path, *words):
    return not any(w in p for p in path for w in words)


def plugin_view(packets):
    """Per frame: the messages the plugin shows, in order, and its violations."""
    messages = {}
    violations = Counter()
    counts = Counter()
    hints = Counter()
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        frame = int(layers["frame"]["frame.number"])
        for path, key, value in walk(layers):
            if key == "_ws.expert.message" and re.match(r"^(rfc|smcv2)", value):
                violations[(frame, value.split()[0])] += 1
                if "[hint: " in value:
                    hints[(frame, value.split()[0])] += 1
        seen = []
        ddps = as_list(layers.get("rdmaconf.ddp", []))
        rdmaps = iter(as_list(layers.get("rdmaconf.rdmap", [])))
        fpdu = 0
        for mpa in as_list(layers.get("rdmaconf.mpa", [])):
            fields = {k: v for p, k, v in walk(mpa) if outside(p, "violation")}
            if "rdmaconf.mpa.rr.key" in fields:
                kind = "MPA Request" if "Req" in fields["rdmaconf.mpa.rr.key"] else "MPA Reply"
                seen.append((kind,))
                counts["mpa_request" if kind == "MPA Request" else "mpa_reply"] += 1
            elif "rdmaconf.mpa.ulpdu_length" in fields:
                counts["fpdus"] += 1
                ddp = {k: v for p, k, v in walk(ddps[fpdu])} if fpdu < len(ddps) else {}
                fpdu += 1
                if "rdmaconf.ddp.payload_length" not in ddp:
                    seen.append(("FPDU",))
                    continue
                rdmap = {k: v for p, k, v in walk(next(rdmaps)) if outside(p, "Terminated")}
                op = number(rdmap["rdmaconf.rdmap.opcode"])
                counts[f"opcode.{op}"] += 1
                if number(ddp["rdmaconf.ddp.t"]):
                    seen.append(("FPDU", op, "stag", number(ddp["rdmaconf.ddp.stag"])))
                else:
                    seen.append(("FPDU", op, "msn", number(ddp["rdmaconf.ddp.msn"])))
        for clc in as_list(layers.get("rdmaconf.clc", [])):
            fields = {k: v for p, k, v in walk(clc) if outside(p, "violation")}
            if "rdmaconf.clc.type" in fields:
                seen.append(("CLC", number(fields["rdmaconf.clc.type"])))
                counts[f"clc.{number(fields['rdmaconf.clc.type'])}"] += 1
        # SMC-R over RoCEv2: each LLC message by type, each CDC message by
        # sequence number, marked when the RC transport sent it again.
        retransmission = any(k == "rdmaconf.roce.retransmission" for _, k, _ in walk(layers.get("rdmaconf.roce", {})))
        for llc in as_list(layers.get("rdmaconf.smcr.llc", [])):
            fields = {k: v for p, k, v in walk(llc) if outside(p, "violation")}
            seen.append(("LLC", number(fields["rdmaconf.smcr.llc.type"]), retransmission))
        for cdc in as_list(layers.get("rdmaconf.smcr.cdc", [])):
            fields = {k: v for p, k, v in walk(cdc) if outside(p, "violation")}
            seen.append(("CDC", number(fields["rdmaconf.smcr.cdc.seqno"]), retransmission))
        if seen:
            messages[frame] = seen
    return messages, violations, counts, hints


def decode_view(args, capture, opcodes):
    """Per frame: the messages `rdmaconf decode CAPTURE --json -` reports, in order."""
    p = subprocess.run([args.rdmaconf, "decode", capture, "--json", "-"], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rdmaconf decode failed ({p.returncode}) on {capture}: {p.stderr}")
    messages = {}
    for m in json.loads(p.stdout):
        if m["unit"] == "RoCEv2":
            # SMC-R's RC Sends: LLC and CDC messages (the plugin shows RDMA
            # Writes as RMB data, Acknowledges are Wireshark's).
            if "llc.type" in m:
                key = ("LLC", number(m["llc.type"]), bool(m.get("retransmission")))
            elif "cdc.seqno" in m:
                key = ("CDC", m["cdc.seqno"], bool(m.get("retransmission")))
            else:
                continue
        elif m["unit"] in ("MPA Request", "MPA Reply"):
            key = (m["unit"],)
        elif m["unit"] == "CLC":
            key = ("CLC", CLC_TYPES[m["type"]])
        elif "t" not in m:
            key = ("FPDU",)
        else:
            t = m["type"]
            op = int(t.rsplit(" ", 1)[1]) if t.startswith("reserved opcode") else opcodes[t]
            key = ("FPDU", op, "stag", int(m["stag"], 16)) if m["t"] else ("FPDU", op, "msn", m["msn"])
        messages.setdefault(m["frame"], []).append(key)
    return messages


ANALYZE_ONLY = {"rfc7609-4.8.1-fin-after-smc-close"}


def analyze_view(args, capture):
    """(frame, rule id) of every violation `rdmaconf analyze --json` reports, those with a
    diagnosis hint, and the mistakes the hints name."""
    out = capture + ".analyze.json"
    p = subprocess.run([args.rdmaconf, "analyze", capture, "--json", out, "-q"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"rdmaconf analyze failed ({p.returncode}) on {capture}: {p.stderr}")
    # The FIN after the SMC-R close (RFC 7609 §4.8.1) is analyze's alone: the plugin's TCP
    # observers are not told where FINs fall (docs/dissector.md).
    violations = [v for v in json.load(open(out))["violations"] if v["rule"] not in ANALYZE_ONLY]
    return (Counter((v["frame"], v["rule"]) for v in violations),
            Counter((v["frame"], v["rule"]) for v in violations if v.get("hint")),
            {v["mistake"] for v in violations if v.get("mistake")})


def compare(args, name, capture, opcodes, extra=()):
    """Plugin vs decode and analyze on one capture; returns (failures, plugin counts, analyze
    rules, decode's messages, the mistakes analyze's hints name)."""
    out, _ = run_tshark(args, "-r", capture, "-2", "-T", "json", "--no-duplicate-keys", *extra)
    shown, experts, counts, plugin_hints = plugin_view(json.loads(out))
    decoded = decode_view(args, capture, opcodes)
    analyzed, analyzed_hints, mistakes = analyze_view(args, capture)
    failures = []
    for frame in sorted(set(shown) | set(decoded)):
        if shown.get(frame) != decoded.get(frame):
            failures.append(f"{name}: frame {frame}: plugin shows {shown.get(frame)}, decode {decoded.get(frame)}")
    if experts != analyzed:
        failures.append(f"{name}: plugin violations {sorted(experts.items())} != analyze {sorted(analyzed.items())}")
    if plugin_hints != analyzed_hints:
        failures.append(f"{name}: plugin hints {sorted(plugin_hints.items())} != analyze {sorted(analyzed_hints.items())}")
    print(f"{name}: {sum(len(v) for v in decoded.values())} messages in {len(decoded)} frames, "
          f"violations {sorted(experts.items())}" + (f", hints {sorted(mistakes)}" if mistakes else ""))
    return failures, counts, {rule for _, rule in analyzed}, decoded, mistakes


def compare_all(args, jobs, opcodes):
    """compare() on every (name, capture, extra) of jobs, two at a time (each runs tshark, decode
    and analyze one after the other); the results in the order of jobs."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda j: compare(args, *j[:2], opcodes, *j[2:]), jobs))


def check_captures(args):
    make_captures(args, args.workdir)
    opcodes = opcode_names(args)
    expected = json.load(open(os.path.join(args.workdir, "expected.json")))
    failures = []
    jobs = [(e["name"], os.path.join(args.workdir, e["file"]),
             ("-d", "tcp.port==4791,rdmaconf.mpa") if e["name"] == "iwarp_midstream" else ()) for e in expected]
    for e, (f, counts, rules, decoded, mistakes) in zip(expected, compare_all(args, jobs, opcodes)):
        failures += f
        if e["violations"]:
            # The crafted fault must be seen, or the capture tests nothing.
            missing = set(e["violations"]) - rules
            if missing:
                failures.append(f"{e['name']}: analyze does not report {sorted(missing)} (reports {sorted(rules)})")
            # A diagnosis capture: the mistake must be named, by analyze and the plugin alike.
            missing = set(e.get("mistakes", [])) - mistakes
            if missing:
                failures.append(f"{e['name']}: analyze gives no hint {sorted(missing)}")
        else:
            if rules:
                failures.append(f"{e['name']}: a clean capture has violations {sorted(rules)}")
            # Clean captures: also the reference codecs' own count of what was sent.
            if e["counts"] and counts != Counter(e["counts"]):
                failures.append(f"{e['name']}: counts {dict(counts)} != expected {e['counts']}")
            if not decoded:
                failures.append(f"{e['name']}: no message decoded")
    # The captures shared in the tree (the capture_file fuzz seeds: iWARP over
    # IPv4 and IPv6, pcap and pcapng, SMC-R CLC; the real Linux captures of
    # pcap/tests/captures/real, whose deviations the plugin must show as
    # analyze reports them).
    shared = [s for s in args.shared if os.path.exists(s)]
    for path in shared:
        with open(path, "rb") as src, open(os.path.join(args.workdir, "shared_" + os.path.basename(path)), "wb") as dst:
            dst.write(src.read())
    make_readable(args.workdir)
    jobs = [(os.path.basename(s), os.path.join(args.workdir, "shared_" + os.path.basename(s))) for s in shared]
    for path, (f, counts, rules, decoded, _) in zip(shared, compare_all(args, jobs, opcodes)):
        failures += f
        # (A real capture may hold no message of ours: a fallback to TCP.)
        if not decoded and "captures/real" not in path:
            failures.append(f"{path}: no message decoded")
    if args.record_live:
        live = os.path.join(args.workdir, "live")
        os.makedirs(live, exist_ok=True)
        subprocess.run([args.record_live, live], check=True)
        make_readable(args.workdir)
        recorded = [f for f in sorted(os.listdir(live)) if f.endswith(".pcapng")]
        jobs = [("live/" + f, os.path.join(live, f)) for f in recorded]
        for f, (fl, counts, rules, decoded, _) in zip(recorded, compare_all(args, jobs, opcodes)):
            failures += fl
            if rules or sum(len(v) for v in decoded.values()) < 15:
                failures.append(f"live/{f}: violations {sorted(rules)}, {len(decoded)} frames with messages")
    if failures:
        sys.exit("\n".join(failures))


def check_fields(args):
    out, err = run_tshark(args, "-G", "fields")
    # Loading the plugin is silent: a warning here (two Decode As entries of
    # one name, a field registered twice) is printed at every tshark start.
    warnings = [l for l in err.splitlines() if l.strip() and not l.startswith("Running as user")]
    if warnings:
        sys.exit(f"tshark warns when it loads the plugin: {warnings[:5]}")
    fields = {line.split("\t")[2] for line in out.splitlines() if line.startswith("F\t")}
    ours = sorted(f for f in fields if f.startswith("rdmaconf."))
    # A few names every user types, generated from the declarations.
    required = ["rdmaconf.rdmap.opcode", "rdmaconf.ddp.stag", "rdmaconf.ddp.msn", "rdmaconf.mpa.ulpdu_length",
                "rdmaconf.mpa.crc", "rdmaconf.mpa.crc.status", "rdmaconf.mpa.rr.key", "rdmaconf.mpa.enhanced.ird",
                "rdmaconf.mpa.marker.fpduptr", "rdmaconf.rdmap.term.layer", "rdmaconf.rdmap.immediate_data",
                "rdmaconf.rdmap.atomic.atomic_opcode", "rdmaconf.clc.eyecatcher", "rdmaconf.clc.decline.diagnosis",
                "rdmaconf.clc.v2ext.release", "rdmaconf.violation.rule", "rdmaconf.roce.bth.opcode",
                "rdmaconf.roce.reth.va", "rdmaconf.smcr.llc.type", "rdmaconf.smcr.llc.confirm_link.link_num",
                "rdmaconf.smcr.llc.delete_link.flags.orderly", "rdmaconf.smcr.llc.rkey",
                "rdmaconf.smcr.llc.request_in", "rdmaconf.smcr.cdc.prod_cursor", "rdmaconf.smcr.cdc.urg_pending",
                "rdmaconf.smcr.cdc.producer", "rdmaconf.smcr.cdc.receiver_rmbe_size", "rdmaconf.roce.retransmission"]
    missing = [f for f in required if f not in fields]
    if missing:
        sys.exit(f"missing fields: {missing}")
    # Every generated field filters: a display filter naming each one compiles
    # and runs (tshark exits non-zero on a filter it cannot compile).
    make_captures(args, args.workdir)
    capture = os.path.join(args.workdir, "iwarp_basic.pcapng")
    chunk = 60
    for i in range(0, len(ours), chunk):
        run_tshark(args, "-r", capture, "-Y", " || ".join(ours[i:i + chunk]))
    out, _ = run_tshark(args, "-r", capture, "-Y", "rdmaconf.rdmap.opcode == 1")
    if "RDMA Read Request" not in out:
        sys.exit("rdmaconf.rdmap.opcode == 1 does not select the Read Request")
    print(f"{len(ours)} rdmaconf fields registered")


def tshark_survives(args, capture, must_read, *prefs):
    """tshark -2 -V on one capture: no crash, no dissector bug. Returns a failure or None.

    The tree text (some 30 octets of it per octet captured) is scanned in
    octets as it comes: holding and decoding it whole took longer than
    tshark's own run on the larger fuzz captures."""
    cmd = [args.runner, args.plugin, args.abi, "-r", capture, "-2", "-V", *prefs]
    marks = (b"Dissector bug", b"DISSECTOR_ASSERT")
    frame = b"\nFrame "
    # A chunk carries its last octets over, so that a mark its end cuts is
    # found whole in the next; a match that lies wholly in those carried
    # octets was counted already and is searched from past them.
    keep = max(len(m) for m in marks + (frame,)) - 1
    frames, bad, carry, last = 0, [], b"", b""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT) as p:
        while chunk := p.stdout.read(1 << 20):
            text = carry + chunk
            frames += text.count(frame, max(0, len(carry) - len(frame) + 1))
            for m in marks:
                at = text.find(m, max(0, len(carry) - len(m) + 1))
                while at >= 0 and len(bad) < 5:
                    # Its line, at most 300 octets of it around the mark.
                    line_start = max(text.rfind(b"\n", 0, at) + 1, at - 100)
                    line_end = text.find(b"\n", at, at + 200)
                    bad.append(text[line_start:line_end if line_end >= 0 else at + 200].decode(errors="replace"))
                    at = text.find(m, at + 1)
            carry = text[-keep:]
            last = (last + chunk)[-500:]
        returncode = p.wait()
    if returncode < 0 or returncode >= 128 or (must_read and returncode != 0):
        return f"{capture}: tshark exited with {returncode}: {last.decode(errors='replace')}"
    if bad:
        return f"{capture}: {bad}"
    print(f"{os.path.basename(capture)}{' ' + prefs[-1] if prefs else ''}: {frames} frames dissected")
    return None


def check_fuzz(args):
    fuzz_dir = os.path.join(args.workdir, "fuzz")
    # A fresh folder: captures of an earlier run (other corpora) must not count.
    shutil.rmtree(fuzz_dir, ignore_errors=True)
    corpus = args.corpus[0] if args.corpus else None
    make_captures(args, "--fuzz", fuzz_dir, *([corpus] if corpus and os.path.isdir(corpus) else []))
    jobs = [(os.path.join(fuzz_dir, f), True) for f in sorted(os.listdir(fuzz_dir)) if f.endswith(".pcapng")]
    if not jobs:
        sys.exit("no fuzz captures were written")
    # The same captures once more with a ULP named for every port (the
    # Decode As preferences), so that every Send goes through the ULP
    # tracker and its hand-off to rpc or iscsi: RPC-over-RDMA and iSER in turn.
    ulps = ["rdmaconf.mpa.rpcrdma_ports:1-65535", "rdmaconf.mpa.iser_ports:1-65535"]
    jobs += [(capture, True, "-o", ulps[k % 2]) for k, (capture, _) in enumerate(list(jobs))]
    # capture_file inputs are whole pcap/pcapng files: a sample of them goes
    # to tshark as they are (wiretap reads them; unreadable ones may fail,
    # crashing may not). Copied so that nobody can read them.
    files_dir = os.path.join(corpus or "", "capture_file")
    if corpus and os.path.isdir(files_dir):
        sample = sorted(os.listdir(files_dir))[::args.file_sample]
        copy_dir = os.path.join(args.workdir, "capture_file")
        os.makedirs(copy_dir, exist_ok=True)
        for f in sample:
            with open(os.path.join(files_dir, f), "rb") as src, open(os.path.join(copy_dir, f), "wb") as dst:
                dst.write(src.read())
        make_readable(args.workdir)
        jobs += [(os.path.join(copy_dir, f), False) for f in sample]
    with ThreadPoolExecutor(max_workers=2) as pool:
        failures = [f for f in pool.map(lambda j: tshark_survives(args, *j), jobs) if f]
    if failures:
        sys.exit("\n".join(failures))
    print(f"{len(jobs)} captures under tshark, no crash")


# The real captures of pcap/tests/captures/real with upper-layer protocols,
# and what the plugin must show in them. Every count was checked by hand
# against the octets (docs/dissector.md, "NFS/RDMA and iSER"): the RPC calls
# against Wireshark's own RPC-over-RDMA dissector on the same capture (which
# decodes every Call, and every Reply but the three NFS READ Replies whose
# data went by RDMA Write), the iSCSI and CDB opcodes against a walk of the
# Send payloads (iSER header 28 octets, BHS opcode, CDB at BHS octet 32), the
# RDMA transfer counts against the DDP segments per opcode.
ULP_EXPECTED = {
    "ulp-nfsv3-rdma.pcap": {
        # (RPC program, procedure) -> Calls; every Call has its Reply.
        "rpc_calls": {(100003, 0): 1, (100003, 1): 6, (100003, 3): 5, (100003, 4): 5, (100003, 6): 3,
                      (100003, 7): 3, (100003, 8): 2, (100003, 9): 1, (100003, 12): 2, (100003, 13): 1,
                      (100003, 14): 1, (100003, 17): 2, (100003, 18): 1, (100003, 19): 2, (100003, 20): 1,
                      (100003, 21): 1, (100227, 0): 1, (100227, 1): 5},
        "rpcrdma_procs": {0: 79, 1: 7},
        # RPC messages put back together from chunk data: 7 Replies from
        # their Reply chunk, 3 NFS READ Replies with their write chunk, the 2
        # WRITE Calls with their Read chunk.
        "rebuilt": 12,
        # RDMA Writes, Read Requests, Read Responses (DDP segments), each
        # tied to the chunk it fills or reads; Sends with Invalidate tied to
        # the region whose STag they name.
        "transfers": {0: 300, 1: 2, 2: 276},
        "invalidates": 5,
    },
    "ulp-iser-head.pcap": {
        "iscsi_opcodes": {0x01: 57, 0x03: 1, 0x21: 55, 0x23: 1},
        "cdb_opcodes": {0x00: 2, 0x12: 6, 0x1a: 6, 0x28: 37, 0x2a: 2, 0x9e: 2, 0xa0: 1, 0xa3: 1},
        "transfers": {0: 278, 1: 2, 2: 18},
        "invalidates": 53,
        # siw's FPDU header sent alone in a segment (docs/interop.md): the
        # one violation, a SHOULD (warning), as analyze reports it.
        "violation_frames": {606},
    },
}

PI_WARN = 0x00600000


def ulp_view(packets):
    """What the plugin showed of the ULPs, and what any dissector flagged."""
    v = {"rpc_calls": Counter(), "rpc_replies": Counter(), "rpcrdma_procs": Counter(), "rebuilt": 0,
         "iscsi_opcodes": Counter(), "cdb_opcodes": Counter(), "transfers": Counter(), "ties": 0,
         "invalidates": 0, "notes": [], "flagged": []}
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        frame = int(layers["frame"]["frame.number"])
        # RPC over TCP (portmap, MOUNT) is not ours to count.
        for rpc in as_list(layers.get("rpc", [])) if "rdmaconf.rpcrdma" in layers else []:
            f = {k: val for _, k, val in walk(rpc)}
            if "rpc.procedure" in f:
                key = (int(f["rpc.program"]), int(f["rpc.procedure"]))
                v["rpc_calls" if f["rpc.msgtyp"] == "0" else "rpc_replies"][key] += 1
        commands = 0
        for iscsi in as_list(layers.get("iscsi", [])):
            f = {k: val for _, k, val in walk(iscsi)}
            if "iscsi.opcode" in f:
                v["iscsi_opcodes"][number(f["iscsi.opcode"])] += 1
                commands += number(f["iscsi.opcode"]) == 0x01
        # The CDB's opcode, in the frames of SCSI Commands (a Response names
        # its Command's too); one iSCSI PDU per frame in these captures.
        cdbs = {number(val) for scsi in as_list(layers.get("scsi", [])) for _, k, val in walk(scsi)
                if k == "scsi_sbc.opcode"} if commands else set()
        for c in cdbs:
            v["cdb_opcodes"][c] += 1
        for rdmap in as_list(layers.get("rdmaconf.rdmap", [])):
            f = {k: val for p, k, val in walk(rdmap) if outside(p, "Terminated")}
            op = number(f["rdmaconf.rdmap.opcode"])
            if op in (0, 1, 2):
                v["transfers"][op] += 1
        for path, key, value in walk(layers):
            if key in ("rdmaconf.rpcrdma.tie.advertised_in", "rdmaconf.iser.tie.advertised_in"):
                v["ties"] += 1
            elif key in ("rdmaconf.rpcrdma.tie.invalidates", "rdmaconf.iser.tie.invalidates"):
                v["invalidates"] += 1
            elif key == "rdmaconf.rpcrdma.proc":
                v["rpcrdma_procs"][int(value)] += 1
            elif key == "rdmaconf.rpcrdma.rpc_length":
                v["rebuilt"] += 1
            elif key == "rdmaconf.rpcrdma.note":
                v["notes"].append((frame, value))
            elif key == "_ws.malformed" or (key == "_ws.expert.severity" and int(value) >= PI_WARN):
                v["flagged"].append((frame, path, key))
    return v


def split_flagged(flagged, known):
    """The frames of rdmaconf's violations among `known`, and everything else flagged."""
    ours = [x for x in flagged if x[0] in known and "rdmaconf.violation_tree" in x[1]]
    return {x[0] for x in ours}, [x for x in flagged if x not in ours]


def check_ulp(args):
    """The two real ULP captures: hand-off counts, ties, no false alarm."""
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    for capture in args.shared:
        name = os.path.basename(capture)
        expected = ULP_EXPECTED[name]
        copy = os.path.join(args.workdir, name)
        with open(capture, "rb") as src, open(copy, "wb") as dst:
            dst.write(src.read())
        make_readable(args.workdir)
        out, _ = run_tshark(args, "-r", copy, "-2", "-T", "json", "--no-duplicate-keys")
        v = ulp_view(json.loads(out))
        for key, want in expected.items():
            if key == "violation_frames":
                continue
            got = v[key] if not isinstance(want, dict) else dict(v[key])
            if got != want:
                failures.append(f"{name}: {key} {got} != {want}")
        if "rpc_calls" in expected and v["rpc_replies"] != v["rpc_calls"]:
            failures.append(f"{name}: Replies {dict(v['rpc_replies'])} != Calls {dict(v['rpc_calls'])}")
        transfers = sum(v["transfers"].values())
        if v["ties"] != transfers:
            failures.append(f"{name}: {v['ties']} RDMA transfers tied to an advertised region of {transfers}")
        if v["notes"]:
            failures.append(f"{name}: RPC messages not shown: {v['notes'][:5]}")
        known = expected.get("violation_frames", set())
        shown, others = split_flagged(v["flagged"], known)
        if shown != known:
            failures.append(f"{name}: rdmaconf violations in frames {sorted(shown)}, want {sorted(known)}")
        if others:
            failures.append(f"{name}: malformed or expert info of warning or worse: {others[:5]}")
        print(f"{name}: {sum(v['rpc_calls'].values())} RPC Calls, {sum(v['iscsi_opcodes'].values())} iSCSI PDUs, "
              f"{v['rebuilt']} RPC messages rebuilt, {v['ties']} transfers tied, {v['invalidates']} invalidations")
        # The user's word wins (the per-port preference, as Decode As): the
        # iSER connection taken as RPC-over-RDMA shows each Send's header as
        # not decoding, hands nothing to iscsi, and flags nothing.
        if "iscsi_opcodes" in expected:
            out, _ = run_tshark(args, "-r", copy, "-2", "-T", "json", "--no-duplicate-keys",
                                "-o", "rdmaconf.mpa.rpcrdma_ports:3260")
            w = ulp_view(json.loads(out))
            sends = sum(expected["iscsi_opcodes"].values())
            _, w_others = split_flagged(w["flagged"], known)
            if w["iscsi_opcodes"] or len(w["notes"]) != sends or w_others:
                failures.append(f"{name} as RPC-over-RDMA: iSCSI {dict(w['iscsi_opcodes'])}, "
                                f"{len(w['notes'])} Sends not decoded (want {sends}), flagged {w_others[:5]}")
    if failures:
        sys.exit("\n".join(failures))


# SMC-R past the handshake (smc-r-v2.pcap, captures/real/README.md): what
# the plugin shows of the RoCEv2 side, against `rdmaconf analyze --json`'s
# counts of new messages and by hand (pcap/tests/real_captures_test.cpp,
# SmcrLinkLayerCounts): 22 LLC v2 messages and 38 CDC messages, plus the
# server's retransmissions of one CONFIRM RKEY request and two CDC messages;
# every LLC reply linked to its request; every CDC message (both connections'
# tokens were announced in CLC) shown with the RMBE sizes from CLC; nothing flagged.
# The link lifecycle (pcap/tests SmcrLinkLayerCounts): of the 199 frames
# shown (302 RoCEv2 packets less 103 ACKs), frame 10 (CONFIRM LINK request)
# finds link 1 unknown, frame 12 (its reply) confirming, the other 197 up;
# the 32 new RDMA Writes name their rkey's announcement: CLC for the first
# connection's 16, CONFIRM RKEY 162 (server's RMB) and 170 (client's) for
# the second's 8 each, after the DELETE RKEYs of 147 and 148.
SMCR_EXPECTED = {"llc": 22, "llc_retransmitted": 1, "cdc": 38, "cdc_retransmitted": 2, "replies_linked": 11,
                 "cdc_with_rmbe": 40, "link_unknown": 1, "link_confirming": 1, "link_up": 197, "rkey_by_CLC": 16,
                 "rkey_by_CONFIRM_RKEY": 16, "rkey_announced_in_162": 8, "rkey_announced_in_170": 8}

# Crafted from the real capture by changing one octet of a message, as
# pcap/tests/real_captures_test.cpp does (frame, octet from the start of the
# LLC or CDC message or of the RETH, new value): the rule analyze reports,
# and where.
SMCR_CRAFTED = [
    # A TEST LINK request turned into a reply: it answers nothing, nor does the peer's reply.
    ((316, 3, 0x80), {(316, "rfc7609-3.3-reply-answers-request"): 1, (318, "rfc7609-3.3-reply-answers-request"): 1}),
    # The server's first CDC: consumer cursor beyond what the client produced.
    ((29, 22, 0x20), {(29, "rfc7609-a.4-consumer-not-ahead"): 1}),
    # An RDMA Write's virtual address moved 64 KiB out of the RMBE the peer
    # announced; the CDC message behind it announces data never written.
    ((42, 5, 0x04), {(42, "rfc7609-4.4.1-write-inside-rmbe"): 1, (46, "rfc7609-a.4-producer-tracks-writes"): 1}),
    # The link lifecycle (several edits at once: a list).
    # A TEST LINK reply that does not echo the request's User Data.
    ((318, 4, 0x01), {(318, "rfc7609-a.3.8-test-link-echo"): 1}),
    # The ADD LINK reply made accepting, naming link 3 where link 2 was offered.
    ([(16, 3, 0x80), (16, 31, 0x03)], {(16, "rfc7609-3.5.1.6.1-add-link-link-number"): 1}),
    # The server's CONFIRM LINK naming QP 0x12, its Accept 0x11; the client's reply naming another GID.
    ((10, 28, 0x12), {(10, "rfc7609-3.5.1.5-confirm-link-roce-info"): 1}),
    ((12, 25, 0x03), {(12, "rfc7609-3.5.1.5-confirm-link-roce-info"): 1}),
    # The CONFIRM LINK reply made a request: data on a link still confirming.
    ((12, 3, 0x03), {(18, "rfc7609-3.5.1.5-data-on-confirmed-link"): 1, (25, "rfc7609-3.5.1.5-data-on-confirmed-link"): 1}),
    # A DELETE RKEY request and its reply made DELETE LINK of link 1: data after it.
    ([(147, 0, 0x24), (153, 0, 0x24)],
     {(175, "rfc7609-3.5.1.5-data-on-confirmed-link"): 1, (183, "rfc7609-3.5.1.5-data-on-confirmed-link"): 1}),
    # A Write through an rkey the server never announced.
    ((175, 11, 0x13), {(175, "rfc7609-3.5.5.2-write-through-announced-rkey"): 1}),
    # The server's RMB announced again as 0x313 (CONFIRM RKEY, Accept): Writes through the deleted 0x312.
    ([(162, 8, 0x13), (168, 56, 0x13)], {(175, "rfc7609-3.5.5.2-write-through-announced-rkey"): 1}),
]


def smcr_view(packets):
    v = Counter()
    flagged = []
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        frame = int(layers["frame"]["frame.number"])
        retransmitted = any(k == "rdmaconf.roce.retransmission" for _, k, _ in walk(layers.get("rdmaconf.roce", {})))
        for proto in ("llc", "cdc"):
            n = len(as_list(layers.get(f"rdmaconf.smcr.{proto}", [])))
            v[proto + ("_retransmitted" if retransmitted else "")] += n
        for path, key, value in walk(layers):
            if key == "rdmaconf.smcr.llc.request_in":
                v["replies_linked"] += 1
            elif key == "rdmaconf.smcr.cdc.receiver_rmbe_size":
                v["cdc_with_rmbe"] += 1
            elif key == "rdmaconf.roce.link_state":
                v["link_" + value] += 1
            elif key == "rdmaconf.roce.rkey_announced_by":
                v["rkey_by_" + value.replace(" ", "_")] += 1
            elif key == "rdmaconf.roce.rkey_announced_in":
                v["rkey_announced_in_" + value] += 1
            elif key == "_ws.malformed" or (key == "_ws.expert.severity" and int(value) >= PI_WARN):
                flagged.append((frame, path[:2], key))
    return v, flagged


def craft(capture, edits, out):
    """The capture with octets of frames' messages changed, each edit
    (frame, octet, value) (classic pcap: 24 octets of file header, 16 per
    record; Ethernet, IPv4, UDP and BTH take 54 octets before the LLC or CDC
    message or the RETH; for a TCP frame of the capture, CLC octet n is n + 12)."""
    data = bytearray(open(capture, "rb").read())
    for frame, octet, value in edits:
        at = 24
        for _ in range(1, frame):
            at += 16 + int.from_bytes(data[at + 8:at + 12], "little")
        data[at + 16 + 54 + octet] = value
    open(out, "wb").write(bytes(data))


def check_smcr(args):
    os.makedirs(args.workdir, exist_ok=True)
    failures = []
    real = args.shared[0]
    copy = os.path.join(args.workdir, os.path.basename(real))
    with open(real, "rb") as src, open(copy, "wb") as dst:
        dst.write(src.read())
    crafted = []
    for edits, want in SMCR_CRAFTED:
        edits = edits if isinstance(edits, list) else [edits]
        name = "_".join(f"{frame}-{octet}-{value:02x}" for frame, octet, value in edits)
        out = os.path.join(args.workdir, f"crafted-{name}.pcap")
        craft(copy, edits, out)
        crafted.append((out, want))
    # Seeded mutations of the frames after the CLC handshake (60 random
    # octets past the Ethernet, IP and UDP headers each): no crash, no dissector bug.
    mutated = []
    data = open(copy, "rb").read()
    frames, at = [], 24
    while at + 16 <= len(data):
        n = int.from_bytes(data[at + 8:at + 12], "little")
        frames.append((at + 16, n))
        at += 16 + n
    for seed in range(4):
        r, b = random.Random(seed), bytearray(data)
        for _ in range(60):
            start, n = r.choice(frames[9:])
            if n > 42:
                b[start + 42 + r.randrange(n - 42)] = r.randrange(256)
        mutated.append(os.path.join(args.workdir, f"mutated-{seed}.pcap"))
        open(mutated[-1], "wb").write(bytes(b))
    make_readable(args.workdir)
    failures += [f for f in (tshark_survives(args, m, True) for m in mutated) if f]

    out, _ = run_tshark(args, "-r", copy, "-2", "-T", "json", "--no-duplicate-keys")
    packets = json.loads(out)
    v, flagged = smcr_view(packets)
    _, experts, _, _ = plugin_view(packets)
    smcr = json.load(open(analyze_json(args, copy)))["smcr"]
    analyzed = {"llc": sum(smcr["llc_messages"].values()), "cdc": smcr["cdc_messages"]}
    for key, want in SMCR_EXPECTED.items():
        if v[key] != want:
            failures.append(f"smc-r-v2: {key} {v[key]} != {want}")
    for key, n in analyzed.items():
        if v[key] != n:
            failures.append(f"smc-r-v2: plugin shows {v[key]} new {key} messages, analyze counts {n}")
    if experts or flagged:
        failures.append(f"smc-r-v2: violations {dict(experts)}, flagged {flagged[:5]}")
    print(f"smc-r-v2: {dict(v)}; analyze {analyzed}")
    # Without rdmaconf's heuristic Wireshark's own ones take the Sends and
    # flag some: the check above is one that can fail.
    out, _ = run_tshark(args, "-r", copy, "-2", "-T", "json", "--no-duplicate-keys",
                        "--disable-heuristic", "rdmaconf_smcr")
    _, without = smcr_view(json.loads(out))
    if not without:
        failures.append("smc-r-v2 without rdmaconf_smcr: nothing flagged, the check above proves nothing")

    for capture, want in crafted:
        name = os.path.basename(capture)
        out, _ = run_tshark(args, "-r", capture, "-2", "-T", "json", "--no-duplicate-keys")
        _, experts, _, _ = plugin_view(json.loads(out))
        analyzed = Counter((x["frame"], x["rule"]) for x in json.load(open(analyze_json(args, capture)))["violations"])
        if dict(analyzed) != want:
            failures.append(f"{name}: analyze reports {dict(analyzed)}, want {want}")
        if experts != analyzed:
            failures.append(f"{name}: plugin {sorted(experts.items())} != analyze {sorted(analyzed.items())}")
        print(f"{name}: {sorted(experts.items())}")
    if failures:
        sys.exit("\n".join(failures))


def analyze_json(args, capture):
    out = capture + ".analyze.json"
    p = subprocess.run([args.rdmaconf, "analyze", capture, "--json", out, "-q"], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit(f"rdmaconf analyze failed ({p.returncode}) on {capture}: {p.stderr}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["captures", "fields", "fuzz", "ulp", "smcr", "sctp"])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--abi", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--make-captures", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--corpus", action="append", default=[])
    ap.add_argument("--file-sample", type=int, default=16, help="every n-th capture_file input goes to tshark")
    ap.add_argument("--rdmaconf", help="the rdmaconf CLI (decode, analyze)")
    ap.add_argument("--shared", action="append", default=[], help="a shared capture to compare too")
    ap.add_argument("--shared-ip", action="append", default=[],
                    help="sctp: a shared capture of SCTP on IP (protocol 132, no UDP), compared as a clean one")
    ap.add_argument("--record-live", help="records live reference sessions into a directory")
    ap.add_argument("--make-sctp-captures", help="writes the DDP-over-SCTP captures into a directory")
    args = ap.parse_args()
    args.workdir = os.path.join(args.workdir, args.what)
    {"captures": check_captures, "fields": check_fields, "fuzz": check_fuzz, "ulp": check_ulp,
     "smcr": check_smcr, "sctp": check_sctp}[args.what](args)


def check_sctp(args):
    # DDP over SCTP: its own file (check_sctp.py), on this file's helpers.
    import check_sctp
    check_sctp.check_sctp(args)


if __name__ == "__main__":
    main()
