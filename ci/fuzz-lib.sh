# Helpers the fuzzing scripts share (sourced by ci/fuzz-*.sh).

# The first number after "<key>: " in a libFuzzer status or verdict line
# ($3, or 0, when there is none).
first() { grep -oE "$1: [0-9]+" <<<"$2" | head -1 | grep -oE '[0-9]+$' || echo "${3:-0}"; }
# 1234567 -> 1,234,567
thousands() { sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta' <<<"$1"; }
# The files of a folder, and their octets in KB (rounded up).
files() { find "$1" -type f 2>/dev/null | wc -l; }
kb() { find "$1" -type f -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { printf "%d", (s + 999) / 1000 }'; }
# run_all JOBS FUNCTION TARGET...: FUNCTION TARGET for every target, JOBS at
# a time (each fuzzer uses one core); returns when all have finished.
run_all() {
  local jobs=$1 fn=$2 running=0
  shift 2
  for t in "$@"; do
    if [ "$running" -ge "$jobs" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    "$fn" "$t" &
    running=$((running + 1))
  done
  wait || true
}
