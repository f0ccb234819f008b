#!/usr/bin/env bash
# The test command: installs what is missing, builds rdmaconf warning-free with
# g++ 12 and clang 14 (warnings are errors), and runs every test with ctest.
# Exits non-zero when any step or any test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh

jobs=$(nproc)

echo "== build (g++, -Werror)"
cmake -S . -B build/gcc -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMACONF_WERROR=ON \
  -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++
cmake --build build/gcc -j "$jobs"

echo "== build (clang, -Werror)"
cmake -S . -B build/clang -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRDMACONF_WERROR=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
cmake --build build/clang -j "$jobs"

echo "== tests"
ctest --test-dir build/gcc --output-on-failure -j "$jobs" --timeout 300

echo "== fuzz smoke (libFuzzer, ASan+UBSan; every target ${FUZZ_SECONDS:-3}s; docs/fuzzing.md)"
FUZZ_SECONDS=${FUZZ_SECONDS:-3} bash ci/fuzz-smoke.sh
