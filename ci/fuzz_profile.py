#!/usr/bin/env python3
"""Attributes a fuzz target's samples (`perf script -F comm,ip,sym` on stdin).

Each sample is charged by the function it was taken in:
  libFuzzer      the engine's bookkeeping (fuzzer::*: running, collecting
                 features, the entropic schedule, mutating, SHA-1 of new inputs)
  tracing        the comparison-tracing callbacks (__sanitizer_cov_trace_*),
                 with the function that called them
  code           everything else: the code under test, the harness and its
                 oracles, the C library (malloc, memcpy) they call
Prints the shares and the hottest functions of each kind (docs/fuzzing.md,
"Where the time goes").
"""
import collections
import re
import sys

ENGINE = ("fuzzer::", "__ieee754_log", "log@", "(anonymous namespace)::sha1")
TRACING = ("__sanitizer_cov_trace", "__sanitizer_weak_hook")


def samples(lines):
    stack = None
    for line in lines:
        if not line.strip():
            if stack is not None:
                yield stack
            stack = None
        elif not line[0].isspace():
            stack = []
        elif stack is not None:
            m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s*$", line)
            if m:
                stack.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)))
    if stack is not None:
        yield stack


def kind(sym):
    if sym.startswith(TRACING) or sym.startswith("fuzzer::TracePC::AddValueForMemcmp"):
        return "tracing"
    if sym.startswith(ENGINE):
        return "libFuzzer"
    return "code"


def main():
    top = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    kinds, hot, callers = collections.Counter(), collections.defaultdict(collections.Counter), collections.Counter()
    n = 0
    for st in samples(sys.stdin):
        if not st:
            continue
        n += 1
        k = kind(st[0])
        kinds[k] += 1
        hot[k][st[0][:100]] += 1
        if k == "tracing":
            callers[(st[1] if len(st) > 1 else "?")[:100]] += 1
    if n == 0:
        sys.exit("no samples")
    print(f"{n} samples: " + ", ".join(f"{k} {100 * kinds[k] / n:.1f} %" for k in ("libFuzzer", "tracing", "code")))
    for k in ("libFuzzer", "code"):
        print(f"{k}:")
        for s, c in hot[k].most_common(top):
            print(f"  {100 * c / n:5.1f} %  {s}")
    print("tracing, by caller:")
    for s, c in callers.most_common(top):
        print(f"  {100 * c / n:5.1f} %  {s}")


if __name__ == "__main__":
    main()
