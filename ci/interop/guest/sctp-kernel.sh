#!/usr/bin/env bash
# In the guest (ci/interop/kernel-run.sh, part "sctp"): the reference over Linux's own SCTP
# (`--sctp-stack kernel`, docs/sctp-ddp.md), captured by tcpdump. The results land in the run
# folder's sctp/:
#   kernel.txt                         the kernel, the sctp module and its sysctls
#   loopback.txt, loopback.pcap        `rdmaconf loopback --transport sctp --sctp-stack kernel -v`:
#                                      two reference endpoints, every RDMAP operation, on lo. lo
#                                      never computes SCTP's CRC32c (tx-checksum-sctp is fixed on):
#                                      every packet there carries checksum 0
#   one-case.txt, one-case.pcap        one small case (rdmap-atomic-fetchadd) across the veth pair
#   streams.txt, streams.pcap          the sctp suite's sctp-equal-stream-counts (an INIT asking for 8
#                                      streams each way against a responder set for 16)
#   ddp-rdmap/, run-ddp-rdmap.txt      `rdmaconf run` of the ddp and rdmap suites against
#                                      `rdmaconf responder --transport sctp --sctp-stack kernel`
#   sctp/, run-sctp.txt                the sctp suite against a responder with --sctp-ulp adaptation
#   suites.pcap                        both suite runs' packets
# The tester runs in a network namespace of its own (sctp-tester, 10.80.0.2), the responders in the
# root namespace (10.80.0.1), joined by a veth pair whose SCTP checksum offload and segmentation
# offload are off, so that the captures on sctp0 carry the CRC32c the kernel computed (RFC 9260
# §6.8) and packets as they go on a wire (with SCTP GSO on, tcpdump sees packets of several MTUs
# with checksum 0). tcpdump writes to the guest's /tmp with a large buffer and its drops are
# printed: under TCG it cannot keep up with the suites on the 9p share.
# SCTP_PORT (default 9899) is the responders' first SCTP port (the second is the next).
set -uo pipefail
port="${SCTP_PORT:-9899}"
mkdir -p sctp
{
  uname -r
  modprobe sctp && echo "modprobe sctp: ok"
  lsmod | grep -E '^sctp' || true
  sysctl net.sctp 2> /dev/null | grep -E 'addip_enable|prsctp_enable|reconf_enable|intl_enable|udp_port|encap_port' || true
} > sctp/kernel.txt 2>&1
cat sctp/kernel.txt

ip netns add sctp-tester 2> /dev/null || true
ip link add sctp0 type veth peer name sctp1 2> /dev/null || true
ip link set sctp1 netns sctp-tester
ip addr add 10.80.0.1/24 dev sctp0 2> /dev/null || true
ip link set sctp0 up
ip -n sctp-tester addr add 10.80.0.2/24 dev sctp1 2> /dev/null || true
ip -n sctp-tester link set sctp1 up
ip -n sctp-tester link set lo up
ethtool -K sctp0 tx-checksum-sctp off tx-sctp-segmentation off gso off > /dev/null
ip netns exec sctp-tester ethtool -K sctp1 tx-checksum-sctp off tx-sctp-segmentation off gso off > /dev/null
ethtool -k sctp0 | grep -E 'tx-checksum-sctp|tx-sctp-segmentation|generic-segmentation'
ip netns exec sctp-tester ethtool -k sctp1 | grep -E 'tx-checksum-sctp|tx-sctp-segmentation|generic-segmentation'

capture() {  # capture IFACE FILE: tcpdump of SCTP on IFACE, into FILE once stop_capture ends it
  capture_file=$2
  rm -f /tmp/sctp-capture.pcap
  # -Z root: the file stays root's, like the run folder's other files.
  setsid tcpdump -i "$1" -B 65536 -s 0 -n -Z root -w /tmp/sctp-capture.pcap sctp > sctp/tcpdump.log 2>&1 < /dev/null &
  echo $! > tcpdump-sctp.pid
  sleep 2
}
stop_capture() {
  local pid
  pid="$(cat tcpdump-sctp.pid)"
  sleep 1
  kill -INT "$pid" 2> /dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done
  cp /tmp/sctp-capture.pcap "$capture_file"
  cat sctp/tcpdump.log
}
tester=(ip netns exec sctp-tester rdmaconf)

# 1. Two reference endpoints over the kernel's SCTP.
capture lo sctp/loopback.pcap
rc=0
timeout 120 rdmaconf loopback --transport sctp --sctp-stack kernel -v > sctp/loopback.txt 2>&1 || rc=$?
stop_capture
echo "rdmaconf loopback --transport sctp --sctp-stack kernel: exit status $rc"
tail -1 sctp/loopback.txt

# 2. The tester against the reference IUT, both on the kernel's SCTP.
setsid rdmaconf responder --transport sctp --sctp-stack kernel --listen "10.80.0.1:$port" \
  > sctp/responder-ddp.txt 2>&1 < /dev/null &
echo $! > responder-ddp.pid
setsid rdmaconf responder --transport sctp --sctp-stack kernel --sctp-ulp adaptation \
  --listen "10.80.0.1:$((port + 1))" > sctp/responder-adaptation.txt 2>&1 < /dev/null &
echo $! > responder-adaptation.pid
sleep 2
cat sctp/responder-ddp.txt sctp/responder-adaptation.txt
common=(--transport sctp --sctp-stack kernel --cases-dir /opt/rdmaconf/cases --time-scale 2)

capture sctp0 sctp/one-case.pcap
rc=0
timeout 120 "${tester[@]}" run "${common[@]}" --target "10.80.0.1:$port" --case rdmap-atomic-fetchadd --json sctp/one-case.json \
  > sctp/one-case.txt 2>&1 || rc=$?
stop_capture
echo "rdmaconf run --case rdmap-atomic-fetchadd over the kernel's SCTP: exit status $rc"
tail -1 sctp/one-case.txt

capture sctp0 sctp/streams.pcap
rc=0
timeout 120 "${tester[@]}" run "${common[@]}" --target "10.80.0.1:$((port + 1))" --case sctp-equal-stream-counts \
  --json sctp/streams.json > sctp/streams.txt 2>&1 || rc=$?
stop_capture
echo "rdmaconf run --case sctp-equal-stream-counts over the kernel's SCTP: exit status $rc"
tail -1 sctp/streams.txt

capture sctp0 sctp/suites.pcap
rc=0
mkdir -p sctp/ddp-rdmap sctp/sctp
timeout 2400 "${tester[@]}" run "${common[@]}" --target "10.80.0.1:$port" --suite ddp --suite rdmap \
  --json sctp/ddp-rdmap/results.json --junit sctp/ddp-rdmap/junit.xml > sctp/run-ddp-rdmap.txt 2>&1 || rc=$?
echo "rdmaconf run --suite ddp --suite rdmap over the kernel's SCTP: exit status $rc"
tail -2 sctp/run-ddp-rdmap.txt
rc=0
timeout 600 "${tester[@]}" run "${common[@]}" --target "10.80.0.1:$((port + 1))" --suite sctp \
  --json sctp/sctp/results.json --junit sctp/sctp/junit.xml > sctp/run-sctp.txt 2>&1 || rc=$?
echo "rdmaconf run --suite sctp over the kernel's SCTP: exit status $rc"
tail -2 sctp/run-sctp.txt
kill "$(cat responder-ddp.pid)" "$(cat responder-adaptation.pid)" 2> /dev/null || true
stop_capture
ls -l sctp
