#!/usr/bin/env bash
# Builds rdmaconf's fuzz targets the way OSS-Fuzz does, on this machine, and
# checks the result the way OSS-Fuzz's check_build does (docs/fuzzing.md,
# "OSS-Fuzz").
#
#   ci/oss-fuzz/emulate.sh                          # SANITIZER=address, as OSS-Fuzz's default build
#   SANITIZER=undefined ci/oss-fuzz/emulate.sh
#   SANITIZER="address undefined" ci/oss-fuzz/emulate.sh   # both in one build (CI: one build, not two)
#
# What it reproduces of OSS-Fuzz's base-builder image: clang with libc++
# (-stdlib=libc++ in CXXFLAGS), its CFLAGS, sanitizer and coverage flags,
# LIB_FUZZING_ENGINE (-fsanitize=fuzzer), and the $SRC, $OUT and $WORK folders;
# ISA-L and libpcap sources in $SRC/isa-l and $SRC/libpcap. Those sources come
# from Debian's source packages (libisal, libpcap) through a private apt
# configuration (a deb-src entry for the mirror the host's apt already uses;
# the system's apt configuration is not touched). Then ci/oss-fuzz/build.sh
# runs unchanged, and every *_fuzzer in $OUT is checked:
#   - it is a libFuzzer binary built with the sanitizer(s), and the project's
#     code in it uses libc++, not libstdc++;
#   - its .options file is valid ([libfuzzer] section, key = value lines);
#   - its dictionary parses (libFuzzer refuses a bad one);
#   - it runs every input of its seed corpus without a finding.
# The binaries stay in $OUT for ci/fuzz-smoke.sh (FUZZ_PREBUILT=$OUT).
#
# Folder: OSSFUZZ_DIR (default build/oss-fuzz): src/ out/ work/.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
base=$(realpath -m "${OSSFUZZ_DIR:-$root/build/oss-fuzz}")
sanitizers=${SANITIZER:-address}

export SRC=$base/src OUT=$base/out WORK=$base/work
mkdir -p "$SRC" "$OUT" "$WORK"

# ---- the sources OSS-Fuzz's Dockerfile clones, from Debian's source packages
# shellcheck source=../interop/lib.sh
source "$root/ci/interop/lib.sh"  # debian_mirror
log() { printf '[oss-fuzz %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
fetch_sources() {
  local apt=$base/apt mirror
  mirror=$(debian_mirror bookworm) || true
  [ -n "$mirror" ] || die "no Debian mirror in this host's apt configuration"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/cache" "$apt/get"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main" >"$apt/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/none"
              -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "Dir::Cache::Archives=$apt/archives")
  apt-get "${opts[@]}" update -qq
  (cd "$apt/get" && apt-get "${opts[@]}" source -qq libisal libpcap >/dev/null 2>&1) ||
    die "apt-get source libisal libpcap failed"
  rm -rf "$SRC/isa-l" "$SRC/libpcap"
  mv "$(find "$apt/get" -maxdepth 1 -type d -name 'libisal-*' | head -1)" "$SRC/isa-l"
  mv "$(find "$apt/get" -maxdepth 1 -type d -name 'libpcap-*' | head -1)" "$SRC/libpcap"
  rm -rf "$apt/get"
}
if [ ! -f "$SRC/isa-l/autogen.sh" ] || [ ! -f "$SRC/libpcap/configure.ac" ]; then
  log "ISA-L and libpcap sources from Debian's source packages"
  fetch_sources
fi

