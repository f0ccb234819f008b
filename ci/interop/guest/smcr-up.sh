#!/bin/bash
# Runs in the 6.12 guest after smc-up.sh: a RoCEv2 wire between Linux SMC-R and the tester's own
# rxe device, for smcr-probe (the reference SMC-R link layer over rdma-core, smcr-roce.sh):
#
#   smcr0 10.79.0.1, rxe1 on it, PNET RDMACONFR = smcr0 + rxe1   (Linux SMC-R, the IUT)
#   smcr1 10.79.0.2, rxe2 on it                                   (smcr-probe, through verbs)
#
# rdma_rxe of Linux 6.12 sends and receives RoCEv2 in the root network namespace only (its UDP
# socket and its route lookups are init_net's), so the tester's rxe cannot sit in the namespace
# "tester". Both ends of the veth pair stay in the root namespace, and policy routing sends what
# either address sends to the other out through the veth instead of the loopback: a rule per
# address for locally generated packets (iif lo) ahead of the local table, which moves from
# preference 0 to 100; received packets still find their address there. accept_local takes
# packets whose source is an address of this host, rp_filter is off for them.
set -euo pipefail
BIN=/opt/rdmaconf
if ! ip link show smcr0 > /dev/null 2>&1; then
  ip link add smcr0 type veth peer name smcr1
fi
sysctl -qw net.ipv4.conf.all.rp_filter=0
for d in smcr0 smcr1; do
  sysctl -qw net.ipv6.conf.$d.disable_ipv6=1 net.ipv4.conf.$d.accept_local=1 net.ipv4.conf.$d.rp_filter=0
  ethtool -K $d tso off gso off gro off > /dev/null 2>&1 || true
done
ip addr replace 10.79.0.1/24 dev smcr0
ip addr replace 10.79.0.2/24 dev smcr1
ip link set smcr0 up
ip link set smcr1 up
ip route replace 10.79.0.2 dev smcr0 src 10.79.0.1 table 79
ip route replace 10.79.0.1 dev smcr1 src 10.79.0.2 table 80
ip rule show pref 10 | grep -q . || ip rule add pref 10 iif lo to 10.79.0.2 lookup 79
ip rule show pref 11 | grep -q . || ip rule add pref 11 iif lo to 10.79.0.1 lookup 80
ip rule show pref 100 | grep -q . || ip rule add pref 100 lookup local
ip rule show pref 0 | grep -q 'lookup local' && ip rule del pref 0 lookup local
rdma dev show rxe1 > /dev/null 2>&1 || rdma link add rxe1 type rxe netdev smcr0
rdma dev show rxe2 > /dev/null 2>&1 || rdma link add rxe2 type rxe netdev smcr1
"$BIN/smc_config" pnet RDMACONFR smcr0 rxe1 1
ip route get 10.79.0.2 | head -1
ip route get 10.79.0.1 | head -1
rdma link show rxe1/1
rdma link show rxe2/1
echo "smcr: PNET RDMACONFR = smcr0 + rxe1 port 1 (Linux, 10.79.0.1); rxe2 on smcr1 (the tester, 10.79.0.2)"
