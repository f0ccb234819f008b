#!/usr/bin/env bash
# The table of a fuzzing run, in Markdown, from what ci/fuzz-smoke.sh left in
# its build folder (<build>/smoke/<target>.result and .log): per target the
# seconds it ran, the executions, the last speed, coverage (edges) and features at the start and
# at the end, the inputs the run added, and the verdict; then the totals.
# docs/fuzzing.md's campaign table is made with it.
#
#   ci/fuzz-table.sh build/campaign
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/fuzz-lib.sh
build=${1:?usage: ci/fuzz-table.sh BUILD_DIR (the FUZZ_BUILD_DIR of ci/fuzz-smoke.sh)}
[ -d "$build/smoke" ] || { echo "no $build/smoke: run ci/fuzz-smoke.sh with FUZZ_BUILD_DIR=$build first" >&2; exit 1; }


echo "| target | seconds | executions | exec/s at the end | edges: start → end | features: start → end | inputs added | verdict |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
total=0
seconds_total=0
targets=0
for result in "$build"/smoke/*.result; do
  t=$(basename "$result" .result)
  line=$(cat "$result")
  verdict=${line%% *}
  if [ "$verdict" != ok ]; then
    echo "| \`$t\` | | | | | | | **$verdict** (log: $build/smoke/$t.log) |"
    continue
  fi
  # Before "(at start: ...)" is the end of the run; inside it, its start.
  run=${line%%(at start*}
  start=${line#*(at start: }
  runs=$(first runs "$run")
  total=$((total + runs))
  seconds_total=$((seconds_total + $(first seconds "$run")))
  targets=$((targets + 1))
  echo "| \`$t\` | $(first seconds "$run") | $(thousands "$runs") | $(thousands "$(first exec/s "$run")") |" \
       "$(thousands "$(first cov "$start")") → $(thousands "$(first cov "$run")") |" \
       "$(thousands "$(first ft "$start")") → $(thousands "$(first ft "$run")") |" \
       "$(first new "$run") | no finding |"
done
echo "| **all $targets** | **$(thousands "$seconds_total")** | **$(thousands "$total")** | | | | | |"
