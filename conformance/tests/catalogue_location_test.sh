#!/usr/bin/env bash
# Where rdmaconf finds its catalogue (engine/catalogue_location.hpp), tried
# with the program itself placed in scratch layouts: --cases-dir, else
# $RDMACONF_CASES, else <prefix>/share/rdmaconf/cases beside <prefix>/bin,
# else the build tree's share/ (the program as built); with none of them, an
# error naming every place it looked.
#   catalogue_location_test.sh RDMACONF SOURCE_CATALOGUE
set -euo pipefail
rdmaconf=$1 catalogue=$2
unset RDMACONF_CASES

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
# The program in a layout: a hard link where the file system allows (so that
# /proc/self/exe names the link), else a copy.
place() { mkdir -p "$(dirname "$1")" && { ln "$rdmaconf" "$1" 2>/dev/null || cp "$rdmaconf" "$1"; }; }
place "$t/prefix/bin/rdmaconf"
place "$t/bare/bin/rdmaconf"
# Two small catalogues with different cases: the installed one and $RDMACONF_CASES's.
mapfile -t scripts < <(find "$catalogue/mpa" -name '*.case' | sort | head -2)
mkdir -p "$t/prefix/share/rdmaconf/cases/mpa" "$t/env/mpa"
cp "${scripts[0]}" "$t/prefix/share/rdmaconf/cases/mpa/"
cp "${scripts[1]}" "$t/env/mpa/"

failures=0
same() {  # WHAT GOT EXPECTED
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"
    diff <(echo "$3") <(echo "$2") | head -5
    failures=$((failures + 1))
  fi
}
installed=$("$rdmaconf" cases --cases-dir "$t/prefix/share/rdmaconf/cases")
from_env=$("$rdmaconf" cases --cases-dir "$t/env")
[ "$installed" != "$from_env" ] || { echo "FAIL: the two scratch catalogues list the same cases"; exit 1; }

same "installed layout: <prefix>/bin/rdmaconf reads <prefix>/share/rdmaconf/cases" \
  "$("$t/prefix/bin/rdmaconf" cases)" "$installed"
same "\$RDMACONF_CASES comes before the installed catalogue" \
  "$(RDMACONF_CASES="$t/env" "$t/prefix/bin/rdmaconf" cases)" "$from_env"
same "--cases-dir comes before \$RDMACONF_CASES" \
  "$(RDMACONF_CASES="$t/env" "$t/prefix/bin/rdmaconf" cases --cases-dir "$t/prefix/share/rdmaconf/cases")" "$installed"
same "the program in the build tree reads the build tree's share/rdmaconf/cases (the source catalogue)" \
  "$("$rdmaconf" cases)" "$("$rdmaconf" cases --cases-dir "$catalogue")"

# No catalogue anywhere: exit 2, and the error names where it looked.
set +e
err=$("$t/bare/bin/rdmaconf" cases 2>&1 >/dev/null)
code=$?
set -e
same "no catalogue: exit code" "$code" 2
for looked in "RDMACONF_CASES" "$t/bare/share/rdmaconf/cases" "--cases-dir"; do
  [[ $err == *"$looked"* ]] || { echo "FAIL: the error does not name $looked: $err"; failures=$((failures + 1)); }
done
# $RDMACONF_CASES naming no folder is used as it is, and named in the error.
set +e
err=$(RDMACONF_CASES="$t/missing" "$t/prefix/bin/rdmaconf" cases 2>&1 >/dev/null)
code=$?
set -e
same "\$RDMACONF_CASES without a folder: exit code" "$code" 2
[[ $err == *"$t/missing"* ]] || { echo "FAIL: the error does not name $t/missing: $err"; failures=$((failures + 1)); }

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
