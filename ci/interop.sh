#!/usr/bin/env bash
# The live interop run: the catalogue against Linux soft-iWARP (siw) and the CLC suite against the
# Linux SMC stack, in a Debian 12 guest per kernel that this script builds and boots
# (ci/interop/README.md): Linux 6.1 (Debian 12's default) and Linux 6.12 (Debian 12's newer kernel).
#
#   bash ci/interop.sh [--kernel 6.1|6.12] [--only siw|smc|sctp] [--keep-guest] [--plan]
#   bash ci/interop.sh --fuzz MINUTES [--kernel 6.1|6.12] [--only siw|smc]   `rdmaconf fuzz` instead:
#                                     siw, then Linux's SMC CLC server, MINUTES each (<kernel>/fuzz/PART/:
#                                     ci/interop/fuzz.sh)
#
# Builds what is missing (host packages, rdmaconf and rdmaconf-agent, each kernel's guest image),
# runs each kernel's guest in turn (ci/interop/kernel-run.sh), and leaves in reports/interop/:
#   <kernel>/siw/results.json, junit.xml, html/  `rdmaconf run` through the agent against siw (all passes,
#                                                joined by `rdmaconf report`)
#   <kernel>/{siw,smc}/findings.txt, .json       the failures grouped by cause (`rdmaconf findings`), and
#   <kernel>/{siw,smc}/findings-vs-known.txt     against ci/interop/known/ (that kernel's documented run)
#   <kernel>/siw/<pass>/                         each pass's results.json, junit.xml and html/: mpa-, ddp-,
#                                                rdmap-responder, initiator, initiator-last (the case that
#                                                crashes siw's host, run last); <pass>-2 ... after a kernel BUG
#   <kernel>/siw/kernel.txt                      every kernel BUG/Oops seen after a pass, and the case it came with
#   <kernel>/siw/cases/                          one capture per case, as the tester saw it
#   <kernel>/siw/replay.txt                      the shared rping recordings replayed against siw's rping
#   <kernel>/siw/live.pcap, analyze.json         tcpdump in the guest during the run (all boots), and its analysis
#   <kernel>/smc/results.json, junit.xml, html/  the clc suite against Linux SMC (net/smc), one report of
#                                                smc/parts/ (smc/boots.txt: which boot ran which cases);
#                                                smc/live.pcap, smc/analyze.json
#   6.12/smcd/                                   SMC-D v2 between two AF_SMC sockets over loopback-ism: the
#                                                capture (smcd.pcap) and its analysis
#   <kernel>/sctp/                               the reference over the guest kernel's own SCTP
#                                                (guest/sctp-kernel.sh): loopback and suite runs, their
#                                                captures on lo and what analyze makes of them
#   <kernel>/guest/                              the guest's logs and kernel logs
#   diff/{siw,smc}.txt, .json                    `rdmaconf diff` of 6.1's and 6.12's reports: fixed, regressed,
#                                                cases run now that did not run before
#   timings.txt                                  measured times of every step, per kernel
# then powers each guest off. Exit status: 0 when everything ran (failing cases are findings, not
# errors: see docs/interop.md), 1 when a step could not run.
#
# Environment: RDMACONF_VM_DIR (the 6.1 guest's image and run folders, default
# ~/.cache/rdmaconf/interop-vm; 6.12's is the same path with "-6.12" appended), RDMACONF_INTEROP_PORT
# (first of four host loopback ports, default 17170), RDMACONF_BIN, RDMACONF_AGENT_BIN and
# RDMACONF_SMCR_PROBE_BIN (use these binaries instead of building build/interop; RDMACONF_REPLAY_BIN, if set, is the rdmaconf used for
# the replay step), RDMACONF_INTEROP_OUT (reports folder instead of reports/interop),
# RDMACONF_SMC_CASES ("ID ...": only these clc cases). --kernel K runs one kernel and keeps the
# other's reports; --only PART keeps the other part's. --plan prints what the options select (the
# kernels, each kernel's parts, the reports folder) and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
. ci/interop/lib.sh
# The catalogue of this checkout, whichever binaries run (RDMACONF_BIN may be a copy elsewhere; an
# installed rdmaconf finds its own beside itself: docs/install.md).
export RDMACONF_CASES="$root/conformance/cases"

usage() { echo "usage: bash ci/interop.sh [--kernel 6.1|6.12] [--only siw|smc|sctp] [--keep-guest] [--plan] [--fuzz MINUTES]" >&2; exit 2; }
kernels=(6.1 6.12)
only=""
keep=0
plan=0
fuzz=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kernel)
      case "${2:-}" in 6.1 | 6.12) kernels=("$2") ;; *) usage ;; esac
      shift 2 ;;
    --only)
      case "${2:-}" in siw | smc | sctp) only="$2" ;; *) usage ;; esac
      shift 2 ;;
    --keep-guest) keep=1; shift ;;
    --plan) plan=1; shift ;;
    --fuzz)
      [[ "${2:-}" =~ ^[1-9][0-9]*$ ]] || usage
      fuzz="$2"
      shift 2 ;;
    *) usage ;;
  esac
