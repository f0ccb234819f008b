#!/usr/bin/env bash
# vm.sh: boot, drive and power off the interop guest (the image from build-image.sh).
#
#   vm.sh start RUN_DIR [BIN...]   boot in the background; returns when the guest's service is ready.
#                                  BIN files are copied to RUN_DIR/bin, which the guest mounts
#                                  read-only on /opt/rdmaconf (9p tag "bin") and has on its PATH.
#   vm.sh exec RUN_DIR 'CMD' [S]   run CMD in the guest (cwd = the run folder, /run/rdmaconf in the
#                                  guest), print its output, exit with its status; S = timeout (300)
#   vm.sh stop RUN_DIR             ask the guest to power off; wait for qemu to exit (by its PID), at
#                                  most STOP_TIMEOUT s (60), then SIGTERM to that PID
#   vm.sh savevm RUN_DIR [TAG]     (a guest started with SNAPSHOTS=1) keep the whole running guest as TAG
#   vm.sh loadvm RUN_DIR [TAG]     bring it back as it was kept: seconds, where a reboot takes minutes
#
# Network: one virtio NIC on qemu's user-mode network with restrict=on, so the guest reaches nothing
# outside itself; the only ways in and out are explicit forwards bound to the host's 127.0.0.1:
#   FORWARD="H:G ..."      hostfwd: host 127.0.0.1:H -> guest 10.0.2.15:G
#   GUESTFWD="P ..."       guestfwd: guest connects to 10.0.2.100:P -> one `socat` per connection to
#                          host 127.0.0.1:P (a tester listening on loopback for the IUT to connect)
# No FORWARD and no GUESTFWD: no NIC at all.
#
# The accelerator is KVM only where hardware virtualisation is loaded (kvm_intel / kvm_amd); anything
# else (nested, software-paged KVM) runs the guest far slower than TCG, so TCG is the default there.
# ACCEL=kvm|tcg overrides. The root disk is attached with snapshot=on: the image never changes (with
# SNAPSHOTS=1 through a qcow2 overlay in the run folder instead, which can hold the guest's snapshots).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh"

GUEST_IP=10.0.2.15
GUESTFWD_IP=10.0.2.100

