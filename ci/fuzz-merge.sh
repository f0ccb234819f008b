#!/usr/bin/env bash
# Keeps what a fuzzing run found: for every target, the inputs ci/fuzz-smoke.sh
# left in <build>/smoke/<target>/ are merged into fuzz/corpus/<target> with
# libFuzzer's -merge=1, which adds only the inputs that bring a feature the
# shipped corpus lacks (the shipped files stay as they are). Prints a Markdown
# table of the corpus before and after.
#
#   ci/fuzz-merge.sh build/oss-fuzz/out build/campaign    # binaries, FUZZ_BUILD_DIR
#   FUZZ_TARGETS="smcr_link" ci/fuzz-merge.sh build/fuzz/fuzz build/fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/fuzz-lib.sh
bin=${1:?usage: ci/fuzz-merge.sh BIN_DIR BUILD_DIR}
build=${2:?usage: ci/fuzz-merge.sh BIN_DIR BUILD_DIR}
targets=${FUZZ_TARGETS:-$(cd "$build/smoke" && ls -d */ | tr -d /)}

export UBSAN_OPTIONS="halt_on_error=1:silence_unsigned_overflow=1:suppressions=$PWD/fuzz/known-issues.ubsan.supp"

echo "| target | shipped corpus before | inputs the run added | shipped corpus after |"
echo "|---|---:|---:|---:|"
for t in $targets; do
  new=$build/smoke/$t
  corpus=fuzz/corpus/$t
  [ -d "$new" ] || continue
  mkdir -p "$corpus"
  before="$(files "$corpus") files, $(kb "$corpus") KB"
  if ! "$bin/${t}_fuzzer" -merge=1 -rss_limit_mb=2048 -timeout=10 "$corpus" "$new" > "$new.merge.log" 2>&1; then
    echo "| \`$t\` | $before | $(files "$new") | **merge failed** (log: $new.merge.log) |"
    continue
  fi
  echo "| \`$t\` | $before | $(files "$new") | $(files "$corpus") files, $(kb "$corpus") KB |"
done
