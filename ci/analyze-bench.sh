#!/bin/sh
# analyze's multi-core figures side by side in one run (docs/performance.md,
# "Several cores"): `analyze -j 1` against `analyze -j N` on a generated
# capture of several busy MPA connections (CRC on), and the libpcap read
# floor (pcap_read_floor: the same file through a plain pcap_next_ex loop
# that touches every octet) beside them, in turn, pair by pair. Prints each
# run's wall and CPU seconds and peak RSS, then the medians: the -j N speed-up
# (wall) and -j 1's pace as a share of the floor's. Last, one `perf record`
# of -j N gives each thread's CPU (the threads are named: for this classic
# pcap file the workers rdmaconf-wK (K from 0) each read and walk stretches
# of the file and reassemble and analyze their own connections' frames,
# and rdmaconf, the main thread, starts them and merges; when a capture
# makes them give up, rdmaconf reads the file,
# rdmaconf-tcp reassembles and the rdmaconf-wK analyze) as a share of
# -j 1's median CPU: the busiest one bounds the
# speed-up on quiet cores whatever the load now (the critical path; target
# <= 55 %). All of it twice: with the file's pages as its writer left them
# in the kernel's cache, and as reading it from storage leaves them (below).
#
# Beside them, in the same pairs, what the machine's cores give at all:
# JOBS copies of `analyze -j 1` started at once against one alone (the
# same work on every core, no thread waiting for another), and JOBS copies
# of a loop that only computes (awk, no memory traffic) against one. A
# virtual machine whose cores share a physical core, or a host that runs
# other guests on them, gives less than JOBS times one core's work, and no
# program's -j JOBS can go faster than that ceiling.
#
#   ci/analyze-bench.sh [BUILD_DIR [SIZE_MIB [CONNECTIONS [PAIRS [JOBS]]]]]
#   defaults: build/gcc 1024 8 5 2
#
# Run it on a quiet machine: with other jobs on the cores a second worker has
# no core of its own and the wall-clock speed-up cannot show.
set -eu
build=${1:-build/gcc} size=${2:-1024} conns=${3:-8} pairs=${4:-5} jobs=${5:-2}
nice -n 5 cmake --build "$build" --target rdmaconf pcap_gen_capture pcap_read_floor >/dev/null
rdmaconf=$build/conformance/cli/rdmaconf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cap=$dir/bench.pcap
"$build/pcap/pcap_gen_capture" "$cap" "$size" "$conns"
# Two states of the kernel's page cache, which -j N (reading the file
# mapped) feels and -j 1 (pread) does not: "written", as the generator's
# small writes left the file (small pages: a page fault maps 64 KiB), as a
# capture just written by a capture tool is; "read", dropped from the cache
# (dd iflag=nocache) and read back in (cat), as a capture read from storage
# is (the read-ahead's folios: on kernels whose file system caches large
# folios, up to 2 MiB a fault). ANALYZE_BENCH_STATES picks them.
states=${ANALYZE_BENCH_STATES:-written read}
echo "capture: $size MiB, $conns connections, $(stat -c %s "$cap") octets; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
# sh -c "$at_once" sh N COMMAND...: N copies of COMMAND at once, waited for.
at_once='n=$1; shift; k=0; while [ $k -lt "$n" ]; do "$@" >/dev/null 2>&1 & k=$((k + 1)); done; wait'
spin='BEGIN { for (i = 0; i < 20000000; i++) s += i % 7; print s }'  # awk: computes, touches no memory to speak of
# Wall: perf's duration_time, from just before the command starts to its
# end, so neither perf's own start and end (about 35 ms on a virtual
# machine whose process starts are slow: a constant added to every run,
# which would pull every ratio towards 1) nor this shell's are counted;
# /usr/bin/time's fork and exec (a few ms) are.
run() {  # label command...: "label wall_s cpu_s rss_kib" (CPU: perf's task-clock, every thread)
  label=$1; shift
  perf stat -x, -e task-clock,duration_time -o "$dir/p" /usr/bin/time -f '%M' -o "$dir/t" "$@" >/dev/null 2>&1 || true
  cpu=$(grep task-clock "$dir/p" | cut -d, -f1)
  wall=$(grep duration_time "$dir/p" | cut -d, -f1)
  awk -v l="$label" -v w="$wall" -v c="$cpu" '{ printf "%s %.3f %.3f %d\n", l, w / 1e9, c / 1000, $1 }' "$dir/t"
}
med() {  # label column
  awk -v l="$1" -v c="$2" '$1 == l { print $c }' "$dir/runs" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'
}
faults() {  # the page faults of walking the file mapped, per MiB (one octet a page)
  perf stat -x, -e page-faults -o "$dir/f" "$rdmaconf" analyze -q -j "$jobs" "$cap" >/dev/null 2>&1 || true
  awk -F, -v s="$(stat -c %s "$cap")" '/page-faults/ { printf "%.1f", $1 / (s / 1048576) }' "$dir/f"
}
for state in $states; do
  case $state in
    written) ;;
    read) dd if="$cap" iflag=nocache count=0 status=none; cat "$cap" >/dev/null ;;
    *) echo "unknown state: $state (written, read)" >&2; exit 2 ;;
  esac
  echo "== page cache: $state ($(faults) page faults per MiB under -j $jobs); load $(cut -d' ' -f1-3 /proc/loadavg)"
  i=0
  while [ $i -lt "$pairs" ]; do
    run j1 "$rdmaconf" analyze -q -j 1 "$cap"
    run jN "$rdmaconf" analyze -q -j "$jobs" "$cap"
    run floor "$build/pcap/pcap_read_floor" "$cap"
    run jx sh -c "$at_once" sh "$jobs" "$rdmaconf" analyze -q -j 1 "$cap"
    run s1 awk "$spin"
    run sx sh -c "$at_once" sh "$jobs" awk "$spin"
    i=$((i + 1))
  done >"$dir/runs"
  echo "run    wall s  CPU s  peak RSS KiB"
  awk '{ printf "%-6s %6.3f %6.3f %8d\n", $1, $2, $3, $4 }' "$dir/runs"
  echo "(jx: $jobs copies of -j 1 at once; s1, sx: the compute-only loop, once and $jobs at once)"
  awk -v w1="$(med j1 2)" -v wn="$(med jN 2)" -v c1="$(med j1 3)" -v cn="$(med jN 3)" \
      -v wf="$(med floor 2)" -v cf="$(med floor 3)" -v r1="$(med j1 4)" -v rn="$(med jN 4)" -v j="$jobs" \
      -v wx="$(med jx 2)" -v s1="$(med s1 2)" -v sx="$(med sx 2)" 'BEGIN {
    printf "medians: -j 1 %.3f s wall (%.3f s CPU, %.1f MiB); -j %s %.3f s wall (%.3f s CPU, %.1f MiB); floor %.3f s wall (%.3f s CPU)\n",
           w1, c1, r1 / 1024, j, wn, cn, rn / 1024, wf, cf
    printf "-j %s speed-up (wall): %.2fx (target >= 1.7x with 8+ connections on 2 quiet cores)\n", j, w1 / wn
    printf "-j 1 pace as a share of the libpcap floor: %.0f %% wall, %.0f %% CPU (target >= 70 %%)\n", 100 * wf / w1, 100 * cf / c1
    printf "the machine'"'"'s ceiling for %s: %s copies of -j 1 at once %.2fx one'"'"'s work, the compute-only loop %.2fx\n", j, j, j * w1 / wx, j * s1 / sx
    printf "-j %s speed-up as a share of that ceiling: %.0f %%\n", j, 100 * (w1 / wn) / (j * w1 / wx)
  }'
  # Each thread's CPU under -j N: its share of one profile's task-clock
  # samples (by thread name) times the median -j N CPU of the runs above
  # (perf record itself adds a tenth or more to the run it profiles, and a
  # single other run can be an outlier).
  perf record -q -e task-clock -o "$dir/perf.data" "$rdmaconf" analyze -q -j "$jobs" "$cap" >/dev/null 2>&1 || true
  perf script -i "$dir/perf.data" -F comm,period 2>/dev/null |
    awk -v cn="$(med jN 3)" -v c1="$(med j1 3)" -v j="$jobs" -v cores="$(nproc)" '{ ns[$1] += $2; all += $2 }
    END { for (k in ns) { t = ns[k] / all * cn
            printf "-j %s thread %-14s %5.1f %% of its CPU, %.3f s = %3.0f %% of -j 1 CPU\n", j, k, 100 * ns[k] / all, t, 100 * t / c1
            if (t > m) m = t }
          n = j < cores ? j : cores; b = cn / n; if (m > b) b = m
          printf "critical path (busiest thread): %.0f %% of -j 1 CPU (target <= 55 %%)\n", 100 * m / c1
          printf "-j %s bound on %s quiet cores: -j 1 CPU / max(busiest thread, -j %s CPU / %s) = %.2fx\n", j, n, j, n, c1 / b }'
done
