#!/usr/bin/env bash
# Line coverage of the reference codecs (reference/{wire,mpa,ddp,rdmap,clc})
# reached by the shipped corpora: builds the standalone replay drivers with
# clang's source-based coverage, replays fuzz/corpus/<target>/ and
# fuzz/regressions/<target>/ through every target, merges the profiles and
# prints llvm-cov's report. Usage: fuzz/coverage.sh [BUILD_DIR] (build/fuzz-cov)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz-cov}
flags="-fprofile-instr-generate -fcoverage-mapping"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DRDMACONF_BUILD_TESTS=OFF -DRDMACONF_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzz_targets

profiles=$build/profiles
rm -rf "$profiles"
mkdir -p "$profiles"
objects=()
for exe in "$build"/fuzz/*_fuzzer; do
  t=$(basename "$exe" _fuzzer)
  LLVM_PROFILE_FILE="$profiles/$t.profraw" "$exe" "fuzz/corpus/$t" "fuzz/regressions/$t" >/dev/null
  objects+=("-object=$exe")
done
llvm-profdata-14 merge -sparse "$profiles"/*.profraw -o "$build/corpus.profdata"
# The first object is given without -object=, the rest with it.
first=${objects[0]#-object=}
llvm-cov-14 report "$first" "${objects[@]:1}" -instr-profile="$build/corpus.profdata" \
  reference/wire reference/mpa reference/ddp reference/rdmap reference/clc
