#!/usr/bin/env python3
"""The findings tables of the interop pages (docs/interop.md: Linux 6.1,
docs/interop-6.12.md: Linux 6.12 and what changed), generated from the files
the documented live runs left in ci/interop/known/, so the pages never copy
them by hand: each kernel's findings (written by `rdmaconf findings
RESULTS.json --json`) and what changed from one kernel to the other (written
by `rdmaconf diff BEFORE.json AFTER.json --json`).

Each table sits between two markers in one of the PAGES:

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
PAGES = ("docs/interop.md", "docs/interop-6.12.md")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rdmaconf", required=True)
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    stale = []
    for page in PAGES:
        stale += regenerate(a, page)
    if a.check:
        for page, source in stale:
            print("%s: the table of %s is not what the file gives; run python3 ci/interop/findings_doc.py" % (page, source))
        return 1 if stale else 0
    return 0


def regenerate(a, page):
    """The (page, source) of every table of `page` that is not what its file
    gives; without --check the page is rewritten with the tables made again."""
    doc_path = os.path.join(a.root, page)
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
            stale.append((page, source))
        return m.group(1) + out.stdout + m.group(5)

    new = MARKER.sub(table, doc)
    if not MARKER.search(doc):
        sys.exit("%s has no findings table marker" % page)
    if not a.check and new != doc:
        with open(doc_path, "w") as fh:
            fh.write(new)
        print("%s: %d table(s) rewritten" % (page, len(stale)))
    return stale


if __name__ == "__main__":
    sys.exit(main())
