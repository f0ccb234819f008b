#!/usr/bin/env bash
# Builds the Debian 12 guest that the live interop run boots: debootstrap, Debian's kernel, rdma-core,
# and the soft-iWARP driver (siw) built out of tree from Debian's own linux-source of the guest kernel's
# exact version, unmodified (Debian's kernel config leaves CONFIG_RDMA_SIW unset, so Debian ships no siw.ko).
#
# RDMACONF_KERNEL=6.1 (default) or 6.12 picks the kernel: 6.1 is Debian 12's linux-image-amd64; 6.12
# is linux-image-6.12-amd64 from bookworm-security. For 6.12 the SMC modules (smc, smc_diag) are built
# from the same source too, with one switch set that Debian's config leaves unset: CONFIG_SMC_LO, the
# software ISM device "loopback-ism" that SMC-D v2 runs over within one kernel.
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
case "$KERNEL" in
  6.1) kernel_package=linux-image-amd64; suites=(bookworm); smc_lo=0 ;;
  6.12) kernel_package=linux-image-6.12-amd64; suites=(bookworm bookworm-security); smc_lo=1 ;;
esac
rootfs="$VM_DIR/rootfs"
img="$VM_DIR/rootfs.img"
stamps="$VM_DIR/.stamps"
times="$VM_DIR/build-times.txt"

# What the guest runs: the kernel and an init that runs our service; rdma-core's tools (rping for the
# replay proof, rdma for `rdma link add`); the runtime libraries of rdmaconf and rdmaconf-agent as
# built on a Debian 12 host (verbs, rdma_cm, providers, ISA-L, libpcap, usrsctp, libstdc++, SQLite: the
# dashboard's store is linked into rdmaconf and the tester runs in the guest); tcpdump for the
# capture that `rdmaconf analyze` reads; bpftool to attach the sock_ops program of the SMC run.
guest_packages=(
  "$kernel_package" initramfs-tools systemd-sysv udev kmod iproute2 procps
  rdma-core ibverbs-providers ibverbs-utils rdmacm-utils libibverbs1 librdmacm1 libisal2 libpcap0.8 libusrsctp2
  libstdc++6 libsqlite3-0 tcpdump ethtool bpftool
)

[ "$(id -u)" = 0 ] || die "build-image.sh must run as root (debootstrap, chroot)"
mirrors=()
for s in "${suites[@]}"; do
  m="$(debian_mirror "$s")"
  [ -n "$m" ] || die "no apt source for suite $s found in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"
  mirrors+=("$m")
