#!/usr/bin/env python3
"""The two fuzz build images install the same Debian packages.

ci/oss-fuzz/Dockerfile (OSS-Fuzz's image) and .clusterfuzzlite/Dockerfile
(ClusterFuzzLite's) differ only in how the checkout gets in: one clones it,
the other copies it. A Dockerfile cannot include another, so the package
list is written in both; this check keeps them one list. It does not check
that the list holds every package rdmaconf's configure asks for: only a
build in the image shows that (the OSS-Fuzz emulation runs on a machine
that has every package).

  ci/oss-fuzz/image_packages.py [SOURCE_DIR]
"""
import re
import sys
from pathlib import Path

IMAGES = ("ci/oss-fuzz/Dockerfile", ".clusterfuzzlite/Dockerfile")


def packages(dockerfile: Path) -> set:
    """The packages of the image's `apt-get install` (continuation lines joined)."""
    text = dockerfile.read_text().replace("\\\n", " ")
    found = set()
    for line in text.splitlines():
        m = re.search(r"apt-get install\s+(.*?)(?:&&|$)", line)
        if m:
            found |= {w for w in m.group(1).split() if not w.startswith("-")}
    return found


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    lists = {name: packages(root / name) for name in IMAGES}
    failed = False
    for name, found in lists.items():
        if not found:
            print(f"{name}: no apt-get install found")
            failed = True
    first, second = IMAGES
    for a, b in ((first, second), (second, first)):
        missing = sorted(lists[a] - lists[b])
        if missing:
            print(f"{b} lacks what {a} installs: {' '.join(missing)}")
            failed = True
    if not failed:
        print(f"both images install the same {len(lists[first])} packages")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
