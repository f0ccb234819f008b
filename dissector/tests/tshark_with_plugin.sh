#!/usr/bin/env bash
# Runs tshark with the rdmaconf plugin loaded from a private plugin folder.
#
#   tshark_with_plugin.sh PLUGIN.so ABI [tshark arguments...]
#
# tshark loads personal plugins from $HOME/.local/lib/wireshark/plugins/<ABI>/epan,
# but a tshark started as root ignores that folder (and WIRESHARK_PLUGIN_DIR).
# CI runs as root, so as root this script drops to the unprivileged user
# `nobody` (setpriv) with HOME set to a fresh, world-readable temporary folder
# that holds only this plugin. Files tshark reads must be readable by nobody.
set -euo pipefail

plugin=$1
abi=$2
shift 2

home=$(mktemp -d "${TMPDIR:-/tmp}/rdmaconf-tshark.XXXXXX")
trap 'rm -rf "$home"' EXIT
mkdir -p "$home/.local/lib/wireshark/plugins/$abi/epan"
cp "$plugin" "$home/.local/lib/wireshark/plugins/$abi/epan/"
chmod -R a+rX "$home"

if [ "$(id -u)" -eq 0 ]; then
  cd "$home"
  exec_prefix=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$home" XDG_CONFIG_HOME="$home/.config")
else
  exec_prefix=(env HOME="$home" XDG_CONFIG_HOME="$home/.config")
fi
"${exec_prefix[@]}" tshark "$@"
