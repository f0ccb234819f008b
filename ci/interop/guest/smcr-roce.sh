#!/bin/bash
# Runs in the 6.12 guest after smc-up.sh and smcr-up.sh: smcr-probe, the reference SMC-R stack over
# rxe2, against Linux SMC-R over rxe1 in both roles, each captured on smcr1 (TCP and RoCEv2):
#
#   client: smcr-probe --connect 10.79.0.1:7700  ->  smc_pair server (AF_SMC echo)   smcr-client.pcap
#   server: smc_pair client (AF_SMC, 16 KiB echoed)  ->  smcr-probe --listen :7701    smcr-server.pcap
#
# The probe runs in the tester's cgroup, whose sockets carry the SMC TCP option (smc-up.sh). Leaves
# smcr-client.txt and smcr-server.txt (the probe's log: every message with its octets, every
# finding, the verdict) and the captures in the run folder. Exit status: 0 when both verdicts pass.
set -uo pipefail
BIN=/opt/rdmaconf
BYTES=${SMCR_BYTES:-262144}
in_cgroup() { bash -c 'echo $$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs && exec "$@"' probe "$@"; }
capture() {  # capture FILE PORT: tcpdump on smcr1 in the background, its PID in $dump
  setsid tcpdump -i smcr1 -s 0 -U -n -w "$1" "udp port 4791 or tcp port $2" > "tcpdump-$1.log" 2>&1 < /dev/null &
  dump=$!
  sleep 2
}
listening() {  # listening PORT: wait (30 s at most) until something listens on PORT
  for _ in $(seq 60); do ss -Htln "sport = :$1" | grep -q . && return 0; sleep 0.5; done
  echo "nothing listens on port $1"
}
# tcpdump falls behind under TCG: what it received but has not written yet is lost when it is
# stopped, so it is stopped once its file has stopped growing for 2 s (60 s at most).
stop_capture() {
  local size=-1 same=0
  for _ in $(seq 60); do
    local now
    now=$(stat -c %s "$1" 2> /dev/null || echo 0)
    if [ "$now" = "$size" ]; then same=$((same + 1)); else same=0; fi
    [ "$same" -ge 2 ] && break
    size=$now
    sleep 1
  done
  kill -INT "$dump" 2> /dev/null
  wait "$dump" 2> /dev/null || true
}
rc=0

echo "== tester as SMC client, Linux as SMC server"
capture smcr-client.pcap 7700
setsid "$BIN/smc_pair" server 10.79.0.1 7700 1 > smcr-client-linux.txt 2>&1 < /dev/null &
server=$!
listening 7700
in_cgroup "$BIN/smcr-probe" --connect 10.79.0.1:7700 --local 10.79.0.2 --device rxe2 --bytes "$BYTES" \
  > smcr-client.txt 2>&1 || rc=1
for _ in $(seq 20); do kill -0 "$server" 2> /dev/null || break; sleep 0.5; done
kill "$server" 2> /dev/null || true
stop_capture smcr-client.pcap
tail -3 smcr-client.txt
echo "linux: $(tr '\n' ' ' < smcr-client-linux.txt)"

echo "== tester as SMC server, Linux as SMC client"
capture smcr-server.pcap 7701
in_cgroup "$BIN/smcr-probe" --listen 10.79.0.2:7701 --local 10.79.0.2 --device rxe2 > smcr-server.txt 2>&1 &
probe=$!
listening 7701
"$BIN/smc_pair" client 10.79.0.2 7701 1 "$BYTES" > smcr-server-linux.txt 2>&1 || rc=1
wait "$probe" || rc=1
stop_capture smcr-server.pcap
tail -3 smcr-server.txt
echo "linux: $(tr '\n' ' ' < smcr-server-linux.txt)"
echo "== the kernel's SMC messages"
dmesg | grep -i -E 'smc|rxe' | tail -20 || true
exit $rc
