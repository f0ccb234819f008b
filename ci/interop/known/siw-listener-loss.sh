#!/usr/bin/env bash
# Reproducer: siw loses its listener after TCP connections that close before their MPA Request
# (docs/interop.md, "Fuzzing siw"). Boots the interop guest of RDMACONF_KERNEL (6.1 or 6.12; the image
# from ci/interop/build-image.sh), brings siw up on eth0 and runs guest/siw-listener-loss.sh there:
# `rping -s` listens, the guest opens and closes CONNECTIONS TCP connections to it without a byte, then
# the socket table and an rping client say whether the listener is still there; the kernel log after
# the listener's teardown is printed. No agent and no rdmaconf binary take part.
#
#   RDMACONF_KERNEL=6.1 bash ci/interop/known/siw-listener-loss.sh [CONNECTIONS] [ROUNDS]
#
# Each round uses a listener of its own (port 7900, 7901, ...). Exit status: 0 when every listener
# survived, 1 when one was lost, 2 when the guest or siw did not come up. RDMACONF_INTEROP_PORT (first
# of four host loopback ports, default 17170) gives the host port the guest's NIC forwards (unused by
# the test; qemu's user network needs one to give the guest a NIC).
set -uo pipefail
cd "$(dirname "$0")/../../.."
. ci/interop/lib.sh
count=${1:-30}
rounds=${2:-2}
run="$VM_DIR/runs/listener-loss-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$run"
vm() { bash ci/interop/vm.sh "$@"; }
trap 'vm stop "$run" > /dev/null 2>&1 || true' EXIT
FORWARD="${RDMACONF_INTEROP_PORT:-17170}:7899" vm start "$run" ci/interop/guest/siw-up.sh ci/interop/guest/siw-listener-loss.sh \
  || exit 2
vm exec "$run" 'bash /opt/rdmaconf/siw-up.sh' || exit 2
lost=0
for r in $(seq "$rounds"); do
  echo "--- round $r: port $((7899 + r)), $count connections closed before their MPA Request"
  rc=0
  vm exec "$run" "bash /opt/rdmaconf/siw-listener-loss.sh $((7899 + r)) $count guest" 200 || rc=$?
  [ "$rc" = 2 ] && exit 2
  [ "$rc" = 1 ] && lost=1
done
echo "kernel $(cat "$VM_DIR/kernel-version.txt" 2> /dev/null): $([ "$lost" = 1 ] && echo 'a listener was lost' || echo 'every listener survived')"
exit "$lost"
