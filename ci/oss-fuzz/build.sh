#!/bin/bash -eu
# OSS-Fuzz build script for rdmaconf (projects/rdmaconf/build.sh). Also used
# by ClusterFuzzLite (.clusterfuzzlite/build.sh runs this file).
#
# Inputs, as OSS-Fuzz sets them: $CC $CXX $CFLAGS $CXXFLAGS
# $LIB_FUZZING_ENGINE $SRC $OUT (and $WORK for scratch).
# Outputs in $OUT: <target>_fuzzer, <target>_fuzzer_seed_corpus.zip,
# <target>_fuzzer.dict, <target>_fuzzer.options.

deps=$WORK/deps
mkdir -p "$deps"

# ISA-L (crc32_iscsi) from source, with the build's sanitizer flags. Its
# assembly is not instrumented; the C fallbacks are.
build_isal() {
  cd "$SRC/isa-l"
  ./autogen.sh
  ./configure --prefix="$deps" --disable-shared --enable-static CC="$CC" CFLAGS="$CFLAGS"
  make -j"$(nproc)" install
}

# libpcap from source (capture_file reads captures through it).
build_libpcap() {
  cd "$SRC/libpcap"
  ./autogen.sh 2>/dev/null || true
  ./configure --prefix="$deps" --disable-shared --enable-static --disable-remote \
    --without-libnl --disable-dbus --disable-rdma --disable-bluetooth --disable-usb \
    CC="$CC" CFLAGS="$CFLAGS"
  make -j"$(nproc)" install
}

# The two side by side: most of each build is its autogen and configure,
# which run on one core (docs/performance.md, "CI"). ISA-L's output goes to
# a log, shown whole once it has ended, so that the two do not interleave.
isal_pid=""
if [ ! -f "$deps/lib/pkgconfig/libisal.pc" ]; then
  (build_isal) >"$deps/isal-build.log" 2>&1 &
  isal_pid=$!
fi
if [ ! -f "$deps/lib/pkgconfig/libpcap.pc" ]; then
  (build_libpcap)
fi
if [ -n "$isal_pid" ]; then
  isal_status=0
  wait "$isal_pid" || isal_status=$?
  cat "$deps/isal-build.log"
  [ "$isal_status" -eq 0 ] || { echo "ISA-L's build failed ($isal_status)" >&2; exit 1; }
fi
export PKG_CONFIG_PATH="$deps/lib/pkgconfig:$deps/lib64/pkgconfig"

src=${RDMACONF_SRC:-$SRC/rdmaconf}
build=$WORK/build
cmake -S "$src" -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_CXX_FLAGS="$CXXFLAGS" \
  -DRDMACONF_FUZZ=ON -DRDMACONF_FUZZ_ENGINE="$LIB_FUZZING_ENGINE" \
  -DRDMACONF_BUILD_TESTS=OFF -DRDMACONF_BUILD_BENCHMARKS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-L$deps/lib -L$deps/lib64"
cmake --build "$build" --target fuzz_targets

# Fresh seeds from the codecs of this revision, plus the shipped corpora.
seeds=$WORK/seeds
rm -rf "$seeds"
# The generator is built with the sanitizers too. TCP sequence numbers and
# the header writer's bit loops wrap modulo 2^n on purpose, which UBSan's
# unsigned-integer-overflow check reports (not an error; ClusterFuzz's runs
# silence it the same way).
UBSAN_OPTIONS="silence_unsigned_overflow=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
  "$build/fuzz/fuzz_make_corpus" "$seeds"

for exe in "$build"/fuzz/*_fuzzer; do
  name=$(basename "$exe" _fuzzer)
  cp "$exe" "$OUT/"
  zipdir=$WORK/zip-$name
  rm -rf "$zipdir"
  mkdir -p "$zipdir"
  for d in "$src/fuzz/corpus/$name" "$seeds/$name" "$src/fuzz/regressions/$name"; do
    [ -d "$d" ] && cp -r "$d"/. "$zipdir"/
  done
  if [ -n "$(ls -A "$zipdir")" ]; then
    (cd "$zipdir" && zip -q -r "$OUT/${name}_fuzzer_seed_corpus.zip" .)
  fi
  dicts=$(sed -n "s/^$name:[[:space:]]*//p" "$src/fuzz/dict/targets.txt")
  if [ -n "$dicts" ]; then
    : > "$OUT/${name}_fuzzer.dict"
    for d in $dicts; do cat "$src/fuzz/dict/$d.dict" >> "$OUT/${name}_fuzzer.dict"; done
  fi
  # Inputs above 64 KiB add nothing a smaller one cannot reach; the
  # stateful targets are slower per octet, so they get less.
  case "$name" in
    iwarp_session|rdmap_stream|capture_file|capture_frames) max_len=8192 ;;
    *) max_len=4096 ;;
  esac
  printf '[libfuzzer]\nmax_len = %s\n' "$max_len" > "$OUT/${name}_fuzzer.options"
done
