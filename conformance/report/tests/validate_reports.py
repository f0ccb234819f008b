#!/usr/bin/env python3
"""Every report rdmaconf writes, checked against its published JSON Schema
(docs/schema/): results.json of a clean run, of a run that fails (over TCP
and over SCTP), of a run against a baseline, of an agent run in two
configurations, of reports joined by `rdmaconf report`, and the findings
file of `rdmaconf findings`. Also
checks the exit codes a lab gates on (docs/conformance.md, "Baselines"), and
that the schema does refuse a report that breaks it (so this test can fail).

python3 validate_reports.py --rdmaconf BIN --agent AGENT_BIN --schemas DIR --work DIR
"""
import argparse
import json
import os
import re
import subprocess
import sys

import jsonschema


def validator(schemas_dir, name):
    schemas = {}
    for f in ("results.schema.json", "findings.schema.json"):
        with open(os.path.join(schemas_dir, f)) as fh:
            schemas[f] = json.load(fh)
    schema = schemas[name]
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    try:  # jsonschema >= 4.18 resolves references through `referencing`
        import referencing
        import referencing.jsonschema
        registry = referencing.Registry().with_resources(
            (uri, referencing.jsonschema.DRAFT202012.create_resource(s)) for uri, s in schemas.items())
        return cls(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        resolver = jsonschema.RefResolver(base_uri=name, referrer=schema, store=schemas)
        return cls(schema, resolver=resolver)


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(cmd, expect=None, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if expect is not None and p.returncode != expect:
        check(False, "%s exited %d, expected %d:\n%s" % (" ".join(cmd), p.returncode, expect, p.stdout[-3000:]))
    return p


def validate(v, path):
    with open(path) as fh:
        doc = json.load(fh)
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors[:5]:
        check(False, "%s: %s at %s" % (os.path.basename(path), e.message[:300], "/".join(map(str, e.absolute_path))))
    return doc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmaconf", required=True)
    ap.add_argument("--agent", required=True)
    ap.add_argument("--schemas", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    w = lambda name: os.path.join(a.work, name)
    results = validator(a.schemas, "results.schema.json")
    findings_v = validator(a.schemas, "findings.schema.json")
    rc = [a.rdmaconf, "run", "--reference", "--time-scale", "0.25", "-q"]

    # A clean run, and one that fails, with labels and the operator's description.
    run(rc + ["--json", w("clean.json")], expect=0)
    run(rc + ["--fault", "terminate-le-bitfield", "--label", "fw=1.2.3", "--label", "dut=rack 4",
              "--iut", "firmware=9.9", "--json", w("bitfield.json")], expect=1)
    clean = validate(results, w("clean.json"))
    failed = validate(results, w("bitfield.json"))
    check(clean["summary"]["findings"] == 0 and clean["exit_code"] == 0, "clean run: no findings, exit 0")
    check(len(failed["findings"]) >= 1 and failed["exit_code"] == 1, "failing run: findings, exit 1")
    check(failed["run"]["labels"] == {"fw": "1.2.3", "dut": "rack 4"}, "labels carried")
    check(failed["run"]["iut"].get("firmware") == "9.9", "--iut carried")
    check(re.fullmatch(r"[0-9a-f]{64}", failed["run"]["catalogue"]["sha256"]) is not None, "catalogue digest")
    check(clean["run"]["catalogue"]["sha256"] == failed["run"]["catalogue"]["sha256"], "one catalogue, one digest")

    # The findings file, and baselines: the same fault is known (exit 0),
    # another fault brings new failures (exit 1); a clean run fixes them.
    run([a.rdmaconf, "findings", w("bitfield.json"), "--json", w("known.json"), "-q"], expect=1)
    known = validate(findings_v, w("known.json"))
    check(len(known["findings"]) == len(failed["findings"]), "the findings file holds the run's findings")
    run(rc + ["--fault", "terminate-le-bitfield", "--baseline", w("known.json"), "--json", w("vs-known.json")], expect=0)
    same = validate(results, w("vs-known.json"))
    check(same["baseline"]["new_cases"] == 0 and same["baseline"]["known_cases"] > 0, "same fault: all known")
    check(all(f.get("baseline") == "known" for f in same["findings"]), "same fault: every finding known")
    run(rc + ["--fault", "terminate-omitted", "--baseline", w("bitfield.json"), "--json", w("vs-other.json")], expect=1)
    other = validate(results, w("vs-other.json"))
    check(other["baseline"]["new_findings"] > 0, "another fault: new findings")
    run(rc + ["--baseline", w("known.json"), "--json", w("fixed.json")], expect=0)
    fixed = validate(results, w("fixed.json"))
    known_cases = {(c["id"], c["configuration"]) for f in known["findings"] for c in f["cases"]}
    check({(c["id"], c["configuration"]) for c in fixed["baseline"]["fixed_cases"]} == known_cases,
          "a clean run against the baseline lists every known failing case as fixed")
    check(len(fixed["baseline"]["fixed_findings"]) == len(known["findings"]), "every known finding fixed")

    # A failing run over SCTP: a case that did not pass keeps its association.
    run(rc + ["--transport", "sctp", "--fault", "sctp-ordered-chunks", "--case", "ddp-echo*", "--json", w("sctp.json")],
        expect=1)
    sctp = validate(results, w("sctp.json"))
    check(any(c.get("exchange", {}).get("sctp", {}).get("messages") for c in sctp["cases"] if c["verdict"] == "fail"),
          "a failing case over SCTP keeps its association's messages")

    # Reports joined by `rdmaconf report`.
    run([a.rdmaconf, "report", w("clean.json"), w("bitfield.json"), "--json", w("joined.json")])
    joined = validate(results, w("joined.json"))
    check(len(joined["cases"]) == len(clean["cases"]) + len(failed["cases"]), "joined report holds both runs' cases")

    # An agent run in two configurations (each case says what it negotiated).
    agent = subprocess.Popen([a.agent, "--backend", "reference", "--control", "127.0.0.1:0", "--token", "t0k"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        for _ in range(50):
            line = agent.stdout.readline()
            m = re.search(r"control http://127\.0\.0\.1:(\d+)", line)
            if m:
                port = m.group(1)
                break
        check(port is not None, "the agent printed its control address")
        if port:
            run([a.rdmaconf, "run", "--agent", "http://127.0.0.1:" + port, "--token", "t0k", "--time-scale", "0.25", "-q",
                 "--agent-config", "crc=off,markers=on", "--agent-config", "crc=on,markers=off", "--suite", "mpa",
                 "--json", w("agent.json")], expect=0)
            ag = validate(results, w("agent.json"))
            check(len({c["configuration"] for c in ag["cases"]}) == 2, "agent run: two configurations")
            check("<redacted>" in ag["run"]["command_line"] and "t0k" not in ag["run"]["command_line"], "token redacted")
            check(ag["run"]["iut"].get("backend") == "reference" and ag["run"]["iut"].get("kernel"), "agent's IUT description")
    finally:
        agent.terminate()
        agent.wait(timeout=10)

    # The schema refuses what breaks it.
    broken = dict(failed)
    del broken["run"]
    check(any(True for _ in results.iter_errors(broken)), "a report without 'run' is refused")
    bad_case = json.loads(json.dumps(failed))
    bad_case["cases"][0]["verdict"] = "meh"
    check(any(True for _ in results.iter_errors(bad_case)), "a report with an unknown verdict is refused")

    print("%d checks failed" % len(failures) if failures else "every report matches its schema")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
