#!/usr/bin/env bash
# rdmaconf as a user installs it: builds the Debian packages from a build
# folder (cpack), checks their metadata and contents, unpacks them into a
# scratch root, and there, with the source tree and the build folder hidden
# (a private mount namespace with an empty tmpfs over each), runs the
# installed `rdmaconf cases` and `rdmaconf run --reference` and checks that
# the system's tshark loads the plugin from the folder the package put it in.
# docs/install.md describes the installed tree; nothing is installed into
# the system.
#
#   ci/install-check.sh [BUILD_DIR]    (default build/gcc; as root, for the mounts)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd -P)
build=$(cd "${1:-build/gcc}" && pwd -P)

fail() { echo "install-check: $*" >&2; exit 1; }

rm -rf "$build/packages"
(cd "$build" && cpack -G DEB >"$build/cpack.log" 2>&1) || { tail -20 "$build/cpack.log"; fail "cpack failed"; }
tool=$(echo "$build"/packages/rdmaconf_*.deb)
plugin=$(echo "$build"/packages/rdmaconf-wireshark-plugin_*.deb)
[ -f "$tool" ] && [ -f "$plugin" ] || fail "expected rdmaconf_*.deb and rdmaconf-wireshark-plugin_*.deb in $build/packages"

# Metadata: dpkg-shlibdeps found the libraries the binaries link.
depends=$(dpkg-deb -f "$tool" Depends)
for lib in libc6 libstdc++6 libpcap0.8 libisal2; do
  [[ $depends == *"$lib "* ]] || fail "rdmaconf's Depends lacks $lib: $depends"
done
[[ $(dpkg-deb -f "$plugin" Depends) == *libwireshark* ]] || fail "the plugin's Depends lacks libwireshark"

# Contents: what docs/install.md lists.
plugindir=$(pkg-config --variable=plugindir wireshark)/epan
contents=$({ dpkg-deb -c "$tool"; dpkg-deb -c "$plugin"; } | awk '{print $6}')
for path in usr/bin/rdmaconf usr/bin/rdmaconf-agent usr/share/rdmaconf/cases/mpa/ usr/share/rdmaconf/cases/clc/ usr/share/rdmaconf/cases/smcr/ \
            usr/share/man/man1/rdmaconf.1.gz usr/share/man/man1/rdmaconf-run.1.gz usr/share/man/man1/rdmaconf-agent.1.gz \
            usr/share/bash-completion/completions/rdmaconf usr/share/bash-completion/completions/rdmaconf-agent \
            usr/share/doc/rdmaconf/README.md usr/share/doc/rdmaconf/docs/install.md "${plugindir#/}/rdmaconf.so"; do
  grep -qx "\./$path" <<<"$contents" || fail "the packages lack /$path"
done

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$tool" "$root"
dpkg-deb -x "$plugin" "$root"
# No path of the source tree or the build folder is compiled into what is installed.
for f in "$root"/usr/bin/* "$root$plugindir/rdmaconf.so"; do
  if strings "$f" | grep -F -e "$src/" -e "$build/" >/dev/null; then fail "$f names the source tree or build folder"; fi
done

# The installed tree alone: tmpfs over the checkout and the build folder, in
# a mount namespace of its own that ends with this step.
unshare --mount --propagation private -- env -u RDMACONF_CASES bash -s "$root" "$src" "$build" "$plugindir" <<'HIDDEN'
set -euo pipefail
root=$1 src=$2 build=$3 plugindir=$4
cd /
mount -t tmpfs -o size=1m,mode=0755 rdmaconf-hidden "$src"
[[ $build == "$src"/* ]] || mount -t tmpfs -o size=1m,mode=0755 rdmaconf-hidden "$build"
[ ! -e "$src/CMakeLists.txt" ] || { echo "install-check: the source tree is still visible" >&2; exit 1; }
out=$(mktemp -d)
"$root/usr/bin/rdmaconf" --version
"$root/usr/bin/rdmaconf-agent" --version | head -1
"$root/usr/bin/rdmaconf" cases --check
"$root/usr/bin/rdmaconf" cases | tail -1
"$root/usr/bin/rdmaconf" run --reference --json "$out/results.json" --junit "$out/junit.xml" --html "$out/html" |
  tail -1
[ -s "$out/results.json" ] && [ -s "$out/junit.xml" ] && [ -s "$out/html/index.html" ] ||
  { echo "install-check: run --reference wrote no reports" >&2; exit 1; }
rm -rf "$out"
# The package's plugin folder in place of the system's: tshark loads what the
# package installed, from where Debian's Wireshark looks.
if command -v tshark >/dev/null; then
  mount --bind "$root$plugindir" "$plugindir"
  tshark -G plugins 2>/dev/null | grep -F "$plugindir/rdmaconf.so" ||
    { echo "install-check: tshark does not load $plugindir/rdmaconf.so" >&2; exit 1; }
else
  echo "install-check: no tshark; the plugin was not loaded"
fi
HIDDEN
echo "install-check: $(basename "$tool") and $(basename "$plugin") install and run from the installed tree alone"
