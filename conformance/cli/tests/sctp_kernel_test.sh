#!/usr/bin/env bash
# DDP over the kernel's own SCTP, as a user runs it (docs/sctp-ddp.md, "Over
# the kernel's SCTP"): `rdmaconf responder --transport sctp --sctp-stack
# kernel` on loopback and `rdmaconf run --transport sctp --sctp-stack kernel
# --target` with the ddp and rdmap suites, which give the verdicts of the
# association in memory: 244 pass, 21 unimplemented, none fail.
# Where the kernel offers no SCTP (socket() says EPROTONOSUPPORT) the
# responder must say so and exit 2; the test then skips (77), saying why.
set -euo pipefail
rdmaconf=$1
work=$(mktemp -d)
responder_pid=
cleanup() {
  [[ -n $responder_pid ]] && kill "$responder_pid" 2>/dev/null && wait "$responder_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$rdmaconf" responder --transport sctp --sctp-stack kernel --listen 127.0.0.1:0 --seconds 600 >"$work/responder.out" 2>&1 &
responder_pid=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -n 's/.* on SCTP 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$work/responder.out")
  [[ -n $port ]] && break
  if ! kill -0 "$responder_pid" 2>/dev/null; then
    status=0
    wait "$responder_pid" || status=$?
    responder_pid=
    if [[ $status -eq 2 ]] && grep -q "offers no SCTP" "$work/responder.out"; then
      echo "skipped: $(cat "$work/responder.out")"
      exit 77
    fi
    echo "the responder ended with status $status:"; cat "$work/responder.out"; exit 1
  fi
  sleep 0.1
done
[[ -n $port ]] || { echo "the responder did not start:"; cat "$work/responder.out"; exit 1; }

status=0
"$rdmaconf" run --transport sctp --sctp-stack kernel --target "127.0.0.1:$port" --suite ddp --suite rdmap -q \
  --json "$work/run.json" >"$work/run.out" 2>&1 || status=$?
python3 "$(dirname "$0")/sctp_verdicts.py" "$work/run.json" "the kernel's SCTP"
[[ $status -eq 0 ]] || { echo "rdmaconf run exited $status"; tail -5 "$work/run.out"; exit 1; }

echo "ok: ddp and rdmap over the kernel's SCTP: 244 pass, 21 unimplemented"
