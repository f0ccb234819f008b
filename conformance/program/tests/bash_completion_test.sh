#!/usr/bin/env bash
# The bash completions that `--bash-completion` prints, loaded into bash with
# bash-completion's helpers and asked as bash asks them on TAB: every
# subcommand and every option that the programs' --help lists (an
# independent reading of the same CLI11 definitions), values CLI11 knows, and
# option values skipped when finding the subcommand.
#   bash_completion_test.sh RDMACONF RDMACONF_AGENT BASH_COMPLETION_SCRIPT
rdmaconf=$(realpath "$1") agent=$(realpath "$2") helpers=$3

# shellcheck source=/dev/null
source "$helpers" || exit 1
eval "$("$rdmaconf" --bash-completion)" || exit 1
eval "$("$agent" --bash-completion)" || exit 1
rdmaconf() { "$rdmaconf" "$@"; }
rdmaconf-agent() { "$agent" "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir folder && touch file

# The words offered for the last word of LINE (an empty word when LINE ends
# in a space), sorted, on one line.
offered() {
  local line=$1 function
  COMP_LINE=$line
  COMP_POINT=${#line}
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  function=$(complete -p "${COMP_WORDS[0]}" | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
  "$function" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' '
}

# What --help lists: option names of the "Options:" block, subcommands of
# the "Subcommands:" block.
help_options() { "$@" --help | sed -n 's/^  \(-[^ ]*\).*/\1/p' | tr ',' '\n' | sort | tr '\n' ' '; }
help_subcommands() { "$@" --help | sed -n '/^Subcommands:/,$s/^  \([a-z][a-z0-9-]*\) .*/\1/p' | sort | tr '\n' ' '; }

failures=0
expect() {  # LINE EXPECTED
  local got
  got=$(offered "$1")
  if [ "$got" != "$2" ]; then
    echo "FAIL: '$1' offers '$got', expected '$2'"
    failures=$((failures + 1))
  fi
}

subcommands=$(help_subcommands rdmaconf)
[ -n "$subcommands" ] || { echo "FAIL: no subcommands in rdmaconf --help"; exit 1; }
expect "rdmaconf " "$subcommands"
expect "rdmaconf -" "$(help_options rdmaconf)"
for sub in $subcommands; do
  expect "rdmaconf $sub -" "$(help_options rdmaconf "$sub")"
done
expect "rdmaconf-agent -" "$(help_options rdmaconf-agent)"

# Values CLI11 knows (IsMember), numbers (nothing), files.
expect "rdmaconf-agent --backend " "rdma-core reference "
expect "rdmaconf run --iut-lacks at" "atomics "
expect "rdmaconf loopback --rev " "1 2 "
expect "rdmaconf run --jobs " ""
expect "rdmaconf report " "file folder "
# The value after an option is not taken for a subcommand or an option.
expect "rdmaconf run --cases-dir run --refer" "--reference "
expect "rdmaconf run --jobs 4 --time" "--time-scale "
expect "rdmaconf run --suite=mpa --refer" "--reference "

echo "$failures failure(s); $(wc -w <<<"$subcommands") subcommands checked"
[ "$failures" -eq 0 ]
