#!/bin/bash
# Runs in the 6.12 guest after smc-up.sh: RoCEv2 between Linux SMC-R and the tester's own rxe
# devices, for smcr-probe (smcr-roce.sh) and the smcr suite (smcr-suite.sh). Four ports, each a veth
# whose other end is a port of one Linux bridge, smcrbr (the lab's switch), so that every port
# reaches every other one as in a lab:
#
#   smcr0 10.79.0.1, rxe1 on it, PNET RDMACONFR = smcr0 + rxe1   (Linux SMC-R, the IUT)
#   smcr1 10.79.0.2, rxe2 on it                                   (the tester's first port)
#   smcr2 10.79.0.3, rxe3 on it, in the same PNET RDMACONFR       (Linux's second RNIC)
#   smcr3 10.79.0.4, rxe4 on it                                   (the tester's second port)
#
# Each side's second port is there for a link group's second link on another RNIC (RFC 7609 §2.2);
# the tester's rxe4 is its --roce-alternate-device. The switch gives both kinds of second link a
# path: symmetric (rxe3 to rxe4) and asymmetric (§2.2.1: Linux's rxe3 to the tester's one port
# rxe2, or the tester's rxe4 to Linux's rxe1).
#
# One subnet on purpose: Linux's SMC-Rv2 server takes a second RNIC for an added link only when
# that RNIC's interface holds an address in the subnet of the link group's own address and routes
# to the peer's first GID without a gateway (smc_llc_srv_add_link, smc_ib_determine_gid); on
# another subnet it offers the second link on its first RNIC again (asymmetric).
#
# rdma_rxe of Linux 6.12 sends and receives RoCEv2 in the root network namespace only (its UDP
# socket and its route lookups are init_net's), so the tester's rxe cannot sit in the namespace
# "tester": all four ports are in the root namespace. rxe hands a packet to the rxe device of the
# interface it arrives on, so a packet must arrive on its GID's own interface:
# - rxe routes each packet with its own interface as the output interface; the subnet's connected
#   route on that interface carries it to the switch (the local table's entries for the other
#   ports' addresses name other interfaces and do not match).
# - Sockets and lookups with no interface (CLC's TCP; Linux's route check for a GID; the tester's
#   address resolution) follow a policy rule per address of the first ports (and of the second
#   ports, to each other), locally generated packets (iif lo) only, ahead of the local table,
#   which moves from preference 0 to 100; received packets still find their address there.
# - arp_ignore=1: only the port that holds an address answers ARP for it (all four ports and
#   the bridge's own interface see each request, and would each answer for any address of this
#   host); arp_announce=2: a request names its own port's address.
# - The switch knows each port's MAC from the start (static entries): no frame for one port is
#   flooded to another, so each port's capture holds its own traffic only.
# accept_local takes packets whose source is an address of this host, rp_filter is off for them.
set -euo pipefail
BIN=/opt/rdmaconf
sysctl -qw net.ipv4.conf.all.rp_filter=0
ip link show smcrbr > /dev/null 2>&1 || ip link add smcrbr type bridge stp_state 0 forward_delay 0
sysctl -qw net.ipv6.conf.smcrbr.disable_ipv6=1 net.ipv4.conf.smcrbr.arp_ignore=1
ip link set smcrbr up
# port DEV ADDR: a veth DEV holding ADDR, its other end DEVb a port of smcrbr
port() {
  local d=$1 addr=$2
  ip link show "$d" > /dev/null 2>&1 || ip link add "$d" type veth peer name "${d}b"
  ip link set "${d}b" master smcrbr
  for i in "$d" "${d}b"; do
    sysctl -qw net.ipv6.conf.$i.disable_ipv6=1 net.ipv4.conf.$i.accept_local=1 net.ipv4.conf.$i.rp_filter=0 \
      net.ipv4.conf.$i.arp_ignore=1 net.ipv4.conf.$i.arp_announce=2
    ethtool -K "$i" tso off gso off gro off > /dev/null 2>&1 || true
  done
  ip addr replace "$addr/24" dev "$d"
  ip link set "${d}b" up
  ip link set "$d" up
  bridge fdb replace "$(cat /sys/class/net/$d/address)" dev "${d}b" master static
}
port smcr0 10.79.0.1
port smcr1 10.79.0.2
port smcr2 10.79.0.3
port smcr3 10.79.0.4
# path FROM_DEV FROM_ADDR TO_ADDR TABLE: what this host sends to TO_ADDR with no interface of its
# own leaves through FROM_DEV with source FROM_ADDR
path() {
  local dev=$1 from=$2 to=$3 table=$4
  ip route replace "$to" dev "$dev" src "$from" table "$table"
  ip rule show pref "$table" | grep -q . || ip rule add pref "$table" iif lo to "$to" lookup "$table"
}
path smcr0 10.79.0.1 10.79.0.2 10
path smcr1 10.79.0.2 10.79.0.1 11
path smcr2 10.79.0.3 10.79.0.4 12
path smcr3 10.79.0.4 10.79.0.3 13
ip rule show pref 100 | grep -q . || ip rule add pref 100 lookup local
ip rule show pref 0 | grep -q 'lookup local' && ip rule del pref 0 lookup local
rdma dev show rxe1 > /dev/null 2>&1 || rdma link add rxe1 type rxe netdev smcr0
rdma dev show rxe2 > /dev/null 2>&1 || rdma link add rxe2 type rxe netdev smcr1
rdma dev show rxe3 > /dev/null 2>&1 || rdma link add rxe3 type rxe netdev smcr2
rdma dev show rxe4 > /dev/null 2>&1 || rdma link add rxe4 type rxe netdev smcr3
"$BIN/smc_config" pnet RDMACONFR smcr0 rxe1 1
"$BIN/smc_config" pnet RDMACONFR smcr2 rxe3 1
for a in 10.79.0.2 10.79.0.1 10.79.0.4 10.79.0.3; do ip route get $a | head -1; done
for d in smcr0 smcr1 smcr2 smcr3; do ip neigh flush dev $d; done  # no answer of an earlier wiring kept
# the paths rxe takes (its own interface as the output interface), first and second ports crossed
for p in "10.79.0.2 smcr0" "10.79.0.3 smcr1" "10.79.0.2 smcr2" "10.79.0.1 smcr3"; do
  set -- $p
  ip route get "$1" oif "$2" | head -1
done
for d in rxe1 rxe2 rxe3 rxe4; do rdma link show $d/1; done
echo "smcr: PNET RDMACONFR = smcr0 + rxe1, smcr2 + rxe3 port 1 (Linux, 10.79.0.1, 10.79.0.3);" \
  "rxe2 on smcr1, rxe4 on smcr3 (the tester, 10.79.0.2, 10.79.0.4); all four ports on the bridge smcrbr"
