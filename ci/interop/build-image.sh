#!/usr/bin/env bash
# Builds the Debian 12 guest that the live interop run boots: debootstrap, Debian's kernel, rdma-core,
# and the soft-iWARP driver (siw) built out of tree from Debian's own linux-source of the guest kernel's
# exact version, unmodified (Debian's kernel config leaves CONFIG_RDMA_SIW unset, so Debian ships no siw.ko).
#
# Everything lands in $RDMACONF_VM_DIR (never in the repository):
#   rootfs/      the debootstrap tree, kept so that re-runs only do what is missing
#   rootfs.img   raw ext4 image, attached read-only to qemu (snapshot=on)
#   vmlinuz, initrd.img, kernel-version.txt
#   build-times.txt (seconds per stage), *.log
# Each stage leaves a stamp in $RDMACONF_VM_DIR/.stamps; FORCE=1 starts from scratch.
#
# Packages come from Debian only. The mirror is read at run time from the host's apt sources, and the
# guest keeps no apt source behind (its sources.list is written only while apt runs in the chroot).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/lib.sh"

suite=bookworm
rootfs="$VM_DIR/rootfs"
img="$VM_DIR/rootfs.img"
stamps="$VM_DIR/.stamps"
times="$VM_DIR/build-times.txt"

# What the guest runs: the kernel and an init that runs our service; rdma-core's tools (rping for the
# replay proof, rdma for `rdma link add`); the runtime libraries of rdmaconf and rdmaconf-agent as
# built on a Debian 12 host (verbs, rdma_cm, providers, ISA-L, libpcap, libstdc++, SQLite: the
# dashboard's store is linked into rdmaconf and the tester runs in the guest); tcpdump for the
# capture that `rdmaconf analyze` reads; bpftool to attach the sock_ops program of the SMC run.
guest_packages=(
  linux-image-amd64 initramfs-tools systemd-sysv udev kmod iproute2 procps
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils libibverbs1 librdmacm1 libisal2 libpcap0.8
  libstdc++6 libsqlite3-0 tcpdump ethtool bpftool
)

[ "$(id -u)" = 0 ] || die "build-image.sh must run as root (debootstrap, chroot)"
mirror="$(debian_mirror "$suite")"
[ -n "$mirror" ] || die "no apt source for suite $suite found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
mirror_host="$(printf '%s' "$mirror" | sed -E 's#^[a-z]+://##; s#/.*##')"

if [ "${FORCE:-0}" = 1 ]; then rm -rf "$rootfs" "$img" "$stamps"; fi
mkdir -p "$VM_DIR" "$stamps"
stage_time() { printf '%-34s %5s s\n' "$1" "$2" >> "$times"; }

