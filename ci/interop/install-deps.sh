#!/usr/bin/env bash
# Installs the host packages the live interop run needs on top of ci/install-deps.sh:
# qemu (the guest), debootstrap and e2fsprogs (the guest image), and the BPF toolchain
# that builds the sock_ops program writing the SMC TCP option (clang -target bpf, libbpf headers).
# Non-interactive and idempotent: nothing is fetched when every package is present.
set -euo pipefail

packages=(
  qemu-system-x86 qemu-utils
  debootstrap debian-archive-keyring e2fsprogs
  # merging the two passes' reports
  jq
  # per-connection relay from a guestfwd address to the tester's listener on host loopback
  socat
  clang llvm libbpf-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "interop/install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "interop/install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
