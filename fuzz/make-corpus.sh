#!/usr/bin/env bash
# Refreshes the seeds in fuzz/corpus/<target>/ from the reference codecs
# (corpus_gen/make_corpus.cpp) and the conformance cases, keeping what
# fuzzing added. Usage: fuzz/make-corpus.sh [BUILD_DIR]   (default build/gcc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/gcc}
cmake --build "$build" --target fuzz_make_corpus
"$build/fuzz/fuzz_make_corpus" fuzz/corpus
mkdir -p fuzz/corpus/conformance_script
for f in conformance/cases/*/*.case; do
  [ -e "$f" ] || continue
  cp "$f" "fuzz/corpus/conformance_script/$(basename "$(dirname "$f")")_$(basename "$f")"
done
