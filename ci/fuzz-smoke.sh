#!/usr/bin/env bash
# Fuzz smoke run: builds every fuzz target with clang, libFuzzer, ASan and
# UBSan (build/fuzz), then runs each one for FUZZ_SECONDS (default 4) from
# its shipped corpus, fresh seeds and crash regressions. Exits non-zero if
# any target crashes, leaks, trips a sanitizer or breaks a FUZZ_CHECK; the
# input that did it is left in build/fuzz/artifacts/<target>/.
#
#   FUZZ_SECONDS=60 ci/fuzz-smoke.sh               # longer
#   FUZZ_SECONDS=600 FUZZ_JOBS=2 ci/fuzz-smoke.sh  # 10 min per target, two at a time
#   FUZZ_TARGETS="mpa_deframer clc_message" ci/fuzz-smoke.sh
#   FUZZ_SECONDS=600 FUZZ_SECONDS_FOR="smc_tcp_option=2100" ci/fuzz-smoke.sh  # one target longer
#   FUZZ_PREBUILT=build/oss-fuzz/out FUZZ_SEEDS=build/oss-fuzz/work/seeds ci/fuzz-smoke.sh  # OSS-Fuzz's build
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/fuzz-lib.sh

seconds=${FUZZ_SECONDS:-4}
build=${FUZZ_BUILD_DIR:-build/fuzz}
flags="-fsanitize=address,undefined,fuzzer-no-link"

if [ -n "${FUZZ_PREBUILT:-}" ]; then
  # Targets built elsewhere: ci/oss-fuzz/emulate.sh leaves OSS-Fuzz's build
  # in its $OUT and the fresh seeds in $WORK/seeds (FUZZ_SEEDS).
  bin=$FUZZ_PREBUILT
  seeds=${FUZZ_SEEDS:-$build/seeds}
  echo "== fuzz targets from $bin"
else
  echo "== fuzz build (clang, libFuzzer, ASan+UBSan) in $build"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMACONF_WERROR=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DRDMACONF_FUZZ=ON -DRDMACONF_BUILD_TESTS=OFF -DRDMACONF_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target fuzz_targets
  bin=$build/fuzz
  seeds=$build/seeds
  rm -rf "$seeds"
  "$bin/fuzz_make_corpus" "$seeds" >/dev/null
fi

# Findings in folders fuzz/ does not own, reported and awaiting their fix,
# are listed in fuzz/known-issues.ubsan.supp; everything else halts.
# silence_unsigned_overflow as OSS-Fuzz runs: its UBSan build checks unsigned
# overflow (well defined in C++) only as a fuzzing signal, never as a finding.
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1:suppressions=$PWD/fuzz/known-issues.ubsan.supp"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"

targets=${FUZZ_TARGETS:-$(cd "$bin" && ls *_fuzzer | sed 's/_fuzzer$//')}
# Per-target times ("target=seconds ..."): those targets start first, so the
# long ones do not run alone at the end while the other cores idle.
seconds_for() { local s; s=$(tr ' ' '\n' <<<"${FUZZ_SECONDS_FOR:-}" | sed -n "s/^$1=//p" | tail -1); echo "${s:-$seconds}"; }
if [ -n "${FUZZ_SECONDS_FOR:-}" ]; then
  targets=$(for t in $targets; do echo "$(seconds_for "$t") $t"; done | sort -rn -s -k1,1 | cut -d' ' -f2)
fi
# Targets with an open finding in another folder (fuzz/known-issues/): a
# failure is printed but does not fail the run.
known=$(grep -v '^#' fuzz/known-issues/targets.txt 2>/dev/null || true)
# One target: its verdict goes to $build/smoke/<t>.result ("ok ...",
# "known ..." or "failed ...") and its libFuzzer log to <t>.log.
run_target() {
  local t=$1
  local work=$build/smoke/$t
  local artifacts=$build/artifacts/$t
  rm -rf "$work" "$work.result"
  mkdir -p "$work" "$artifacts"
  local dict=$work.dict
  : > "$dict"
  for d in $(sed -n "s/^$t:[[:space:]]*//p" fuzz/dict/targets.txt); do cat "fuzz/dict/$d.dict" >> "$dict"; done
  local dict_flag=()
  [ -s "$dict" ] && dict_flag=("-dict=$dict")
  local inputs=()
  for d in "fuzz/corpus/$t" "$seeds/$t" "fuzz/regressions/$t"; do [ -d "$d" ] && inputs+=("$d"); done
  local time
  time=$(seconds_for "$t")
  if "$bin/${t}_fuzzer" -max_total_time="$time" -rss_limit_mb=2048 -timeout=10 \
       "${dict_flag[@]}" -artifact_prefix="$artifacts/" "$work" "${inputs[@]}" > "$work.log" 2>&1; then
    # The last status line (coverage, features, corpus, speed), the total
    # executions libFuzzer reports when it stops, and the inputs it added.
    local runs new inited
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$work.log" | tail -1)
    new=$(find "$work" -type f | wc -l)
    inited=$(grep -E '^#[0-9]+[[:space:]]+INITED' "$work.log" | tail -1 | grep -oE 'cov: [0-9]+|ft: [0-9]+' | tr '\n' ' ')
    echo "ok  $(grep -E '^#[0-9]+' "$work.log" | tail -1 | grep -oE 'cov: [0-9]+|ft: [0-9]+|corp: [0-9]+|exec/s: [0-9]+' | tr '\n' ' ')runs: ${runs:-0} new: $new seconds: $time (at start: ${inited% })" > "$work.result"
  elif echo "$known" | grep -qx "$t"; then
    echo "known" > "$work.result"
  else
    echo "failed" > "$work.result"
  fi
}

# FUZZ_JOBS targets at a time (default 1): each fuzzer uses one core.
jobs=${FUZZ_JOBS:-1}
mkdir -p "$build/smoke"
# shellcheck disable=SC2086  # one target per word
run_all "$jobs" run_target $targets

failed=()
for t in $targets; do
  work=$build/smoke/$t
  artifacts=$build/artifacts/$t
  verdict=$(cat "$work.result" 2>/dev/null || echo failed)
  case $verdict in
    ok*) echo "fuzz $t: $verdict" ;;
    known)
      grep -E "ERROR|fuzz property violated|runtime error" "$work.log" | head -5 || true
      echo "fuzz $t: failed, KNOWN ISSUE (fuzz/known-issues/README.md; log $work.log, input in $artifacts/)" ;;
    *)
      grep -E "ERROR|fuzz property violated|runtime error" "$work.log" 2>/dev/null | head -5 || true
      echo "fuzz $t: FAILED (log $work.log, input in $artifacts/)"
      failed+=("$t") ;;
  esac
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz smoke: ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
total=0
for t in $targets; do
  r=$(grep -oE 'runs: [0-9]+' "$build/smoke/$t.result" 2>/dev/null | grep -oE '[0-9]+' || echo 0)
  total=$((total + r))
done
echo "fuzz smoke: every target ran ${seconds}s${FUZZ_SECONDS_FOR:+ (but $FUZZ_SECONDS_FOR)} without a finding; $total executions in all"
