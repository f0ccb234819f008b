#!/usr/bin/env python3
"""`rdmaconf fuzz --json` checked against its published JSON Schema
(docs/schema/fuzz.schema.json): a run without findings and a run that finds a
fault of the reference, and clean runs of the two other targets (the
reference initiator, the reference CLC server). Also checks that the schema refuses a summary that
breaks it (so this test can fail).

python3 validate_fuzz_summary.py --rdmaconf BIN --schema FILE --work DIR
"""
import argparse
import copy
import json
import os
import subprocess
import sys

import jsonschema


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmaconf", required=True)
    ap.add_argument("--schema", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    with open(a.schema) as fh:
        schema = json.load(fh)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    v = cls(schema)
    os.makedirs(a.work, exist_ok=True)
    failures = []
    docs = {}
    for name, args, code in (
        ("clean", ["--reference", "--case", "rdmap-echo-*", "--iterations", "10"], 0),
        ("found", ["--reference", "--fault", "terminate-le-bitfield", "--case", "rdmap-echo-*", "--iterations", "20",
                   "--out", os.path.join(a.work, "out")], 1),
        ("initiator", ["--reference", "--listen", "127.0.0.1:0", "--iterations", "10"], 0),
        ("clc", ["--reference", "--suite", "clc", "--iterations", "10"], 0),
    ):
        path = os.path.join(a.work, name + ".json")
        p = subprocess.run([a.rdmaconf, "fuzz", *args, "--time-scale", "0.25", "--json", path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != code:
            failures.append("%s: exit %d, expected %d\n%s" % (name, p.returncode, code, p.stdout[-2000:]))
            continue
        with open(path) as fh:
            docs[name] = json.load(fh)
        for e in list(v.iter_errors(docs[name]))[:5]:
            failures.append("%s: %s at %s" % (name, e.message, list(e.absolute_path)))
    for name, target in (("clean", "mpa-responder"), ("initiator", "mpa-initiator"), ("clc", "clc-server")):
        if name in docs and docs[name]["target"] != target:
            failures.append("%s: target %r, expected %r" % (name, docs[name]["target"], target))
    if "found" in docs and not docs["found"]["findings"]:
        failures.append("found: no finding to check the finding schema with")
    if "found" in docs:
        broken = copy.deepcopy(docs["found"])
        broken["findings"][0]["kind"] = "crashed"
        if v.is_valid(broken):
            failures.append("the schema took a finding of an unknown kind")
        del broken["stopped"]
        if v.is_valid(broken):
            failures.append("the schema took a summary without 'stopped'")
    for f in failures:
        print("FAIL:", f)
    print("%d summaries checked, %d failures" % (len(docs), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
