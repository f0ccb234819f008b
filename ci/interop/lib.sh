# Shared by the interop scripts (sourced, not run).
# RDMACONF_KERNEL picks the guest's kernel series: 6.1 (Debian 12's default kernel) or 6.12 (the newer
# kernel Debian 12 ships through bookworm-security). Each series has a guest image of its own.
# RDMACONF_VM_DIR holds everything large of the 6.1 guest: its image, its kernel, the run folders;
# the 6.12 guest's lives beside it, in the same path with "-6.12" appended.
KERNEL="${RDMACONF_KERNEL:-6.1}"
vm_base="${RDMACONF_VM_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/rdmaconf/interop-vm}"
case "$KERNEL" in
  6.1) VM_DIR="$vm_base" ;;
  6.12) VM_DIR="$vm_base-6.12" ;;
  *) printf 'RDMACONF_KERNEL=%s: the interop guest is built for 6.1 or 6.12\n' "$KERNEL" >&2; exit 2 ;;
esac

log() { printf '[interop %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# debian_mirror SUITE: the URI the host's own apt configuration uses for SUITE (deb822 .sources first,
# then one-line sources.list), so that no mirror is ever written into the project.
debian_mirror() {
  local suite=$1 f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk -v suite="$suite" '
      /^[[:space:]]*$/ { u = ""; s = 0; next }
      /^URIs:/ { u = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) s = 1 }
      u != "" && s == 1 { print u; exit }' "$f"
  done | head -1 | grep . && return 0
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    awk -v suite="$suite" '$1 == "deb" { i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++; if ($i ~ /^\[/ || $i ~ /\]$/) i++
                                         if ($(i + 1) == suite) { print $i; exit } }' "$f"
  done | head -1
}
