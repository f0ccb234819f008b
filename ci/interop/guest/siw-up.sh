#!/bin/bash
# Runs in the guest: eth0 (qemu user network) gets its fixed address, and the kernel's soft-iWARP
# driver, as Debian's source ships it, becomes an RDMA device on it. Offloads are off so that the
# capture shows the segments siw's TCP socket really sends.
set -euo pipefail
ip link set lo up
ip link set eth0 up
# IPv4 only: no router solicitations or SLAAC chatter in the capture
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
ip addr replace 10.0.2.15/24 dev eth0
ethtool -K eth0 tso off gso off gro off > /dev/null 2>&1 || true
modprobe -a ib_core ib_uverbs iw_cm rdma_cm rdma_ucm
modprobe siw
rdma link show siw0 > /dev/null 2>&1 || rdma link add siw0 type siw netdev eth0
rdma link show
echo "siw: $(modinfo -F filename siw) (srcversion $(modinfo -F srcversion siw)), kernel $(uname -r)"
