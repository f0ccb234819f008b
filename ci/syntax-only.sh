#!/usr/bin/env bash
# A compiler and linker launcher (CMAKE_<LANG>_COMPILER_LAUNCHER and
# CMAKE_<LANG>_LINKER_LAUNCHER) that runs the compiler's front end only. A
# compile ("-c ... -o OBJ") runs with -fsyntax-only instead and leaves an
# empty OBJ, so that ninja sees its output; the dependency file (-MD -MF) is
# still written, so ninja's graph stays exact. A link (no "-c") only leaves
# its empty output: an object's build may wait for a program to exist, never
# for it to run. CI's clang stage uses it: clang is there for its
# diagnostics, which come from its front end (docs/performance.md, "CI").
set -euo pipefail
# A precompiled header (CMakeLists.txt) is made for real, with its object:
# the translation units checked after it read it.
case " $* " in *" -emit-pch "*) exec "$@" ;; esac
args=() out="" compile=0
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out=$2; shift 2 ;;
    -c) compile=1; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
[ "$compile" = 0 ] || "${args[@]}" -fsyntax-only
[ -z "$out" ] || : >"$out"