done
mirror="${mirrors[0]}"
mirror_hosts="$(printf '%s\n' "${mirrors[@]}" | sed -E 's#^[a-z]+://##; s#/.*##' | sort -u)"

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
apt_open() {
  local i
  for i in "${!suites[@]}"; do printf 'deb %s %s main\n' "${mirrors[$i]}" "${suites[$i]}"; done > "$rootfs/etc/apt/sources.list"
}
apt_close() {
  : > "$rootfs/etc/apt/sources.list"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs/var/log/bootstrap.log"
}
# The logs stay outside the repository, but they still should not carry the mirror's host name around.
scrub_logs() {
  local h
  for h in $mirror_hosts; do sed -i "s#$h#MIRROR#g" "$VM_DIR"/*.log 2>/dev/null; done
  return 0
}
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

# --- stage 3: siw.ko (and for 6.12 smc.ko with loopback-ism) from the guest kernel's own source ----
# linux-source-$KERNEL and linux-headers-$kver are pinned to the installed kernel's package version, so
# the modules match the kernel they load into. siw is built as shipped: no patch, no parameter added.
# smc (6.12 only) is built from the same tree with CONFIG_SMC_LO switched on and nothing else changed:
# Kbuild takes smc_loopback.o from the make variable, and the C code, which tests the kernel's
# generated configuration, gets the same switch as -DCONFIG_SMC_LO=1 (KCFLAGS). BTF is skipped
# (CONFIG_DEBUG_INFO_BTF_MODULES=): Debian's headers carry no vmlinux to base it on.
want_stamps=("siw-$kver")
[ "$smc_lo" = 1 ] && want_stamps+=("smc-lo-$kver")
need_modules=0
for st in "${want_stamps[@]}"; do [ -e "$stamps/$st" ] || need_modules=1; done
if [ "$need_modules" = 1 ]; then
  log "stage 3: siw.ko$([ "$smc_lo" = 1 ] && echo ' and smc.ko (CONFIG_SMC_LO)') for $kver from linux-source"
  t0=$SECONDS
  chroot_mount
  apt_open
  kpkg="$(in_chroot dpkg-query -W -f='${Version}' "linux-image-$kver")"
  src="linux-source-$KERNEL"
  in_chroot apt-get update -qq
  in_chroot apt-get install -y -q --no-install-recommends make gcc libc6-dev xz-utils \
    "linux-headers-$kver=$kpkg" "$src=$kpkg" > "$VM_DIR/apt-siw.log" 2>&1 \
    || { tail -30 "$VM_DIR/apt-siw.log"; die "installing linux-source / linux-headers $kpkg failed"; }
  rm -rf "$rootfs/usr/src/siw-build"
  mkdir -p "$rootfs/usr/src/siw-build"
  tar -xJf "$rootfs/usr/src/$src.tar.xz" -C "$rootfs/usr/src/siw-build" --strip-components=5 \
    "$src/drivers/infiniband/sw/siw"
  # Keep siw's source beside the image: docs/interop.md cites it when explaining what siw sends.
  rm -rf "$VM_DIR/siw-src"; cp -a "$rootfs/usr/src/siw-build" "$VM_DIR/siw-src"
  in_chroot make -C "/lib/modules/$kver/build" M=/usr/src/siw-build CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= \
    modules > "$VM_DIR/siw-build.log" 2>&1 || { tail -30 "$VM_DIR/siw-build.log"; die "building siw.ko failed"; }
  install -D -m 0644 "$rootfs/usr/src/siw-build/siw.ko" "$rootfs/lib/modules/$kver/updates/siw.ko"
  if [ "$smc_lo" = 1 ]; then
    rm -rf "$rootfs/usr/src/smc-build"
    mkdir -p "$rootfs/usr/src/smc-build"
    tar -xJf "$rootfs/usr/src/$src.tar.xz" -C "$rootfs/usr/src/smc-build" --strip-components=3 "$src/net/smc"
    rm -rf "$VM_DIR/smc-src"; cp -a "$rootfs/usr/src/smc-build" "$VM_DIR/smc-src"
    # smc_diag too: it links against smc's exported symbols, so it must come from the same build.
    in_chroot make -C "/lib/modules/$kver/build" M=/usr/src/smc-build CONFIG_SMC=m CONFIG_SMC_DIAG=m CONFIG_SMC_LO=y \
      KCFLAGS=-DCONFIG_SMC_LO=1 CONFIG_DEBUG_INFO_BTF_MODULES= modules > "$VM_DIR/smc-build.log" 2>&1 \
      || { tail -30 "$VM_DIR/smc-build.log"; die "building smc.ko failed"; }
    grep -q smc_loopback "$VM_DIR/smc-build.log" || die "smc.ko was built without smc_loopback.o (see smc-build.log)"
    for m in smc smc_diag; do
      install -D -m 0644 "$rootfs/usr/src/smc-build/$m.ko" "$rootfs/lib/modules/$kver/updates/$m.ko"
    done
    rm -rf "$rootfs/usr/src/smc-build"
  fi
  in_chroot depmod -a "$kver"
  in_chroot apt-get purge -y -q "$src" "linux-headers-$kver" > /dev/null 2>&1 || true
  in_chroot apt-get autoremove -y -q > /dev/null 2>&1 || true
  in_chroot apt-get clean
  rm -rf "$rootfs/usr/src/siw-build"
  apt_close
  chroot_umount
  echo "$kpkg" > "$VM_DIR/kernel-package-version.txt"
  stage_time "kernel modules" $((SECONDS - t0))
  for st in "${want_stamps[@]}"; do touch "$stamps/$st"; done
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
