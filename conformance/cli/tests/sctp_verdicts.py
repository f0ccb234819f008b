#!/usr/bin/env python3
"""The verdicts of the ddp and rdmap suites over a real SCTP stack, as
sctp_live_test.sh (usrsctp) and sctp_kernel_test.sh (the kernel's SCTP)
expect them: those of the association in memory, 244 pass and 21
unimplemented, none fail. Usage: sctp_verdicts.py RUN_JSON STACK_NAME;
exit 1, listing the cases that neither passed nor were unimplemented,
when the counts differ."""
import json
import sys

WANT = {"pass": 244, "unimplemented": 21, "fail": 0, "error": 0, "non-strict": 0, "informational": 0}


def main(path, stack):
    r = json.load(open(path))
    s = r["summary"]
    got = {k: s[k] for k in WANT}
    if got == WANT:
        return 0
    print("verdicts over " + stack + ":", got, "expected", WANT)
    for c in r["cases"]:
        if c["verdict"] not in ("pass", "unimplemented"):
            print(" ", c["id"], c["verdict"], c.get("reason", ""))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
