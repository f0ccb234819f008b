#!/bin/bash
# Runs in the 6.12 guest after smc-up.sh: real SMC-D v2 traffic between two Linux endpoints over the
# software ISM device loopback-ism (CONFIG_SMC_LO, built into this guest's smc.ko), captured on smc0.
#
#   AF_SMC server in the root namespace (10.78.0.1:7600), AF_SMC client in namespace "tester"
#   (10.78.0.2), both in this one kernel: loopback-ism joins only connections within one kernel.
#
# The CLC handshake crosses the veth as TCP (with the SMC TCP option, which AF_SMC sockets send
# themselves); the data then moves through loopback-ism's DMBs and never reaches the wire. SMC-D v2
# needs an EID both ends share: the UEID smc-up.sh configured. Leaves smcd.pcap and smcd.txt (what
# each end and the kernel's SMC statistics said) in the run folder.
set -euo pipefail
BIN=/opt/rdmaconf
PORT=7600
rm -f smcd.pcap
{
  echo "== ISM devices (loopback-ism is one when CONFIG_SMC_LO is on)"
  ls /sys/class/smc_lo 2> /dev/null || true
  ls -d /sys/devices/virtual/smc_lo* 2> /dev/null || true
  dmesg | grep -i -E 'smc|ism' | tail -5 || true
} > smcd.txt 2>&1
setsid tcpdump -i smc0 -s 0 -U -n -w smcd.pcap "tcp port $PORT" > tcpdump-smcd.log 2>&1 < /dev/null &
dump=$!
sleep 2
setsid "$BIN/smc_pair" server 10.78.0.1 "$PORT" 2 >> smcd.txt 2>&1 < /dev/null &
server=$!
sleep 1
rc=0
ip netns exec tester "$BIN/smc_pair" client 10.78.0.1 "$PORT" 2 8192 >> smcd.txt 2>&1 || rc=$?
for _ in $(seq 20); do kill -0 "$server" 2> /dev/null || break; sleep 0.5; done
kill "$server" 2> /dev/null || true
sleep 1
kill -INT "$dump" 2> /dev/null || true
sleep 1
echo "== client exit status $rc" >> smcd.txt
cat smcd.txt
exit "$rc"
