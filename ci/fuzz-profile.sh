#!/usr/bin/env bash
# Where a fuzz target's time goes (docs/fuzzing.md, "Where the time goes"):
# `perf record -g` of the plain throughput build (ci/fuzz-throughput.sh's
# FUZZ_BUILD_DIR and FUZZ_CC/FUZZ_CXX, built first if missing) running RUNS executions from the
# shipped corpus and regressions, seed 1, no dictionary, a fresh folder for
# what it adds; then the samples' shares: libFuzzer's bookkeeping, the
# comparison-tracing callbacks (by caller) and the code (the library under
# test, the harness and its oracles), hottest functions of each.
#
#   ci/fuzz-profile.sh capture_observer 15000
#   FUZZ_BIN=/tmp/old/fuzz ci/fuzz-profile.sh mpa_deframer 150000   # another build's binaries
#   FUZZ_CC=clang-19 FUZZ_CXX=clang++-19 ci/fuzz-profile.sh capture_file 100000   # clang 19's build
#
# A fixed number of executions is comparable between builds; exec/s on a
# shared machine is not. perf must be allowed to sample (perf_event_paranoid
# 2 allows a process one starts).
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:?usage: ci/fuzz-profile.sh TARGET [RUNS]}
runs=${2:-20000}
# shellcheck source=ci/fuzz-lib.sh  # plain_build, fuzz_plain_dir
. ci/fuzz-lib.sh
build=$fuzz_plain_dir
bin=${FUZZ_BIN:-$build/fuzz}
[ -x "$bin/${t}_fuzzer" ] || plain_build "${t}_fuzzer"
out=$build/profile/$t
rm -rf "$out"
mkdir -p "$out/new"
inputs=()
for d in "fuzz/corpus/$t" "fuzz/regressions/$t"; do [ -d "$d" ] && inputs+=("$d"); done
perf record -q -g -F 999 -o "$out/perf.data" -- "$bin/${t}_fuzzer" -runs="$runs" -seed=1 -rss_limit_mb=2048 \
  -timeout=10 "$out/new" "${inputs[@]}" > "$out/fuzzer.log" 2>&1 || { echo "failed: $out/fuzzer.log"; exit 1; }
grep -E '^#[0-9]+.*DONE' "$out/fuzzer.log" || true
perf script -i "$out/perf.data" -F comm,ip,sym 2>/dev/null | python3 ci/fuzz_profile.py "${FUZZ_TOP:-8}"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
