#!/bin/bash
# Runs in the guest: Linux SMC-R over soft-RoCE as the CLC IUT, and a network namespace for the
# tester, so that every CLC connection is real TCP between two interfaces of the guest:
#
#   root namespace: smc0 10.78.0.1, rxe0 on it, the agent's AF_SMC listener  (the IUT)
#   namespace "tester": smc1 10.78.0.2, default route via 10.78.0.1          (rdmaconf run)
#
# Linux (6.1 and 6.12) needs three things besides the modules: a PNET table entry tying rxe0 to smc0 (rxe
# cannot name its netdev to SMC), a User Defined EID (SMC v2 is offered and accepted only with one),
# and, on the tester's side, the SMC TCP option on SYN and SYN-ACK (RFC 7609 §3.1; plain TCP sockets
# cannot send it): a sock_ops BPF program attached to the cgroup the tester runs in.
# rdma_rxe is stock Debian: its 6.1 bugs on the way to an SMC-R link (LLC over the QP) lie after CLC,
# but the link group teardown they leave hanging (smc_wr_drain_cq) keeps Linux's client-side
# first-contact lock: a 6.1 boot serves one client-role Accept (docs/interop.md, Linux SMC); 6.12's
# rxe has both causes fixed.
set -euo pipefail
BIN=/opt/rdmaconf
UEID=RDMACONF-INTEROP
modprobe -a rdma_rxe smc smc_diag
# SMC release 2.1 (Linux 6.12): the server's first-contact Accept agrees the smaller of the client's
# and its own Max Conns / Max Links (smc_clc_srv_v2x_features_validate); the clc suite's 2.1 cases
# ask for at least 16 connections and 1 or 2 links. Set here, not left to the defaults.
if [ -e /proc/sys/net/smc/smcr_max_conns_per_lgr ]; then
  sysctl -w net.smc.smcr_max_conns_per_lgr=255 net.smc.smcr_max_links_per_lgr=2
fi
ip netns add tester 2> /dev/null || true
if ! ip link show smc0 > /dev/null 2>&1; then
  ip link add smc0 type veth peer name smc1
  ip link set smc1 netns tester
fi
sysctl -qw net.ipv6.conf.smc0.disable_ipv6=1
ip addr replace 10.78.0.1/24 dev smc0
ip link set smc0 up
ip -n tester link set lo up
ip netns exec tester sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip -n tester addr replace 10.78.0.2/24 dev smc1
ip -n tester link set smc1 up
ip -n tester route replace default via 10.78.0.1
ethtool -K smc0 tso off gso off gro off > /dev/null 2>&1 || true
ip netns exec tester ethtool -K smc1 tso off gso off gro off > /dev/null 2>&1 || true
rdma dev show rxe0 > /dev/null 2>&1 || rdma link add rxe0 type rxe netdev smc0
"$BIN/smc_config" pnet RDMACONF smc0 rxe0 1
"$BIN/smc_config" ueid "$UEID"
# The tester's cgroup and the option writer.
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
mkdir -p /sys/fs/cgroup/rdmaconf-tester
[ -e /sys/fs/bpf/smc_option ] || bpftool prog load "$BIN/smc_option.bpf.o" /sys/fs/bpf/smc_option type sockops
bpftool cgroup attach /sys/fs/cgroup/rdmaconf-tester sock_ops pinned /sys/fs/bpf/smc_option 2> /dev/null || true
bpftool cgroup show /sys/fs/cgroup/rdmaconf-tester
rdma link show rxe0/1
echo "smc: PNET RDMACONF = smc0 + rxe0 port 1, UEID $UEID, tester namespace 'tester' (10.78.0.2)"
