#!/bin/bash
# Runs in the 6.12 guest after smcr-up.sh (and smcr-roce.sh): the smcr suite live, the tester's SMC-R
# peer on its own rxe (rxe2 on smcr1, 10.79.0.2; its second port rxe4 on smcr3, 10.79.0.4) against
# Linux SMC-R (rxe1 on smcr0, 10.79.0.1; its second RNIC rxe3 on smcr2, 10.79.0.3):
#
#   Linux:  smc_pair serve 10.79.0.1 7710   (AF_SMC, each connection echoed until the peer closes)
#   tester: rdmaconf run --suite smcr --clc-target 10.79.0.1:7710 --roce-device rxe2
#             --roce-alternate-device rxe4 --smcr-version 2
#
# Linux over rxe has no RoCE v1 GID, so no SMC-R version 1: the cases run over version 2. One case at
# a time (each one's link group is Linux's only one with the tester). The tester runs in the cgroup
# whose sockets carry the SMC TCP option (smc-up.sh), in the root namespace (rxe sends RoCEv2 from
# init_net only: smcr-up.sh). tcpdump on smcr1 records TCP and RoCEv2 (smcr-suite.pcap), on smcr3 the
# second links' RoCEv2 (smcr-suite-link2.pcap). The reports go
# to smcr-suite/ (results.json, junit.xml, html/). Exit status: rdmaconf run's.
# SMCR_SUITE_CASES="ID ...": only these cases. SMCR_SUITE_TIME_SCALE: --time-scale (default 4, TCG).
set -uo pipefail
BIN=/opt/rdmaconf
PORT=7710
mkdir -p smcr-suite
setsid tcpdump -i smcr1 -s 0 -U -n -w smcr-suite.pcap "udp port 4791 or tcp port $PORT" \
  > tcpdump-smcr-suite.log 2>&1 < /dev/null &
dump=$!
setsid tcpdump -i smcr3 -s 0 -U -n -w smcr-suite-link2.pcap "udp port 4791" \
  > tcpdump-smcr-suite-link2.log 2>&1 < /dev/null &
dump2=$!
setsid "$BIN/smc_pair" serve 10.79.0.1 $PORT > smcr-suite-linux.txt 2>&1 < /dev/null &
server=$!
for _ in $(seq 60); do ss -Htln "sport = :$PORT" | grep -q . && break; sleep 0.5; done
sleep 1
cases=()
for id in ${SMCR_SUITE_CASES:-}; do cases+=(--case "$id"); done
bash -c 'echo $$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs && exec "$@"' tester \
  "$BIN/rdmaconf" run --suite smcr "${cases[@]}" --cases-dir "$BIN/cases" \
  --clc-target 10.79.0.1:$PORT --roce-device rxe2 --roce-alternate-device rxe4 --smcr-version 2 \
  --clc-eid RDMACONF-INTEROP --clc-prefix auto --clc-gid auto --clc-mac auto \
  -j 1 --time-scale "${SMCR_SUITE_TIME_SCALE:-4}" \
  --json smcr-suite/results.json --junit smcr-suite/junit.xml --html smcr-suite/html
rc=$?
kill -- "-$server" 2> /dev/null  # smc_pair and its children (setsid: their own group)
# tcpdump falls behind under TCG: stopped once its file stopped growing for 2 s (60 s at most).
size=-1 same=0
for _ in $(seq 60); do
  now=$(stat -c %s smcr-suite.pcap 2> /dev/null || echo 0)
  if [ "$now" = "$size" ]; then same=$((same + 1)); else same=0; fi
  [ "$same" -ge 2 ] && break
  size=$now
  sleep 1
done
kill -INT "$dump" "$dump2" 2> /dev/null
wait "$dump" "$dump2" 2> /dev/null || true
echo "== the kernel's SMC messages"
dmesg | grep -i -E 'smc|rxe' | tail -20 || true
exit $rc
