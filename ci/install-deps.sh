#!/usr/bin/env bash
# Installs every Debian 12 package that rdmaconf's build, tests and benchmarks need.
# Non-interactive and idempotent: packages already present are left alone, and
# the package lists are refreshed only when something is missing.
set -euo pipefail

packages=(
  # toolchains: g++ 12 is the default compiler, clang 14 the second one and the fuzzing compiler
  build-essential cmake ninja-build pkg-config g++ clang libclang-rt-14-dev
  # CRC32c (RFC 3720 Castagnoli) for MPA: ISA-L's crc32_iscsi
  libisal-dev
  # sockets for the reference endpoint: Boost.Asio (header-only in Boost 1.74)
  libboost-dev
  # command line of the rdmaconf tool; its man pages (help2man over --help) and the helpers its
  # generated bash completions use (bash-completion, also for their test)
  libcli11-dev help2man bash-completion
  # the catalogue's SHA-256 in every report (Nettle)
  nettle-dev
  # tests and benchmarks; python3-jsonschema checks every report against docs/schema/
  libgtest-dev libgmock-dev libbenchmark-dev python3-jsonschema
  # captures: libpcap reads pcap/pcapng files and live interfaces; tshark checks that Wireshark opens ours
  libpcap-dev tshark
  # iWARP over SCTP (RFC 5043): usrsctp, SCTP in user space over UDP (RFC 6951), so the reference
  # endpoint and its tests need no kernel SCTP module; the kernel's own SCTP (--sctp-stack kernel)
  # needs only the kernel's socket API header, <linux/sctp.h> (no libsctp)
  libusrsctp-dev linux-libc-dev
  # the Wireshark dissector plugin (dissector/): Wireshark 4.0 headers (wireshark.pc) and GLib
  libwireshark-dev libglib2.0-dev
  # the device agent (conformance/agent/): verbs and rdma_cm from rdma-core; JSON for its control channel
  libibverbs-dev librdmacm-dev nlohmann-json3-dev
  # the OSS-Fuzz build emulated (ci/oss-fuzz/emulate.sh): libc++, and what ISA-L's and libpcap's
  # source builds need (apt-get source: dpkg-dev)
  libc++-14-dev libc++abi-14-dev nasm autoconf automake libtool flex bison zip unzip dpkg-dev
  # the lab dashboard (conformance/dashboard/): its history database; its browser test runs Debian's
  # chromium headless, driven by puppeteer-core from npm (installed below)
  libsqlite3-dev chromium nodejs
  # profiles: ci/fuzz-profile.sh and ci/analyze-bench.sh sample with perf
  linux-perf
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The dashboard's browser test driver, pinned by its lockfile.
browser_tests="$(dirname "$0")/../conformance/dashboard/tests/browser"
if [ ! -d "$browser_tests/node_modules/puppeteer-core" ]; then
  # Debian's nodejs comes without npm (its own package); some nodejs builds bring it along.
  if ! command -v npm >/dev/null; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends npm
  fi
  echo "install-deps: npm ci in conformance/dashboard/tests/browser"
  npm ci --prefix "$browser_tests" --no-audit --no-fund
fi
