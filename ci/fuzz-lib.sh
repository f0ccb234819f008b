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
# The plain throughput build (-fsanitize=fuzzer only, -O3 Release) of the
# given targets in FUZZ_BUILD_DIR. FUZZ_CC/FUZZ_CXX pick the fuzzing compiler
# (default clang/clang++, the project's clang 14; e.g. clang-19/clang++-19,
# whose libFuzzer is newer); without FUZZ_BUILD_DIR another compiler builds in
# build/fuzz-release-<FUZZ_CXX>, so the two builds sit side by side.
# FUZZ_BUILD_JOBS: the build's parallel jobs (default: the cores).
fuzz_cc=${FUZZ_CC:-clang}
fuzz_cxx=${FUZZ_CXX:-clang++}
if [ "$fuzz_cxx" = clang++ ]; then
  fuzz_plain_dir=${FUZZ_BUILD_DIR:-build/fuzz-release}
else
  fuzz_plain_dir=${FUZZ_BUILD_DIR:-build/fuzz-release-$(basename "$fuzz_cxx")}
fi
plain_build() {  # TARGET... (cmake targets)
  local flags="-fsanitize=fuzzer-no-link"
  cmake -S . -B "$fuzz_plain_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$fuzz_cc" -DCMAKE_CXX_COMPILER="$fuzz_cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DRDMACONF_FUZZ=ON -DRDMACONF_BUILD_TESTS=OFF -DRDMACONF_BUILD_BENCHMARKS=OFF >/dev/null
  cmake --build "$fuzz_plain_dir" -j "${FUZZ_BUILD_JOBS:-$(nproc)}" --target "$@" >/dev/null
}
