#!/usr/bin/env bash
# The main job: installs what is missing, builds rdmaconf, and runs the full
# conformance catalogue against the built-in reference implementation,
# leaving JUnit, JSON and HTML reports in reports/. Extra arguments go to
# `rdmaconf run` (e.g. `--target HOST:PORT` to test another implementation
# instead of the reference, `--agent URL --token T` for a device behind
# rdmaconf-agent, `--suite mpa`, `--strict`).
set -euo pipefail
cd "$(dirname "$0")/.."

bash ci/install-deps.sh
cmake -S . -B build/gcc -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build/gcc -j "$(nproc)" --target rdmaconf

mkdir -p reports
target=(--reference)
for a in "$@"; do
  case "$a" in --target|--target=*|--clc-target|--clc-target=*|--listen|--listen=*|--agent|--agent=*) target=() ;; esac
done
./build/gcc/conformance/cli/rdmaconf run "${target[@]}" \
  --junit reports/junit.xml --json reports/results.json --html reports/html "$@"
echo "reports: reports/junit.xml, reports/results.json, reports/html/index.html"
