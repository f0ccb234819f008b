#!/bin/sh
# Side by side, in one run: `rdmaconf analyze` and tshark's built-in iwarp
# dissectors on the same capture, alternating, N times each; CPU time
# (task-clock) and wall time per run, from perf stat. Prints the medians and
# the ratios. Usage: analyze_vs_tshark.sh RDMACONF CAPTURE [N]
# tshark counts one field, which makes it dissect every packet down to it:
# TSHARK_FIELD, iwarp_mpa.ulpdulength unless set (SMC-R over RoCEv2:
# infiniband.bth.psn).
set -eu
rdmaconf=$1 capture=$2 n=${3:-5}
field=${TSHARK_FIELD:-iwarp_mpa.ulpdulength}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
measure() {  # label command...
  label=$1; shift
  perf stat -x, -e task-clock -o "$out" "$@" >/dev/null 2>&1
  cpu=$(grep task-clock "$out" | cut -d, -f1)
  echo "$label $cpu"
}
i=0
results=$(while [ $i -lt "$n" ]; do
  measure rdmaconf "$rdmaconf" analyze -q "$capture" || true
  measure tshark tshark -r "$capture" -q -z "io,stat,0,COUNT($field)$field"
  i=$((i + 1))
done)
median() { grep "^$1 " | cut -d' ' -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
r=$(echo "$results" | median rdmaconf)
t=$(echo "$results" | median tshark)
size=$(stat -c %s "$capture")
echo "$results"
awk -v r="$r" -v t="$t" -v s="$size" 'BEGIN {
  printf "median CPU ms: rdmaconf %.1f, tshark %.1f; ratio %.1fx; rdmaconf %.2f GB/s per CPU-second\n", r, t, t / r, s / (r / 1000) / 1e9 }'