# ---- the environment of OSS-Fuzz's base-builder (compile script)
san_flags() {
  case $1 in
    address) echo "-fsanitize=address -fsanitize-address-use-after-scope" ;;
    undefined)
      local checks=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unsigned-integer-overflow,unreachable,vla-bound,vptr
      local fatal=array-bounds,bool,builtin,enum,float-divide-by-zero,function,integer-divide-by-zero,null,object-size,return,returns-nonnull-attribute,shift,signed-integer-overflow,unreachable,vla-bound,vptr
      echo "-fsanitize=$checks -fno-sanitize-recover=$fatal" ;;
    *) die "SANITIZER '$1': expected address or undefined (project.yaml lists these two)" ;;
  esac
}
sflags=""
for s in $sanitizers; do sflags="$sflags $(san_flags "$s")"; done
export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION$sflags -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"
# OSS-Fuzz's libFuzzer is built against a private libc++; Debian's
# (libclang_rt.fuzzer) against libstdc++, so its own references need
# libstdc++ at link time, named by its path (clang with -stdlib=libc++ does
# not search GCC's library folder). The two libraries' symbols do not meet (std::__1
# and std::__cxx11); the project's code uses libc++ only (checked below).
libstdcxx=$(g++ -print-file-name=libstdc++.so)
export LIB_FUZZING_ENGINE="-fsanitize=fuzzer $libstdcxx"
export FUZZING_ENGINE=libfuzzer SANITIZER=${sanitizers// /+} ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c++
# OSS-Fuzz runs build.sh from the project's checkout, $SRC/rdmaconf.
export RDMACONF_SRC=$root

log "build.sh (SANITIZER=$SANITIZER, libc++) -> $OUT"
rm -f "$OUT"/*_fuzzer "$OUT"/*_fuzzer.*
# As OSS-Fuzz's compile runs it: bash -eu (the script's own shebang flags).
(cd "$root" && bash -eu ci/oss-fuzz/build.sh) || die "build.sh failed"

# ---- check_build
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:silence_unsigned_overflow=1:suppressions=$root/fuzz/known-issues.ubsan.supp"
targets=()
for exe in "$OUT"/*_fuzzer; do [ -f "$exe" ] && targets+=("$(basename "$exe")"); done
[ ${#targets[@]} -gt 0 ] || die "build.sh left no *_fuzzer in $OUT"
# One target's checks; each problem is a line of $WORK/check/<t>.problems,
# and <t>.done says the checks ran to their end.
check_target() {
  local t=$1 exe=$OUT/$1 syms mixed corpus n max_len
  local problems=$WORK/check/$t.problems
  : >"$problems"
  rm -f "$WORK/check/$t.done"
  bad() { log "check_build: $*"; echo "$*" >>"$problems"; }
  syms=$(nm -C "$exe" 2>/dev/null || true)
  grep -q "LLVMFuzzerTestOneInput" <<<"$syms" || bad "$t: no LLVMFuzzerTestOneInput"
  grep -q "fuzzer::Fuzzer" <<<"$syms" || bad "$t: not linked with libFuzzer"
  case " $sanitizers " in *" address "*) grep -q "__asan_init" <<<"$syms" || bad "$t: not built with ASan" ;; esac
  case " $sanitizers " in *" undefined "*) grep -q "__ubsan_handle" <<<"$syms" || bad "$t: not built with UBSan" ;; esac
  # libc++ puts the standard library in std::__1, libstdc++ in std::__cxx11:
  # no function of the project may name a libstdc++ type.
  grep -q "std::__1::" <<<"$syms" || bad "$t: not built against libc++"
  mixed=$(grep "rdmaconf::" <<<"$syms" | grep -c "std::__cxx11::" || true)
  [ "$mixed" -eq 0 ] || bad "$t: $mixed of the project's symbols name libstdc++ types"
  if [ -f "$exe.options" ]; then
    awk 'NR == 1 && $0 != "[libfuzzer]" { exit 1 }
         NR > 1 && $0 !~ /^[a-z_]+ = [^ ]+$/ { exit 1 }' "$exe.options" || bad "$t: $t.options is not a [libfuzzer] section of key = value lines"
  fi
  corpus=$WORK/check/$t
  rm -rf "$corpus"
  mkdir -p "$corpus"
  [ -f "$exe"_seed_corpus.zip ] && unzip -q -o "$exe"_seed_corpus.zip -d "$corpus"
  n=$(find "$corpus" -type f | wc -l)
  local dict=()
  [ -f "$exe.dict" ] && dict=(-dict="$exe.dict")
  max_len=$(sed -n 's/^max_len = //p' "$exe.options" 2>/dev/null)
  if ! "$exe" -runs=0 "${dict[@]}" ${max_len:+-max_len="$max_len"} -rss_limit_mb=2560 -timeout=25 \
         "$corpus" >"$WORK/check/$t.log" 2>&1; then
    grep -E "ERROR|ParseDictionary|fuzz property violated|runtime error" "$WORK/check/$t.log" | head -5 >&2 || true
    bad "$t: failed on its seed corpus or dictionary (log $WORK/check/$t.log)"
  else
    log "check_build: $t ok ($n seed inputs${dict:+, dictionary})"
  fi
  touch "$WORK/check/$t.done"
}
# The targets' checks side by side, a core each (each fuzzer runs on one):
# the seed corpora take most of this step's time.
# shellcheck source=../fuzz-lib.sh
source "$root/ci/fuzz-lib.sh"  # run_all
mkdir -p "$WORK/check"
rm -f "$WORK"/check/*.problems "$WORK"/check/*.done
run_all "$(nproc)" check_target "${targets[@]}"
problems=0
for t in "${targets[@]}"; do
  if [ -f "$WORK/check/$t.done" ]; then
    problems=$((problems + $(wc -l <"$WORK/check/$t.problems")))
  else
    log "check_build: $t: its check did not finish"
    problems=$((problems + 1))
  fi
done
[ "$problems" -eq 0 ] || die "check_build: $problems problem(s)"
log "OSS-Fuzz build emulated: ${#targets[@]} targets in $OUT pass check_build"
