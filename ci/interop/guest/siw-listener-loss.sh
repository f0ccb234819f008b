#!/bin/bash
# Runs in the guest after siw-up.sh: does siw's listener survive TCP connections that close before
# their MPA Request? (docs/interop.md, "Fuzzing siw": siw stopped accepting connections, its port
# gone from the socket table, after the fuzzer's and the host's connections that ended before their
# Request.) No agent here: rping's server is the rdma_cm listener, so a loss is siw's or iw_cm's.
#
#   siw-listener-loss.sh [PORT] [CONNECTIONS] [FROM]
#
# Listens with `rping -s` on 10.0.2.15:PORT (default 7900), then opens and at once closes
# CONNECTIONS (default 30) TCP connections to it, none sending a byte; FROM "guest" (default) opens
# them here, "host" waits for the host to open them (through qemu's forward of PORT: the host's
# part prints what to run). Then it reads the socket table for the port, and connects an rping client
# to see whether the listener still takes an MPA connection. Exit status 0 when the listener survived,
# 1 when it was lost, 2 when the setup failed.
set -uo pipefail
port=${1:-7900}
count=${2:-30}
from=${3:-guest}
listening() { ss -Htln "sport = :$port" | grep -q .; }
rm -f rping-listener.log rping-client.log
setsid rping -s -a 10.0.2.15 -p "$port" -v > rping-listener.log 2>&1 < /dev/null &
server=$!
for _ in $(seq 50); do listening && break; sleep 0.2; done
if ! listening; then
  echo "setup: rping -s does not listen on :$port"; cat rping-listener.log; kill "$server" 2> /dev/null; exit 2
fi
echo "before: $(ss -Htln "sport = :$port" | awk '{print $4}' | tr '\n' ' ')(rping -s, pid $server)"
if [ "$from" = host ]; then
  echo "waiting 60 s for the host's $count connections"
  sleep 60
else
  opened=0
  for i in $(seq "$count"); do
    exec 3<> "/dev/tcp/10.0.2.15/$port" 2> /dev/null || { echo "connection $i: refused or reset"; break; }
    exec 3>&-
    opened=$i
  done
  echo "opened and closed $opened connections, none sending a byte"
fi
sleep 3
if listening; then echo "after: still listening"; lost=0; else echo "after: the listener on :$port is gone"; lost=1; fi
timeout 30 rping -c -a 10.0.2.15 -p "$port" -C 1 -v > rping-client.log 2>&1
echo "rping client: exit status $? ($(tail -1 rping-client.log))"
# rping's server ends, and rdma_cm destroys its listener (siw_destroy_listen).
kill "$server" 2> /dev/null
sleep 2
echo "kernel log: warnings and siw's lines since boot (the listener destroyed last):"
dmesg | grep -E 'WARNING|refcount_t|BUG|siw_|iw_cm' | grep -v 'taints kernel\|verification failed' | tail -20
exit "$lost"
