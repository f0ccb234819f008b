#!/bin/sh
# The rate `rdmaconf analyze -i` holds without losing a frame (docs/performance.md,
# "Live capture"). A veth pair in a network namespace of its own (created here,
# deleted at the end): pcap_send_rate sends the benchmark's generated capture
# (8 MPA connections, CRC on, 1514-octet frames) out of one end at each rate in
# turn, analyze listens on the other end (-j JOBS, the default capture
# buffer) and is stopped (SIGINT) a second after the sender ends. A rate is
# held when analyze saw every frame sent and pcap_stats counted no kernel
# drop. Prints per rate: what was sent (Mbit/s, frames/s), what analyze saw,
# its kernel drops and its CPU seconds; then the highest rate held. Rate 0
# sends as fast as the sender can.
#
#   ci/analyze-live-bench.sh [BUILD_DIR [SECONDS [JOBS [MBIT_PER_S...]]]]
#   defaults: build/gcc 4 1 250 500 1000 2000 4000 8000 0
#
# Root (namespaces, packet sockets). The sender and the kernel's delivery run
# on one core and analyze on another: with other jobs on the machine the
# figure is what was left for it, so give the load with it. LIVE_BENCH_RT=1
# runs the sender and analyze at real-time priority (chrt -f 1) instead, so
# that a loaded machine's scheduler does not decide the figure (the other
# jobs wait the few seconds of each rate).
set -eu
rt=
[ "${LIVE_BENCH_RT:-0}" = 1 ] && rt="chrt -f 1"
build=${1:-build/gcc} seconds=${2:-4} jobs=${3:-1}
if [ $# -gt 3 ]; then shift 3; else set -- 250 500 1000 2000 4000 8000 0; fi
nice -n 5 cmake --build "$build" --target rdmaconf pcap_gen_capture pcap_send_rate >/dev/null
rdmaconf=$(realpath "$build/conformance/cli/rdmaconf")
send=$(realpath "$build/pcap/pcap_send_rate")
dir=$(mktemp -d)
ns=rdmaconf-live-$$
cleanup() {
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# Enough frames for the highest finite rate, at most 4 GiB (frames run out
# first beyond that: the sender says how long it sent).
max=0
for r in "$@"; do [ "$r" -gt "$max" ] && max=$r; done
size=$((max * seconds / 8 + 64))
[ "$size" -lt 256 ] && size=256
[ "$size" -gt 4096 ] && size=4096
cap=$dir/live.pcap
"$build/pcap/pcap_gen_capture" "$cap" "$size" 8
cat "$cap" >/dev/null  # in the page cache: the sender reads, it does not wait on the disk

ip netns add "$ns"
ip -n "$ns" link add send0 type veth peer name listen0
for i in send0 listen0; do
  ip netns exec "$ns" sysctl -q -w "net.ipv6.conf.$i.disable_ipv6=1"  # no frames but the sender's
  ip -n "$ns" link set "$i" up
done
echo "capture: $size MiB, $(stat -c %s "$cap") octets; $seconds s per rate; analyze -j $jobs${rt:+; $rt}; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "target Mbit/s | sent Mbit/s  frames/s  frames | analyzed  kernel drops | analyze CPU s | held"
best=none best_mbit=0
for rate in "$@"; do
  rm -f "$dir/err" "$dir/json" "$dir/time"
  # $rt is empty or a command and its words: unquoted on purpose.
  # shellcheck disable=SC2086
  ip netns exec "$ns" /usr/bin/time -f '%U %S' -o "$dir/time" $rt \
    "$rdmaconf" analyze -i listen0 -j "$jobs" --duration $((seconds + 60)) --json "$dir/json" 2>"$dir/err" >/dev/null &
  pid=$!
  i=0
  until grep -q 'capturing on' "$dir/err" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then echo "analyze did not start: $(cat "$dir/err")"; exit 1; fi
    sleep 0.1
  done
  # shellcheck disable=SC2086
  said=$(ip netns exec "$ns" $rt "$send" send0 "$cap" "$rate" "$seconds")
  sleep 1
  # `ip netns exec` became /usr/bin/time, whose child is analyze: SIGINT to
  # it (it writes its JSON), then time writes its line.
  kill -INT "$(pgrep -P "$pid")" || true
  wait "$pid" || true
  sent_frames=$(echo "$said" | awk '{ print $2 }')
  sent_mbit=$(echo "$said" | awk '{ print $(NF-3) }')
  sent_fps=$(echo "$said" | awk '{ print $(NF-1) }')
  frames=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["frames"])' "$dir/json")
  drops=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["kernel_drops"])' "$dir/json")
  cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$dir/time")
  held=no
  if [ "$frames" = "$sent_frames" ] && [ "$drops" = 0 ]; then
    held=yes
    if awk -v a="$sent_mbit" -v b="$best_mbit" 'BEGIN { exit !(a > b) }'; then
      best_mbit=$sent_mbit best="$sent_mbit Mbit/s ($sent_fps frames/s, target $rate)"
    fi
  fi
  printf "%12s | %11s %9s %7s | %8s %13s | %13s | %s\n" "$rate" "$sent_mbit" "$sent_fps" "$sent_frames" "$frames" "$drops" "$cpu" "$held"
done
echo "highest rate held (every frame analyzed, no kernel drop): $best"