done
[ -n "$fuzz" ] && [ "$only" = sctp ] && { echo "--fuzz runs siw and smc, not sctp" >&2; usage; }
t_start=$SECONDS
out="${RDMACONF_INTEROP_OUT:-$root/reports/interop}"
if [ "$plan" = 1 ] && [ -n "$fuzz" ]; then
  for k in "${kernels[@]}"; do
    [ "$only" = smc ] || echo "kernel $k: fuzz siw for $fuzz minutes -> $out/$k/fuzz/siw"
    [ "$only" = siw ] || echo "kernel $k: fuzz Linux's SMC CLC server for $fuzz minutes -> $out/$k/fuzz/smc"
  done
  exit 0
fi
if [ "$plan" = 1 ]; then
  for k in "${kernels[@]}"; do
    parts="${only:-sctp siw smc}"
    # SMC-D over loopback-ism comes with the SMC part of 6.12 (its smc.ko has CONFIG_SMC_LO).
    [ "$k" = 6.12 ] && { [ -z "$only" ] || [ "$only" = smc ]; } && parts+=" smcd"
    echo "kernel $k: $parts -> $out/$k"
  done
  [ ${#kernels[@]} = 2 ] && [ "$only" != sctp ] && echo "diff 6.1 -> 6.12: ${only:-siw smc} -> $out/diff"
  exit 0
fi
# A kernel's reports are replaced by its run (only PART's with --only); the other kernel's stay, and
# timings.txt says which run is which.
# A fuzz run replaces only the fuzz folder (ci/interop/fuzz.sh).
for k in "${kernels[@]}"; do
  if [ -n "$fuzz" ]; then continue; fi
  if [ -n "$only" ]; then rm -rf "${out:?}/$k/$only"; else rm -rf "${out:?}/$k"; fi
done
[ -n "$fuzz" ] || rm -rf "${out:?}/diff"
mkdir -p "$out"
echo "--- bash ci/interop.sh --kernel ${kernels[*]}${only:+ --only $only}${fuzz:+ --fuzz $fuzz}, $(date -u '+%Y-%m-%d %H:%M UTC')" >> "$out/timings.txt"
timing() { printf '%-6s %-40s %6s s\n' all "$1" "$2" | tee -a "$out/timings.txt" >&2; }

# --- host side: packages, binaries, guest image -------------------------------------------------
t0=$SECONDS
bash ci/install-deps.sh
bash ci/interop/install-deps.sh
timing "host packages" $((SECONDS - t0))

t0=$SECONDS
if [ -n "${RDMACONF_BIN:-}" ]; then
  rdmaconf="$RDMACONF_BIN"
  agent="${RDMACONF_AGENT_BIN:-}"
  smcr_probe="${RDMACONF_SMCR_PROBE_BIN:-}"
else
  build="$root/build/interop"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  targets=(rdmaconf)
  # grep reads the whole list: with -q it would stop at the match, and ninja's SIGPIPE fail the pipe.
  if ninja -C "$build" -t targets all 2> /dev/null | grep '^rdmaconf-agent:' > /dev/null; then targets+=(rdmaconf-agent); fi
  if ninja -C "$build" -t targets all 2> /dev/null | grep '^smcr-probe:' > /dev/null; then targets+=(smcr-probe); fi
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
  rdmaconf="$build/conformance/cli/rdmaconf"
  agent="$(find "$build" -name rdmaconf-agent -type f -perm -u+x 2> /dev/null | head -1)"
  smcr_probe="$(find "$build" -name smcr-probe -type f -perm -u+x 2> /dev/null | head -1)"
fi
[ -x "$rdmaconf" ] || die "no rdmaconf binary at $rdmaconf"
timing "build (or given binaries)" $((SECONDS - t0))

# --- one guest per kernel ----------------------------------------------------------------------
rc=0
for k in "${kernels[@]}"; do
  args=()
  [ -n "$only" ] && args+=(--only "$only")
  [ "$keep" = 1 ] && args+=(--keep-guest)
  [ -n "$fuzz" ] && args+=(--fuzz "$fuzz")
  RDMACONF_KERNEL="$k" RDMACONF_INTEROP_OUT="$out/$k" RDMACONF_INTEROP_TIMINGS="$out/timings.txt" \
    RDMACONF_BIN="$rdmaconf" RDMACONF_AGENT_BIN="$agent" RDMACONF_SMCR_PROBE_BIN="$smcr_probe" bash ci/interop/kernel-run.sh "${args[@]}" || rc=1
done

# --- what changed from 6.1 to 6.12 ---------------------------------------------------------------
# `rdmaconf diff` of each part's two reports: findings new in 6.12 (regressed) and gone (fixed), and
# by case new failures, fixed cases, cases that run now and did not before, other changed verdicts.
for part in siw smc; do
  [ -z "$fuzz" ] || break
  a="$out/6.1/$part/results.json" b="$out/6.12/$part/results.json"
  [ -e "$a" ] && [ -e "$b" ] || continue
  mkdir -p "$out/diff"
  "$rdmaconf" diff "$a" "$b" --json "$out/diff/$part.json" > "$out/diff/$part.txt" 2>&1 || true
  head -1 "$out/diff/$part.txt"
done

timing "total" $((SECONDS - t_start))
[ "$rc" = 0 ] || { log "a kernel's part could not run to its end: see its lines above"; exit 1; }
log "reports in $out/"
