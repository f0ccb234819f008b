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
# ACCEL=kvm|tcg overrides. The root disk is attached with snapshot=on: the image never changes.
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

  local q=(qemu-system-x86_64 "${accel_args[@]}" -m "${MEM:-1536}" -smp "${SMP:-2}" -nographic -vga none -no-reboot
    -kernel "$VM_DIR/vmlinuz" -initrd "$VM_DIR/initrd.img"
    -append "root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1 systemd.show_status=0 loglevel=4"
    -drive "file=$VM_DIR/rootfs.img,if=virtio,format=raw,snapshot=on"
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

case "${1:-}" in
  start) shift; cmd_start "$@" ;;
  exec) shift; cmd_exec "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  *) echo "usage: vm.sh start RUN_DIR [BIN...] | exec RUN_DIR 'CMD' [TIMEOUT] | stop RUN_DIR" >&2; exit 2 ;;
esac
