#!/usr/bin/env bash
# The test command: installs what is missing, builds rdmaconf warning-free with
# g++ 12 and clang 14 (warnings are errors), and runs every test with ctest.
# Exits non-zero when any step or any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's line says when it began (seconds since the start); the last
# line gives every stage's seconds, the figures of docs/performance.md "CI".
stages=()
stage_mark() { stages+=("$1=$SECONDS"); echo "== [${SECONDS}s] $2"; }
stage_times() {
  local prev="" from=0 out="" name at
  for s in "${stages[@]}" "end=$SECONDS"; do
    name=${s%=*} at=${s##*=}
    [ -n "$prev" ] && out+=" $prev $((at - from))s;"
    prev=$name from=$at
  done
  echo "== stage seconds:${out%;} (total ${SECONDS}s)"
}

stage_mark deps "packages (ci/install-deps.sh)"
bash ci/install-deps.sh

jobs=$(nproc)

stage_mark g++ "build (g++, -Werror)"
cmake -S . -B build/gcc -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMACONF_WERROR=ON \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
cmake --build build/gcc -j "$jobs"

# The clang stage is there for clang's diagnostics, which come from its front
# end: every translation unit of the configured build goes through it with
# -fsyntax-only (ci/syntax-only.sh as the compiler launcher, ninja asked for
# the object files only), so nothing is generated or linked. The OSS-Fuzz
# stage below compiles and links with clang too (docs/performance.md, "CI").
stage_mark clang "front end (clang, -Werror, -fsyntax-only)"
cmake -S . -B build/clang -G Ninja -DCMAKE_BUILD_TYPE=Debug -DRDMACONF_WERROR=ON \
  -DCMAKE_C_FLAGS_DEBUG=-O0 -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_COMPILER_LAUNCHER="$PWD/ci/syntax-only.sh" -DCMAKE_CXX_COMPILER_LAUNCHER="$PWD/ci/syntax-only.sh" \
  -DCMAKE_C_LINKER_LAUNCHER="$PWD/ci/syntax-only.sh" -DCMAKE_CXX_LINKER_LAUNCHER="$PWD/ci/syntax-only.sh"
mapfile -t objects < <(ninja -C build/clang -t targets all | awk -F': ' '$2 ~ /^(C|CXX)_COMPILER/ {print $1}')
[ "${#objects[@]}" -gt 0 ] || { echo "no object files in build/clang's graph" >&2; exit 1; }
ninja -C build/clang -j "$jobs" "${objects[@]}"

# The tests' scratch files go to a folder of this run's own (TMPDIR, which
# GoogleTest's TempDir(), std::filesystem::temp_directory_path, mktemp and
# Python's tempfile all take): a test that names its files (crafted-*.pcapng,
# clc.pcapng) cannot meet another run's on the same machine, and nothing is
# left behind. Kept, and named, when a test fails. Open to every user as
# /tmp is (sticky): the dissector tests run tshark as nobody when run as root.
stage_mark ctest "tests"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/rdmaconf-tests.XXXXXX")
chmod 1777 "$scratch"
if ! TMPDIR=$scratch ctest --test-dir build/gcc --output-on-failure -j "$jobs" --timeout 300; then
  echo "the tests' scratch files are kept in $scratch" >&2
  exit 1
fi
rm -rf "$scratch"

# The g++ build as a user installs it: its Debian packages unpacked into a
# scratch root and run from there with the checkout hidden (docs/install.md,
# "The check in CI"); 16-25 s here beside other builds, 10 s of it CPU.
stage_mark install-check "installed packages (ci/install-check.sh)"
bash ci/install-check.sh build/gcc

# The registry traced to the RFC texts: every normative sentence of the
# listed RFCs accounted for (docs/requirements.md, "Traceability"). The
# texts are not part of the project; CI finds them beside the clone.
# The RFCs whose trace is complete (all the registry covers).
traced_rfcs="5044 6581 5041 5040 7306 5042 5043 7609"
rfc_dir=../shared/rfc
stage_mark requirements "requirements traced to the RFC texts (RFC ${traced_rfcs// /, })"
if [ -d "$rfc_dir" ]; then
  rfc_args=()
  for n in $traced_rfcs; do rfc_args+=(--rfc "$n"); done
  ./build/gcc/conformance/cli/rdmaconf requirements --rfc-dir "$rfc_dir" "${rfc_args[@]}"
else
  echo "skipped: no RFC texts at $rfc_dir (give rdmaconf requirements --rfc-dir DIR to run it)"
fi

# The fuzz targets built as OSS-Fuzz builds them (libc++, its flags, ISA-L
# and libpcap from source, build.sh unchanged) and checked as its
# check_build does; both sanitizers of project.yaml in one build. The smoke
# run then fuzzes those binaries.
stage_mark oss-fuzz "OSS-Fuzz build emulated (ci/oss-fuzz/emulate.sh; docs/fuzzing.md)"
SANITIZER="address undefined" OSSFUZZ_DIR=build/oss-fuzz bash ci/oss-fuzz/emulate.sh >build/oss-fuzz.log 2>&1 ||
  { tail -40 build/oss-fuzz.log; exit 1; }
grep -E "check_build|emulated" build/oss-fuzz.log
# The section garbage collection (fuzz/CMakeLists.txt) leaves each target
# the counters of the code it can reach: smc_tcp_option, which parses one
# TCP option, has about 2,400 in this build and about 15,000 without it.
empty=$(mktemp -d)
counters=$(build/oss-fuzz/out/smc_tcp_option_fuzzer -runs=0 "$empty" 2>&1 | grep -m1 -oE '[0-9]+ inline' | grep -oE '[0-9]+' || true)
rm -rf "$empty"
echo "smc_tcp_option_fuzzer: ${counters:-no} coverage counters"
[ "${counters:-0}" -gt 0 ] && [ "$counters" -lt 6000 ] ||
  { echo "too many for one TCP option: is the section garbage collection of the fuzz build off? (docs/fuzzing.md)"; exit 1; }

# A fuzzer runs on one core: one target per core, each for its full time.
stage_mark smoke "fuzz smoke (libFuzzer, ASan+UBSan, libc++; every target ${FUZZ_SECONDS:-3}s, $jobs at a time; docs/fuzzing.md)"
FUZZ_PREBUILT=build/oss-fuzz/out FUZZ_SEEDS=build/oss-fuzz/work/seeds FUZZ_SECONDS=${FUZZ_SECONDS:-3} FUZZ_JOBS=$jobs \
  bash ci/fuzz-smoke.sh
stage_times
