#!/usr/bin/env bash
# Two builds of one fuzz target side by side (docs/fuzzing.md, "Where the
# time goes"): the same RUNS executions from the shipped corpus and
# regressions, seed 1, no dictionary, a fresh folder for what each adds, the
# two binaries in turn (A B A B ...) ROUNDS times. Prints each run's CPU
# seconds (user + system: a fixed amount of work, so load on a shared machine
# moves it far less than exec/s) with the edges and features it ended at, the
# medians, and executions per CPU second.
#
#   ci/fuzz-pair.sh OLD_BIN_DIR NEW_BIN_DIR TARGET RUNS [ROUNDS]
#   ci/fuzz-pair.sh build/fuzz-old/fuzz build/fuzz-release/fuzz ddp_rdmap_segment 300000 3
#   FUZZ_FLAGS_B=-entropic=0 ci/fuzz-pair.sh build/fuzz-release/fuzz build/fuzz-release/fuzz ulp_tracker 6000
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?usage: ci/fuzz-pair.sh OLD_BIN_DIR NEW_BIN_DIR TARGET RUNS [ROUNDS]}
b=${2:?} t=${3:?} runs=${4:?} rounds=${5:-3}
inputs=()
for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do [ -d "$d" ] && inputs+=("$d"); done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
one() {  # dir flags -> CPU seconds of one run
  rm -rf "$tmp/new"
  mkdir -p "$tmp/new"
  # shellcheck disable=SC2086  # flags are words
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$1/${t}_fuzzer" $2 -runs="$runs" -seed=1 -rss_limit_mb=2048 \
    -timeout=10 "$tmp/new" "${inputs[@]}" > "$tmp/log" 2>&1 || { echo "failed: $1/${t}_fuzzer" >&2; cat "$tmp/log" >&2; exit 1; }
  awk '{ printf "%.3f", $1 + $2 }' "$tmp/time"
  # and where the run ended: edges and features
  grep -E '^#[0-9]+' "$tmp/log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' | sed 's/^/ /' || true
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: > "$tmp/a"
: > "$tmp/b"
for ((i = 1; i <= rounds; i++)); do
  ra=$(one "$a" "${FUZZ_FLAGS_A:-}")
  rb=$(one "$b" "${FUZZ_FLAGS_B:-}")
  echo "${ra%% *}" >> "$tmp/a"
  echo "${rb%% *}" >> "$tmp/b"
  echo "round $i: A ${ra%% *} s (${ra#* }), B ${rb%% *} s (${rb#* })"
done
ma=$(median < "$tmp/a")
mb=$(median < "$tmp/b")
awk -v t="$t" -v r="$runs" -v a="$ma" -v b="$mb" 'BEGIN {
  printf "%s, %d runs: A %.3f s (%.0f exec per CPU s), B %.3f s (%.0f), A/B %.2f\n", t, r, a, r / a, b, r / b, a / b }'
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
