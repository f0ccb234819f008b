#!/bin/bash
# Runs in the 6.12 guest after smcr-up.sh (and smcr-roce.sh): the smcr suite live, the tester's SMC-R
# peer on its own rxe (rxe2 on smcr1, 10.79.0.2; its second port rxe4 on smcr3, 10.79.0.4) against
# Linux SMC-R (rxe1 on smcr0, 10.79.0.1; its second RNIC rxe3 on smcr2, 10.79.0.3), in both roles,
# one after the other:
#
#   responder role (Linux the SMC server, the tester its client):
#     Linux:  smc_pair serve 10.79.0.1 7710   (AF_SMC, each connection echoed until the peer closes)
#     tester: rdmaconf run --suite smcr --clc-target 10.79.0.1:7710 --roce-device rxe2 ...
#   initiator role (Linux the SMC client, the tester its server):
#     tester: rdmaconf run --suite smcr --listen 10.79.0.2:7711 --roce-device rxe2 ...
#     Linux:  smc_pair echo-client 10.79.0.2 7711, again and again (each connection echoes what the
#             tester writes, as smc_pair serve's children do; a new one starts when the last ended,
#             or after 8 s: a case's accept waits 10 s, and a client stuck in the kernel stays behind)
#
# The roles run apart so that each case's link group is Linux's only one with the tester (the
# engine runs a --listen run's initiator-role cases beside its responder-role ones). Linux over rxe
# has no RoCE v1 GID, so no SMC-R version 1: the cases run over version 2. The tester runs in the
# cgroup whose sockets carry the SMC TCP option (smc-up.sh), in the root namespace (rxe sends
# RoCEv2 from init_net only: smcr-up.sh). tcpdump on smcr1 records TCP and RoCEv2
# (smcr-suite.pcap), on smcr3 the second links' RoCEv2 (smcr-suite-link2.pcap). Each role's reports
# go to smcr-suite/parts/<role>/, both joined by `rdmaconf report` into smcr-suite/ (results.json,
# junit.xml, html/); the kernel log after each role to smcr-suite-dmesg-<role>.txt. With
# SMCR_SUITE_EACH=1 every case runs alone (parts/<role>-<id>/), and the tasks Linux leaves stuck in
# the kernel after each are listed with the case in smcr-suite-stuck.txt.
# Exit status: 0 when both runs ran (failing cases are findings, not errors).
# SMCR_SUITE_CASES="ID ...": only these cases. SMCR_SUITE_ROLES: "responder initiator" (default) or
# one of them. SMCR_SUITE_TIME_SCALE: --time-scale (default 4, TCG).
set -uo pipefail
BIN=/opt/rdmaconf
PORT=7710
LISTEN_PORT=7711
SCALE=${SMCR_SUITE_TIME_SCALE:-4}
mkdir -p smcr-suite/parts
setsid tcpdump -i smcr1 -s 0 -U -n -w smcr-suite.pcap "udp port 4791 or tcp port $PORT or tcp port $LISTEN_PORT" \
  > tcpdump-smcr-suite.log 2>&1 < /dev/null &
dump=$!
setsid tcpdump -i smcr3 -s 0 -U -n -w smcr-suite-link2.pcap "udp port 4791" \
  > tcpdump-smcr-suite-link2.log 2>&1 < /dev/null &
