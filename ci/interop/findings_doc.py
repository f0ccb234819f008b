#!/usr/bin/env python3
"""The findings tables of docs/interop.md, generated from the findings files
the documented live run left (ci/interop/known/, written by
`rdmaconf findings RESULTS.json --json`), so the page never copies them by
hand.

Each table sits between two markers in docs/interop.md:

    <!-- findings: ci/interop/known/siw-linux-6.1.json -->
    ...the table `rdmaconf findings FILE --markdown -` prints...
    <!-- end findings -->

  python3 ci/interop/findings_doc.py --rdmaconf BIN           rewrite the tables
  python3 ci/interop/findings_doc.py --rdmaconf BIN --check   exit 1 when a table is not what the file gives

The check runs in ctest (docs.interop_findings).
"""
import argparse
import os
import re
import subprocess
import sys

MARKER = re.compile(r"(<!-- findings: (\S+) -->\n)(.*?)(<!-- end findings -->)", re.S)


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
        source = m.group(2)
        out = subprocess.run([a.rdmaconf, "findings", os.path.join(a.root, source), "--markdown", "-"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if out.returncode != 0:
            sys.exit("rdmaconf findings %s: %s" % (source, out.stderr.strip()))
        if m.group(3) != out.stdout:
            stale.append(source)
        return m.group(1) + out.stdout + m.group(4)

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
