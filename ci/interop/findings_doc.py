#!/usr/bin/env python3
"""The findings tables of docs/interop.md, generated from the files the
documented live runs left in ci/interop/known/, so the page never copies them
by hand: each kernel's findings (written by `rdmaconf findings RESULTS.json
--json`) and what changed from one kernel to the other (written by
`rdmaconf diff BEFORE.json AFTER.json --json`).

Each table sits between two markers in docs/interop.md:

    <!-- findings: ci/interop/known/siw-linux-6.1.json -->
    ...the table `rdmaconf findings FILE --markdown -` prints...
    <!-- end findings -->

    <!-- diff: ci/interop/known/siw-linux-6.1-6.12.json -->
    ...the tables `rdmaconf diff FILE --markdown -` prints...
    <!-- end diff -->

  python3 ci/interop/findings_doc.py --rdmaconf BIN           rewrite the tables
  python3 ci/interop/findings_doc.py --rdmaconf BIN --check   exit 1 when a table is not what the file gives

The check runs in ctest (docs.interop_findings).
"""
import argparse
import os
import re
import subprocess
import sys

MARKER = re.compile(r"(<!-- (findings|diff): (\S+) -->\n)(.*?)(<!-- end \2 -->)", re.S)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmaconf", required=True)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    doc_path = os.path.join(a.root, "docs", "interop.md")
    with open(doc_path) as fh:
        doc = fh.read()
    stale = []

    def table(m):
        command, source = m.group(2), m.group(3)
        out = subprocess.run([a.rdmaconf, command, os.path.join(a.root, source), "--markdown", "-"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # `rdmaconf diff` exits 1 when the later run has something new: the table is still its output.
        if out.returncode not in ((0, 1) if command == "diff" else (0,)) or not out.stdout:
            sys.exit("rdmaconf %s %s: %s" % (command, source, out.stderr.strip()))
        if m.group(4) != out.stdout:
            stale.append(source)
        return m.group(1) + out.stdout + m.group(5)

    new = MARKER.sub(table, doc)
    if not MARKER.search(doc):
        sys.exit("docs/interop.md has no findings table marker")
    if a.check:
        for s in stale:
            print("docs/interop.md: the table of %s is not what the file gives; run python3 ci/interop/findings_doc.py" % s)
        return 1 if stale else 0
    if new != doc:
        with open(doc_path, "w") as fh:
            fh.write(new)
        print("docs/interop.md: %d table(s) rewritten" % len(stale))
    return 0


if __name__ == "__main__":
    sys.exit(main())