dump2=$!
sleep 2
# ids ROLE: the smcr cases of that role (and among SMCR_SUITE_CASES, when given)
ids() {
  "$BIN/rdmaconf" cases --suite smcr --cases-dir "$BIN/cases" |
    awk -v role="$1" -v only=" ${SMCR_SUITE_CASES:-} " '$NF == role && (only == "  " || index(only, " " $1 " ")) { print $1 }'
}
# run_cases PART ARGS...: one rdmaconf run (ARGS: its --case and target options) in the tester's
# cgroup, its reports in smcr-suite/parts/PART/
run_cases() {
  local part=$1; shift
  mkdir -p "smcr-suite/parts/$part"
  bash -c 'echo $$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs && exec "$@"' tester \
    "$BIN/rdmaconf" run --suite smcr --cases-dir "$BIN/cases" "$@" \
    --roce-device rxe2 --roce-alternate-device rxe4 --smcr-version 2 \
    --clc-eid RDMACONF-INTEROP --clc-prefix auto --clc-gid auto --clc-mac auto -j 1 --time-scale "$SCALE" \
    --json "smcr-suite/parts/$part/results.json" --junit "smcr-suite/parts/$part/junit.xml" \
    --html "smcr-suite/parts/$part/html"
  echo "rdmaconf run ($part) exit status $?"
}
# stuck: Linux's tasks whose kernel stack waits for CDC sends that never complete
# (smc_cdc_wait_pend_tx_wr: a link group's termination) or for a socket lock under smc_rx_wait
stuck() {  # a few processes in all: forks are dear under TCG
  grep -l smc_cdc_wait_pend_tx_wr /proc/[0-9]*/task/[0-9]*/stack 2> /dev/null | sed 's|^/proc/||; s|/stack$|: smc_cdc_wait_pend_tx_wr|'
  grep -l smc_rx_wait /proc/[0-9]*/task/[0-9]*/stack 2> /dev/null | xargs -r grep -l lock_sock |
    sed 's|^/proc/||; s|/stack$|: lock_sock in smc_rx_wait|'
}
# tester ROLE ARGS...: that role's cases, in one run, or with SMCR_SUITE_EACH=1 one run per case
# followed by a look (after 5 s) for tasks newly stuck (smcr-suite-stuck.txt names the case)
tester() {
  local role=$1 cases=() id before now; shift
  for id in $(ids "$role"); do cases+=(--case "$id"); done
  [ ${#cases[@]} -gt 0 ] || { echo "== $role role: no cases"; return 0; }
  echo "== $role role: $(( ${#cases[@]} / 2 )) cases"
  if [ "${SMCR_SUITE_EACH:-0}" = 1 ]; then
    for id in $(ids "$role"); do
      before=$(stuck)
      run_cases "$role-$id" --case "$id" "$@"
      sleep 5
      now=$(comm -13 <(sort <<< "$before") <(stuck | sort) | grep .) &&
        printf '%s\n' "after $id ($(date -u +%T)):" "$now" | tee -a smcr-suite-stuck.txt
    done
  else
    run_cases "$role" "${cases[@]}" "$@"
  fi
  dmesg > "smcr-suite-dmesg-$role.txt"
}
listening() {  # listening PORT: wait (30 s at most) until something listens on PORT
  for _ in $(seq 60); do ss -Htln "sport = :$1" | grep -q . && return 0; sleep 0.5; done
  echo "nothing listens on port $1"
}
rc=0
roles=" ${SMCR_SUITE_ROLES:-responder initiator} "

if [[ "$roles" == *" responder "* ]]; then
  setsid "$BIN/smc_pair" serve 10.79.0.1 $PORT > smcr-suite-linux.txt 2>&1 < /dev/null &
  server=$!
  listening $PORT
  sleep 1
  tester responder --clc-target 10.79.0.1:$PORT || rc=1
  kill -- "-$server" 2> /dev/null  # smc_pair and its children (setsid: their own group)
fi

if [[ "$roles" == *" initiator "* ]] && [ -n "$(ids initiator)" ]; then
  # Linux's SMC client: a connection to the tester's listener, each in a process of its own; one
  # that has not ended after 8 s is left behind (killed after 60 s; a task stuck in the kernel
  # ignores signals) and the next starts, so every case finds a connection within its 10 s.
  rm -f smcr-suite-clients.stop
  setsid bash -c 'n=0
    until [ -e smcr-suite-clients.stop ]; do
      n=$((n + 1))
      timeout -k 5 60 "$1/smc_pair" echo-client 10.79.0.2 "$2" > smcr-suite-client.txt 2>&1 &
      c=$!
      for _ in $(seq 8); do kill -0 $c 2> /dev/null || break; [ -e smcr-suite-clients.stop ] && break; sleep 1; done
      if kill -0 $c 2> /dev/null; then st="still running"; else wait $c; st="exit $?"; fi
      echo "client $n ($(date -u +%T)): $(tr "\n" " " < smcr-suite-client.txt)$st"
      sleep 1
    done' clients "$BIN" $LISTEN_PORT >> smcr-suite-linux.txt 2>&1 < /dev/null &
  clients=$!
  tester initiator --listen 10.79.0.2:$LISTEN_PORT || rc=1
  touch smcr-suite-clients.stop
  sleep 2
  kill -- "-$clients" 2> /dev/null
fi

parts=()
for role in responder initiator; do
  for f in "smcr-suite/parts/$role/results.json" smcr-suite/parts/"$role"-*/results.json; do
    [ -e "$f" ] && parts+=("$f")
  done
done
if [ ${#parts[@]} -gt 0 ]; then
  "$BIN/rdmaconf" report "${parts[@]}" --cases-dir "$BIN/cases" \
    --json smcr-suite/results.json --junit smcr-suite/junit.xml --html smcr-suite/html | tail -3
fi
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
dmesg | grep -i -E 'smc|rxe|blocked for' | tail -30 || true
exit $rc
