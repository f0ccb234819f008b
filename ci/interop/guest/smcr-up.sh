#!/bin/bash
# Runs in the 6.12 guest after smc-up.sh: a RoCEv2 wire between Linux SMC-R and the tester's own
# rxe device, for smcr-probe (the reference SMC-R link layer over rdma-core, smcr-roce.sh):
#
#   smcr0 10.79.0.1, rxe1 on it, PNET RDMACONFR = smcr0 + rxe1   (Linux SMC-R, the IUT)
#   smcr1 10.79.0.2, rxe2 on it                                   (smcr-probe, through verbs)
#
# and a second wire for each side's second RoCE port (RFC 7609 §2.2: a link group's second link on
# another RNIC), which the smcr suite's tester uses for added links (--roce-alternate-device rxe4):
#
#   smcr2 10.79.0.3, rxe3 on it, in the same PNET RDMACONFR       (Linux's second RNIC)
#   smcr3 10.79.0.4, rxe4 on it                                   (the tester's second port)
#
# The same subnet on purpose: Linux's SMC-Rv2 server takes a second RNIC for an added link only
# when that RNIC's interface holds an address in the subnet of the link group's own address and
# routes to the peer's first GID without a gateway (smc_llc_srv_add_link, smc_ib_determine_gid);
# on another subnet it offers the second link on its first RNIC again (asymmetric).
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
sysctl -qw net.ipv4.conf.all.rp_filter=0
# wire A B ADDR_A ADDR_B TABLE: a veth pair whose two addresses reach each other through it
wire() {
  local a=$1 b=$2 addr_a=$3 addr_b=$4 table=$5
  ip link show "$a" > /dev/null 2>&1 || ip link add "$a" type veth peer name "$b"
  for d in "$a" "$b"; do
    sysctl -qw net.ipv6.conf.$d.disable_ipv6=1 net.ipv4.conf.$d.accept_local=1 net.ipv4.conf.$d.rp_filter=0
    ethtool -K "$d" tso off gso off gro off > /dev/null 2>&1 || true
  done
  ip addr replace "$addr_a/24" dev "$a"
  ip addr replace "$addr_b/24" dev "$b"
  ip link set "$a" up
  ip link set "$b" up
  ip route replace "$addr_b" dev "$a" src "$addr_a" table "$table"
  ip route replace "$addr_a" dev "$b" src "$addr_b" table $((table + 1))
  ip rule show pref "$table" | grep -q . || ip rule add pref "$table" iif lo to "$addr_b" lookup "$table"
  ip rule show pref $((table + 1)) | grep -q . || ip rule add pref $((table + 1)) iif lo to "$addr_a" lookup $((table + 1))
}
wire smcr0 smcr1 10.79.0.1 10.79.0.2 10
wire smcr2 smcr3 10.79.0.3 10.79.0.4 12
ip rule show pref 100 | grep -q . || ip rule add pref 100 lookup local
ip rule show pref 0 | grep -q 'lookup local' && ip rule del pref 0 lookup local
rdma dev show rxe1 > /dev/null 2>&1 || rdma link add rxe1 type rxe netdev smcr0
rdma dev show rxe2 > /dev/null 2>&1 || rdma link add rxe2 type rxe netdev smcr1
rdma dev show rxe3 > /dev/null 2>&1 || rdma link add rxe3 type rxe netdev smcr2
rdma dev show rxe4 > /dev/null 2>&1 || rdma link add rxe4 type rxe netdev smcr3
"$BIN/smc_config" pnet RDMACONFR smcr0 rxe1 1
"$BIN/smc_config" pnet RDMACONFR smcr2 rxe3 1
for a in 10.79.0.2 10.79.0.1 10.79.0.4 10.79.0.3; do ip route get $a | head -1; done
for d in rxe1 rxe2 rxe3 rxe4; do rdma link show $d/1; done
echo "smcr: PNET RDMACONFR = smcr0 + rxe1, smcr2 + rxe3 port 1 (Linux, 10.79.0.1, 10.79.0.3);" \
  "rxe2 on smcr1, rxe4 on smcr3 (the tester, 10.79.0.2, 10.79.0.4)"
