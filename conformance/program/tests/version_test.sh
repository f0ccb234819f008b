#!/usr/bin/env bash
# `--version` of both programs names the project's version and the commit the
# build was made from (build_info.hpp): the checkout's HEAD when the source
# tree is a git checkout, RDMACONF_COMMIT when that was set, else "unknown".
#   version_test.sh RDMACONF RDMACONF_AGENT VERSION SOURCE_DIR FIXED_COMMIT
set -euo pipefail
rdmaconf=$1 agent=$2 version=$3 src=$4 fixed=${5:-}

expected=unknown
if [ -n "$fixed" ]; then
  expected=$fixed
elif top=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) && [ "$(cd "$top" && pwd -P)" = "$(cd "$src" && pwd -P)" ]; then
  expected=$(git -C "$src" rev-parse HEAD)
fi

status=0
for program in "$rdmaconf" "$agent"; do
  name=$(basename "$program")
  out=$("$program" --version)
  first=$(sed -n 1p <<<"$out")
  commit=$(sed -n 's/^commit //p' <<<"$out")
  if [ "$first" != "$name $version" ]; then
    echo "FAIL: $name --version: first line '$first', expected '$name $version'"
    status=1
  fi
  # -dirty: tracked files differed from HEAD when the program was built.
  if [ "${commit%-dirty}" != "$expected" ]; then
    echo "FAIL: $name --version: commit '$commit', expected '$expected' (rebuild after a commit)"
    status=1
  fi
  echo "$name: $first, commit $commit"
done
exit $status