# --- chroot plumbing -------------------------------------------------------------------------
mounted=()
chroot_mount() {
  local m
  for m in proc sys dev dev/pts; do
    mountpoint -q "$rootfs/$m" && continue
    case $m in
      proc) mount -t proc proc "$rootfs/proc" ;;
      sys) mount -t sysfs sys "$rootfs/sys" ;;
      dev) mount --bind /dev "$rootfs/dev" ;;
      dev/pts) mount -t devpts devpts "$rootfs/dev/pts" ;;
    esac
    mounted=("$rootfs/$m" "${mounted[@]}")
  done
}
chroot_umount() {
  local m
  for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done
  mounted=()
}
in_chroot() {
  chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    LANG=C.UTF-8 HOME=/root "$@"
}
apt_open() { printf 'deb %s %s main\n' "$mirror" "$suite" > "$rootfs/etc/apt/sources.list"; }
apt_close() {
  : > "$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs/var/log/bootstrap.log"
}
# The logs stay outside the repository, but they still should not carry the mirror's host name around.
scrub_logs() { [ -n "$mirror_host" ] && sed -i "s#$mirror_host#MIRROR#g" "$VM_DIR"/*.log 2>/dev/null; return 0; }
trap 'chroot_umount; scrub_logs' EXIT

# --- stage 1: debootstrap --------------------------------------------------------------------
if [ ! -e "$stamps/debootstrap" ]; then
  log "stage 1: debootstrap --variant=minbase $suite"
  t0=$SECONDS
  rm -rf "$rootfs"
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    "$suite" "$rootfs" "$mirror" > "$VM_DIR/debootstrap.log" 2>&1 \
    || { tail -20 "$VM_DIR/debootstrap.log"; die "debootstrap failed"; }
  stage_time debootstrap $((SECONDS - t0))
  touch "$stamps/debootstrap"
fi

# --- stage 2: guest packages (whatever is still missing) -------------------------------------
missing=()
for p in "${guest_packages[@]}"; do
  chroot "$rootfs" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "stage 2: guest packages: ${missing[*]}"
  t0=$SECONDS
  chroot_mount
  apt_open
  # nothing may start inside the build chroot
  printf '#!/bin/sh\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"; chmod +x "$rootfs/usr/sbin/policy-rc.d"
  # the initrd must find the virtio disk; 9p carries the run folder and the binaries
  mkdir -p "$rootfs/etc/initramfs-tools"
  printf '%s\n' virtio_pci virtio_blk virtio_net ext4 9p 9pnet_virtio > "$rootfs/etc/initramfs-tools/modules"
  in_chroot apt-get update -qq
  in_chroot apt-get install -y -q --no-install-recommends "${missing[@]}" > "$VM_DIR/apt-guest.log" 2>&1 \
    || { tail -30 "$VM_DIR/apt-guest.log"; die "apt-get install in the chroot failed"; }
  in_chroot apt-get clean
  rm -f "$rootfs/usr/sbin/policy-rc.d"
  apt_close
  chroot_umount
  stage_time "packages (${#missing[@]})" $((SECONDS - t0))
  rm -f "$stamps"/initrd-*
fi

kver="$(ls "$rootfs/lib/modules" | sort -V | tail -1)"
[ -n "$kver" ] || die "no kernel in the rootfs"

# --- stage 3: siw.ko, stock, from the guest kernel's own source -------------------------------
# linux-source-6.1 and linux-headers-$kver are pinned to the installed kernel's package version, so the
# module matches the kernel it loads into. The source is used as shipped: no patch, no parameter added.
if [ ! -e "$stamps/siw-$kver" ]; then
  log "stage 3: siw.ko for $kver from linux-source (unmodified)"
  t0=$SECONDS
  chroot_mount
  apt_open
  kpkg="$(in_chroot dpkg-query -W -f='${Version}' "linux-image-$kver")"
  in_chroot apt-get update -qq
  in_chroot apt-get install -y -q --no-install-recommends make gcc libc6-dev xz-utils \
    "linux-headers-$kver=$kpkg" "linux-source-6.1=$kpkg" > "$VM_DIR/apt-siw.log" 2>&1 \
    || { tail -30 "$VM_DIR/apt-siw.log"; die "installing linux-source / linux-headers $kpkg failed"; }
  rm -rf "$rootfs/usr/src/siw-build"
  mkdir -p "$rootfs/usr/src/siw-build"
  tar -xJf "$rootfs/usr/src/linux-source-6.1.tar.xz" -C "$rootfs/usr/src/siw-build" --strip-components=5 \
    linux-source-6.1/drivers/infiniband/sw/siw
  # Keep siw's source beside the image: docs/interop.md cites it when explaining what siw sends.
  rm -rf "$VM_DIR/siw-src"; cp -a "$rootfs/usr/src/siw-build" "$VM_DIR/siw-src"
  in_chroot make -C "/lib/modules/$kver/build" M=/usr/src/siw-build CONFIG_RDMA_SIW=m modules \
    > "$VM_DIR/siw-build.log" 2>&1 || { tail -30 "$VM_DIR/siw-build.log"; die "building siw.ko failed"; }
  install -D -m 0644 "$rootfs/usr/src/siw-build/siw.ko" "$rootfs/lib/modules/$kver/updates/siw.ko"
  in_chroot depmod -a "$kver"
  in_chroot apt-get purge -y -q linux-source-6.1 "linux-headers-$kver" > /dev/null 2>&1 || true
  in_chroot apt-get autoremove -y -q > /dev/null 2>&1 || true
  in_chroot apt-get clean
  rm -rf "$rootfs/usr/src/siw-build"
  apt_close
  chroot_umount
  echo "$kpkg" > "$VM_DIR/kernel-package-version.txt"
  stage_time "siw.ko" $((SECONDS - t0))
  touch "$stamps/siw-$kver"
fi

# --- stage 4: guest configuration (files rewritten only when their content changes) -----------
put_file() {  # put_file PATH MODE < content
  local tmp; tmp="$(mktemp)"; cat > "$tmp"
  if ! cmp -s "$tmp" "$rootfs$1"; then
    mkdir -p "$(dirname "$rootfs$1")"; install -m "$2" "$tmp" "$rootfs$1"; log "  updated $1"
  fi
  rm -f "$tmp"
}
put_link() {  # put_link TARGET LINK
  if [ "$(readlink "$rootfs$2" 2>/dev/null)" != "$1" ]; then
    mkdir -p "$(dirname "$rootfs$2")"; ln -sfn "$1" "$rootfs$2"; log "  linked $2"
  fi
}
# A small initrd: only the modules the boot needs (virtio disk, ext4, 9p), not every driver Debian
# ships, which TCG would spend minutes packing and unpacking. A change re-makes the initrd.
printf 'MODULES=list\nCOMPRESS=gzip\n' > "$VM_DIR/initramfs.conf.new"
if ! cmp -s "$VM_DIR/initramfs.conf.new" "$rootfs/etc/initramfs-tools/conf.d/rdmaconf.conf"; then
  install -D -m 0644 "$VM_DIR/initramfs.conf.new" "$rootfs/etc/initramfs-tools/conf.d/rdmaconf.conf"
  rm -f "$stamps"/initrd-*
fi
rm -f "$VM_DIR/initramfs.conf.new"
echo rdmaconf-guest | put_file /etc/hostname 0644
printf '127.0.0.1 localhost\n127.0.1.1 rdmaconf-guest\n' | put_file /etc/hosts 0644
printf '/dev/vda / ext4 rw,relatime 0 1\n' | put_file /etc/fstab 0644
put_file /usr/local/sbin/rdmaconf-guest 0755 < "$here/guest/rdmaconf-guest"
put_file /etc/systemd/system/rdmaconf-guest.service 0644 < "$here/guest/rdmaconf-guest.service"
put_link /etc/systemd/system/rdmaconf-guest.service \
  /etc/systemd/system/multi-user.target.wants/rdmaconf-guest.service
# units that only slow a TCG boot down; rdma-core's udev hooks would load every upper-layer RDMA
# module (iSER, NFS over RDMA, SRP, ...) when siw appears, and start iwpmd/rdma-ndd: the run needs none
for u in systemd-timesyncd.service apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer \
         getty@tty1.service serial-getty@ttyS0.service systemd-networkd.service \
         rdma-load-modules@.service rdma-ndd.service iwpmd.service; do
  put_link /dev/null "/etc/systemd/system/$u"
done

# --- stage 5: kernel and initrd for qemu -kernel / -initrd ------------------------------------
if [ ! -e "$stamps/initrd-$kver" ]; then
  log "stage 5: update-initramfs for $kver"
  t0=$SECONDS
  chroot_mount
  in_chroot update-initramfs -u -k "$kver" > "$VM_DIR/initramfs.log" 2>&1 \
    || { tail -20 "$VM_DIR/initramfs.log"; die "update-initramfs failed"; }
  chroot_umount
  stage_time "initramfs" $((SECONDS - t0))
  touch "$stamps/initrd-$kver"
fi
cp -f "$rootfs/boot/vmlinuz-$kver" "$VM_DIR/vmlinuz"
cp -f "$rootfs/boot/initrd.img-$kver" "$VM_DIR/initrd.img"
echo "$kver" > "$VM_DIR/kernel-version.txt"

# --- stage 6: the ext4 image, re-made when anything in the tree is newer ------------------------
chroot_umount
newer=""
[ -e "$img" ] && newer="$(find "$stamps" "$rootfs/etc" "$rootfs/usr/local" "$rootfs/lib/modules" -newer "$img" -print -quit 2>/dev/null || true)"
if [ ! -e "$img" ] || [ -n "$newer" ]; then
  log "stage 6: mke2fs -d rootfs -> rootfs.img"
  t0=$SECONDS
  rm -f "$img.tmp"
  mke2fs -q -F -t ext4 -L rdmaconf-guest -d "$rootfs" "$img.tmp" 3G
  mv -f "$img.tmp" "$img"
  stage_time "ext4 image" $((SECONDS - t0))
else
  log "stage 6: rootfs.img is up to date"
fi
log "guest ready: kernel $kver, $(du -h "$img" | cut -f1) used in $img"
