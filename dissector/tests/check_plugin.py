#!/usr/bin/env python3
"""Checks the rdmaconf Wireshark plugin with tshark.

  check_plugin.py captures  tshark -T json on the generated captures agrees with
                            the reference codecs (expected.json): message counts,
                            opcodes, key fields per DDP segment, and exactly the
                            crafted rule id as expert info (none on clean ones)
  check_plugin.py fields    every FieldDecl of every declaration is a field
  check_plugin.py fuzz      the fuzz corpus under tshark: no crash, no
                            "Dissector bug" / malformed-packet report

tshark runs through tshark_with_plugin.sh (unprivileged when run as root).
"""
import argparse
import json
import os
import re
import subprocess
import sys
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
    # tshark may run as nobody: the captures must be world-readable.
    for root, dirs, files in os.walk(args.workdir):
        os.chmod(root, 0o755)
        for f in files:
            os.chmod(os.path.join(root, f), 0o644)
    for d in (args.workdir, os.path.dirname(args.workdir)):
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


def summarize(packets):
    """What tshark says the capture holds, in expected.json's terms."""
    counts = Counter()
    keys = []
    experts = []
    for pkt in packets:
        layers = pkt["_source"]["layers"]
        for path, key, value in walk(layers):
            if key == "_ws.expert.message":
                experts.append(value)
            elif key == "rdmaconf.mpa.rr.key":
                counts["mpa_request" if "Req" in value else "mpa_reply"] += 1
            elif key == "rdmaconf.mpa.ulpdu_length":
                counts["fpdus"] += 1
            elif key == "rdmaconf.clc.type" and not any("rdmaconf.violation" in p for p in path):
                counts[f"clc.{number(value)}"] += 1
        # Key fields, one DDP segment at a time: the n-th DDP layer of a frame
        # pairs with its n-th RDMAP layer.
        ddps = as_list(layers.get("rdmaconf.ddp", []))
        rdmaps = as_list(layers.get("rdmaconf.rdmap", []))
        for ddp, rdmap in zip(ddps, rdmaps):
            fields = {k: v for p, k, v in walk(ddp) if not any("Terminated" in x for x in p)}
            rfields = {k: v for p, k, v in walk(rdmap) if not any("Terminated" in x for x in p)}
            if "rdmaconf.rdmap.opcode" not in rfields or "rdmaconf.ddp.t" not in fields:
                continue
            op = number(rfields["rdmaconf.rdmap.opcode"])
            counts[f"opcode.{op}"] += 1
            if number(fields["rdmaconf.ddp.t"]):
                keys.append(f"op={op} stag={number(fields['rdmaconf.ddp.stag'])}")
            else:
                keys.append(f"op={op} msn={number(fields['rdmaconf.ddp.msn'])}")
    rules = sorted({m.split()[0] for m in experts if re.match(r"^(rfc|smcv2|RFC)", m)})
    return counts, keys, rules, experts


def check_captures(args):
    make_captures(args, args.workdir)
    expected = json.load(open(os.path.join(args.workdir, "expected.json")))
    failures = []
    for e in expected:
        out, _ = run_tshark(args, "-r", os.path.join(args.workdir, e["file"]), "-2", "-T", "json",
                            "--no-duplicate-keys")
        counts, keys, rules, experts = summarize(json.loads(out))
        want = Counter(e["counts"])
        if counts != want:
            failures.append(f"{e['name']}: counts {dict(counts)} != expected {dict(want)}")
        if sorted(keys) != sorted(e["keys"]):
            failures.append(f"{e['name']}: key fields {keys} != expected {e['keys']}")
        if rules != sorted(set(e["violations"])):
            failures.append(f"{e['name']}: violations {rules} != expected {e['violations']} ({experts})")
        print(f"{e['name']}: {sum(counts.values())} counted, {len(keys)} segments, violations {rules}")
    if failures:
        sys.exit("\n".join(failures))


def check_fields(args):
    out, _ = run_tshark(args, "-G", "fields")
    fields = {line.split("\t")[2] for line in out.splitlines() if line.startswith("F\t")}
    ours = sorted(f for f in fields if f.startswith("rdmaconf."))
    # A few names every user types, generated from the declarations.
    required = ["rdmaconf.rdmap.opcode", "rdmaconf.ddp.stag", "rdmaconf.ddp.msn", "rdmaconf.mpa.ulpdu_length",
                "rdmaconf.mpa.crc", "rdmaconf.mpa.crc.status", "rdmaconf.mpa.rr.key", "rdmaconf.mpa.enhanced.ird",
                "rdmaconf.mpa.marker.fpduptr", "rdmaconf.rdmap.term.layer", "rdmaconf.rdmap.immediate_data",
                "rdmaconf.rdmap.atomic.atomic_opcode", "rdmaconf.clc.eyecatcher", "rdmaconf.clc.decline.diagnosis",
                "rdmaconf.clc.v2ext.release", "rdmaconf.violation.rule"]
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


def check_fuzz(args):
    make_captures(args, "--fuzz", os.path.join(args.workdir, "fuzz"), *( [args.corpus] if args.corpus else []))
    fuzz_dir = os.path.join(args.workdir, "fuzz")
    files = sorted(f for f in os.listdir(fuzz_dir) if f.endswith(".pcapng"))
    if not files:
        sys.exit("no fuzz captures were written")
    for f in files:
        out, err = run_tshark(args, "-r", os.path.join(fuzz_dir, f), "-2", "-V")
        bad = [l for l in (out + err).splitlines() if "Dissector bug" in l or "DISSECTOR_ASSERT" in l]
        if bad:
            sys.exit(f"{f}: {bad[:5]}")
        print(f"{f}: {out.count('Frame ')} frames dissected")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["captures", "fields", "fuzz"])
    ap.add_argument("--plugin", required=True)
    ap.add_argument("--abi", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--make-captures", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--corpus")
    args = ap.parse_args()
    args.workdir = os.path.join(args.workdir, args.what)
    {"captures": check_captures, "fields": check_fields, "fuzz": check_fuzz}[args.what](args)


if __name__ == "__main__":
    main()
