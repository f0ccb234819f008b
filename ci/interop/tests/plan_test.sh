#!/usr/bin/env bash
# ci/interop.sh's options, without a VM: `--plan` prints what they select (kernels, each kernel's
# parts, the reports folder, the diff; with --fuzz the fuzz folder) and stops; bad values are usage errors (exit 2).
set -u
cd "$(dirname "$0")/../../.." || exit 2
export RDMACONF_INTEROP_OUT=/nonexistent/interop
fails=0
expect() {  # expect WHAT WANT-STATUS WANT-OUTPUT -- ARGS...
  local what=$1 want_rc=$2 want=$3 out rc
  shift 4
  out="$(bash ci/interop.sh "$@" 2>&1)"
  rc=$?
  if [ "$rc" != "$want_rc" ] || [ "$out" != "$want" ]; then
    printf 'FAIL %s: status %s (want %s)\n--- got\n%s\n--- want\n%s\n' "$what" "$rc" "$want_rc" "$out" "$want"
    fails=$((fails + 1))
  fi
}
usage='usage: bash ci/interop.sh [--kernel 6.1|6.12] [--only siw|smc|sctp] [--keep-guest] [--plan] [--fuzz MINUTES]'
expect "both kernels by default" 0 "kernel 6.1: sctp siw smc -> /nonexistent/interop/6.1
kernel 6.12: sctp siw smc smcd -> /nonexistent/interop/6.12
diff 6.1 -> 6.12: siw smc -> /nonexistent/interop/diff" -- --plan
expect "one kernel" 0 "kernel 6.12: sctp siw smc smcd -> /nonexistent/interop/6.12" -- --kernel 6.12 --plan
expect "the kernel's SCTP alone, no diff" 0 "kernel 6.1: sctp -> /nonexistent/interop/6.1
kernel 6.12: sctp -> /nonexistent/interop/6.12" -- --only sctp --plan
expect "no fuzzing of sctp" 2 "--fuzz runs siw and smc, not sctp
$usage" -- --fuzz 5 --only sctp --plan
expect "one kernel, one part" 0 "kernel 6.1: siw -> /nonexistent/interop/6.1" -- --plan --kernel 6.1 --only siw
expect "one part on both kernels" 0 "kernel 6.1: smc -> /nonexistent/interop/6.1
kernel 6.12: smc smcd -> /nonexistent/interop/6.12
diff 6.1 -> 6.12: smc -> /nonexistent/interop/diff" -- --only smc --plan
expect "SMC-D comes with the SMC part" 0 "kernel 6.12: siw -> /nonexistent/interop/6.12" -- --kernel 6.12 --only siw --plan
expect "unknown kernel" 2 "$usage" -- --kernel 6.6 --plan
expect "kernel without a value" 2 "$usage" -- --plan --kernel
expect "unknown part" 2 "$usage" -- --only smcd --plan
expect "unknown option" 2 "$usage" -- --plan --fast
expect "fuzz one kernel" 0 "kernel 6.1: fuzz siw for 30 minutes -> /nonexistent/interop/6.1/fuzz/siw
kernel 6.1: fuzz Linux's SMC CLC server for 30 minutes -> /nonexistent/interop/6.1/fuzz/smc" -- --fuzz 30 --kernel 6.1 --plan
expect "fuzz one part" 0 "kernel 6.12: fuzz Linux's SMC CLC server for 5 minutes -> /nonexistent/interop/6.12/fuzz/smc" \
  -- --plan --fuzz 5 --only smc --kernel 6.12
expect "fuzz without minutes" 2 "$usage" -- --plan --fuzz
expect "fuzz zero minutes" 2 "$usage" -- --plan --fuzz 0
[ "$fails" = 0 ] && echo "ci/interop.sh --plan: all cases as expected"
exit $((fails > 0))
