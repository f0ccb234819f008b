#!/usr/bin/env bash
# Throughput of every fuzz target as docs/fuzzing.md ("Measurements") measures
# it: the plain build (-fsanitize=fuzzer only, -O3 Release) in
# FUZZ_BUILD_DIR (default build/fuzz-release; FUZZ_CC/FUZZ_CXX another
# compiler, ci/fuzz-lib.sh's plain_build), each target for FUZZ_SECONDS
# (default 20) from its shipped corpus and regressions, no dictionary, a fresh
# empty folder for what it adds. Prints a Markdown table: libFuzzer's last
# exec/s, the executions per CPU second (user + system, /usr/bin/time: on a
# shared machine exec/s follows the load, this far less), the edges and
# features it ended at, and the corpus it started from.
#
#   ci/fuzz-throughput.sh
#   FUZZ_JOBS=2 FUZZ_SEED=2 FUZZ_TARGETS="ulp_tracker smcr_link" ci/fuzz-throughput.sh
#   FUZZ_PREBUILT=build/oss-fuzz/out ci/fuzz-throughput.sh    # OSS-Fuzz's ASan+UBSan build instead
#   FUZZ_CC=clang-19 FUZZ_CXX=clang++-19 ci/fuzz-throughput.sh   # in build/fuzz-release-clang++-19
#
# Two jobs on two cores measure each target on a core of its own only when
# nothing else runs; say which in the table's note.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=ci/fuzz-lib.sh  # plain_build, fuzz_plain_dir
. ci/fuzz-lib.sh

seconds=${FUZZ_SECONDS:-20}
seed=${FUZZ_SEED:-1}
jobs=${FUZZ_JOBS:-1}
build=$fuzz_plain_dir

if [ -n "${FUZZ_PREBUILT:-}" ]; then
  bin=$FUZZ_PREBUILT
else
  plain_build fuzz_targets
  bin=$build/fuzz
fi
targets=${FUZZ_TARGETS:-$(cd "$bin" && ls *_fuzzer | sed 's/_fuzzer$//')}
export UBSAN_OPTIONS="halt_on_error=1:silence_unsigned_overflow=1:suppressions=$PWD/fuzz/known-issues.ubsan.supp"

out=$build/throughput
rm -rf "$out"
mkdir -p "$out"
measure() {
  local t=$1 inputs=()
  for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do [ -d "$d" ] && inputs+=("$d"); done
  mkdir -p "$out/$t"
  /usr/bin/time -f '%U %S' -o "$out/$t.time" \
    "$bin/${t}_fuzzer" -max_total_time="$seconds" -seed="$seed" -rss_limit_mb=2048 -timeout=10 \
    "$out/$t" "${inputs[@]}" > "$out/$t.log" 2>&1 || echo "failed" > "$out/$t.failed"
}
# shellcheck disable=SC2086  # one target per word
run_all "$jobs" measure $targets

echo "| target | exec/s | exec per CPU s | edges | features | shipped corpus |"
echo "|---|---:|---:|---:|---:|---:|"
status=0
for t in $targets; do
  corpus=fuzz/corpus/$t
  size="$(files "$corpus") files, $(kb "$corpus") KB"
  if [ -e "$out/$t.failed" ]; then
    echo "| \`$t\` | **failed** (log: $out/$t.log) | | | | $size |"
    status=1
    continue
  fi
  last=$(grep -E '^#[0-9]+' "$out/$t.log" | tail -1)
  runs=$(grep -oE '^Done [0-9]+' "$out/$t.log" | grep -oE '[0-9]+' || grep -oE '^#[0-9]+' <<<"$last" | tr -d '#')
  per_cpu=$(awk -v r="${runs:-0}" '{ c = $1 + $2; if (c > 0 && r > 0) printf "%d", r / c; else printf "?" }' "$out/$t.time")
  echo "| \`$t\` | $(thousands "$(first exec/s "$last" "?")") | $(thousands "$per_cpu") | $(thousands "$(first cov "$last" "?")") |" \
       "$(thousands "$(first ft "$last" "?")") | $size |"
done
echo
compiler=${FUZZ_PREBUILT:+prebuilt binaries}
echo "$seconds s per target, seed $seed, $jobs at a time, ${compiler:-$("$fuzz_cxx" --version | head -1)}, $(nproc) cores, load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