cmd_start() {
  local run=$1; shift
  for f in vmlinuz initrd.img rootfs.img; do
    [ -f "$VM_DIR/$f" ] || die "$VM_DIR/$f missing: run ci/interop/build-image.sh first"
  done
  mkdir -p "$run/share/cmd" "$run/bin"
  rm -f "$run/share/ready" "$run/share/poweroff"
  local b
  for b in "$@"; do cp -f "$b" "$run/bin/"; done

  local accel="${ACCEL:-}"
  if [ -z "$accel" ]; then
    if [ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; }; then accel=kvm; else accel=tcg; fi
  fi
  local accel_args
  if [ "$accel" = kvm ]; then accel_args=(-enable-kvm -cpu host); else accel_args=(-accel tcg,thread=multi -cpu max); fi

  local nic="" f h g
  for f in ${FORWARD:-}; do
    h=${f%%:*}; g=${f##*:}
    [[ "$h" =~ ^[0-9]+$ && "$g" =~ ^[0-9]+$ ]] || die "FORWARD entry '$f' is not HOSTPORT:GUESTPORT"
    nic+=",hostfwd=tcp:127.0.0.1:$h-:$g"
  done
  for f in ${GUESTFWD:-}; do
    [[ "$f" =~ ^[0-9]+$ ]] || die "GUESTFWD entry '$f' is not a port"
    command -v socat > /dev/null || die "socat missing: run ci/interop/install-deps.sh"
    nic+=",guestfwd=tcp:$GUESTFWD_IP:$f-cmd:socat - TCP:127.0.0.1:$f"
  done
  local net_args=(-nic none)
  [ -n "$nic" ] && net_args=(-nic "user,model=virtio-net-pci,restrict=on$nic")

  # SNAPSHOTS=1: the root disk is a qcow2 overlay of the image in the run folder (the image still never
  # changes) and qemu has a QMP socket, so that `savevm`/`loadvm` can keep and bring back the whole
  # guest (memory, devices, disk): a restore in seconds where a reboot under TCG takes minutes.
  local disk_args=(-drive "file=$VM_DIR/rootfs.img,if=virtio,format=raw,snapshot=on")
  if [ "${SNAPSHOTS:-0}" = 1 ]; then
    rm -f "$run/overlay.qcow2" "$run/qmp.sock"
    qemu-img create -q -f qcow2 -F raw -b "$VM_DIR/rootfs.img" "$run/overlay.qcow2"
    disk_args=(-drive "file=$run/overlay.qcow2,if=virtio,format=qcow2" -qmp "unix:$run/qmp.sock,server=on,wait=off")
  fi
  local q=(qemu-system-x86_64 "${accel_args[@]}" -m "${MEM:-1536}" -smp "${SMP:-2}" -nographic -vga none -no-reboot
    -kernel "$VM_DIR/vmlinuz" -initrd "$VM_DIR/initrd.img"
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 systemd.show_status=0 loglevel=4"
    "${disk_args[@]}"
    -virtfs "local,path=$run/share,mount_tag=run,security_model=none,id=run"
    -virtfs "local,path=$run/bin,mount_tag=bin,security_model=none,readonly=on,id=bin"
    "${net_args[@]}")
  printf '%q ' "${q[@]}" > "$run/qemu-cmdline.txt"; echo >> "$run/qemu-cmdline.txt"
  local t0=$SECONDS
  setsid "${q[@]}" < /dev/null > "$run/console.log" 2>&1 &
  local pid=$!
  echo "$pid" > "$run/qemu.pid"
  log "qemu pid $pid ($accel), waiting for the guest (console: $run/console.log)"
  local i
  for i in $(seq 1 $((${BOOT_TIMEOUT:-300} * 5))); do
    [ -e "$run/share/ready" ] && break
    kill -0 "$pid" 2> /dev/null || { tail -20 "$run/console.log" >&2; die "qemu exited during boot"; }
    sleep 0.2
  done
  [ -e "$run/share/ready" ] || die "the guest was not ready within ${BOOT_TIMEOUT:-300} s"
  echo "$((SECONDS - t0))" > "$run/boot-seconds"
  log "guest ready after $((SECONDS - t0)) s (guest uptime $(cat "$run/share/ready") s)"
}

cmd_exec() {
  local run=$1 cmd=$2 timeout=${3:-300}
  local d="$run/share/cmd" n
  [ -d "$d" ] || die "$run is not a running guest's folder"
  n="$(date +%s%N)"
  printf '%s\n' "$cmd" > "$d/$n.tmp"
  mv "$d/$n.tmp" "$d/$n.sh"
  local i
  for i in $(seq 1 $((timeout * 10))); do
    [ -e "$d/$n.rc" ] && break
    sleep 0.1
  done
  [ -e "$d/$n.out" ] && cat "$d/$n.out"
  [ -e "$d/$n.rc" ] || { log "guest command timed out after $timeout s (it keeps running in the guest)"; return 124; }
  return "$(cat "$d/$n.rc")"
}

cmd_stop() {
  local run=$1 pid
  touch "$run/share/poweroff"
  pid="$(cat "$run/qemu.pid" 2> /dev/null || true)"
  [ -n "$pid" ] || return 0
  local i
  for i in $(seq 1 $((${STOP_TIMEOUT:-60} * 5))); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done
  if kill -0 "$pid" 2> /dev/null; then
    log "qemu $pid still running ${STOP_TIMEOUT:-60} s after the power-off request: SIGTERM to that PID"
    kill "$pid" 2> /dev/null || true
  fi
  rm -f "$run/qemu.pid"
}

# savevm/loadvm (a guest started with SNAPSHOTS=1): the whole guest kept as TAG in its overlay, and
# brought back from it. A mounted 9p share makes qemu refuse savevm, so the guest leaves both shares
# for a few seconds (guest/share-pause.sh, run from a copy outside them) while the host saves it, and
# the guest mounts them again after the save and after each loadvm. Each returns once the guest runs
# commands again.
qmp() { python3 "$here/qmp.py" "$1/qmp.sock" "$2"; }
cmd_savevm() {
  local run=$1 tag=${2:-ready} said="" saved=0
  [ -S "$run/qmp.sock" ] || die "$run has no QMP socket: start the guest with SNAPSHOTS=1"
  cp -f "$here/guest/share-pause.sh" "$run/share/share-pause.sh"
  # Up to three pauses: under TCG on a loaded host one may end before qemu could save the guest.
  for _ in 1 2 3; do
    # Started from /, alone in the background: a subshell left waiting in the share (its working
    # folder, its output file) would keep the share mounted.
    cmd_exec "$run" 'mkdir -p /var/lib/rdmaconf && cp share-pause.sh /var/lib/rdmaconf/ && cd / &&
      { setsid bash /var/lib/rdmaconf/share-pause.sh 8 > /dev/null 2>&1 < /dev/null & }' 120 > /dev/null \
      || die "savevm: the guest did not start share-pause.sh"
    for _ in $(seq 40); do  # until the guest has left both shares
      said="$(qmp "$run" "savevm $tag" 2>&1)" && { saved=1; break 2; }
      said="${said:-savevm failed}"
      sleep 0.2
    done
    cmd_exec "$run" true 120 > /dev/null || die "savevm $tag: the guest did not mount its shares again"
  done
  [ "$saved" = 1 ] || die "savevm $tag: $said (a process in the guest may still use a share)"
  cmd_exec "$run" true 120 > /dev/null || die "savevm $tag: the guest did not mount its shares again"
}
cmd_loadvm() {
  local run=$1 tag=${2:-ready}
  [ -S "$run/qmp.sock" ] || die "$run has no QMP socket: start the guest with SNAPSHOTS=1"
  qmp "$run" "loadvm $tag" || die "loadvm $tag failed"
  cmd_exec "$run" true 120 > /dev/null || die "loadvm $tag: the guest did not mount its shares again"
}

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  savevm) shift; cmd_savevm "$@" ;;
  loadvm) shift; cmd_loadvm "$@" ;;
  *) echo "usage: vm.sh start RUN_DIR [BIN...] | exec RUN_DIR 'CMD' [TIMEOUT] | stop RUN_DIR | savevm|loadvm RUN_DIR [TAG]" >&2; exit 2 ;;
esac
