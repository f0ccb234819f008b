#!/bin/bash
# Runs in the guest, from a copy outside the shares, for `vm.sh savevm`: qemu refuses to save a guest
# that has a 9p share mounted (its open files cannot be carried in a snapshot), so both shares are
# unmounted for a few seconds while the host saves the guest, then mounted again as rdmaconf-guest
# mounts them. The guest a `loadvm` brings back is inside that pause: it mounts them again itself
# (its clock stood still while it was saved). Every process must have left the shares first (the
# agent runs from a copy in /var/lib/rdmaconf: kernel-run.sh's siw_up with SNAPSHOTS=1).
#   share-pause.sh SECONDS
pause=${1:-8}
cd /
for _ in $(seq 100); do
  umount /opt/rdmaconf 2> /dev/null
  umount /run/rdmaconf 2> /dev/null
  mountpoint -q /run/rdmaconf || mountpoint -q /opt/rdmaconf || break
  sleep 0.1  # the command that started this one still has its output open on the share
done
sleep "$pause"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,cache=none run /run/rdmaconf
mount -t 9p -o trans=virtio,version=9p2000.L,msize=524288,ro bin /opt/rdmaconf
