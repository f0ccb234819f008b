#!/usr/bin/env bash
# DDP over SCTP on a real SCTP stack, as a user runs it (docs/sctp-ddp.md,
# "Over a real SCTP stack"): `rdmaconf responder --transport sctp` serves
# the reference over usrsctp in UDP datagrams on loopback, and
# `rdmaconf run --transport sctp --target` runs the ddp and rdmap suites
# against it. The counts are those of the association in memory: 244 pass,
# 21 unimplemented, none fail.
set -euo pipefail
rdmaconf=$1
work=$(mktemp -d)
responder_pid=
cleanup() {
  [[ -n $responder_pid ]] && kill "$responder_pid" 2>/dev/null && wait "$responder_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

"$rdmaconf" responder --transport sctp --listen 127.0.0.1:0 --seconds 600 >"$work/responder.out" 2>&1 &
responder_pid=$!
port=
for _ in $(seq 1 100); do
  port=$(sed -n 's/.* on UDP 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$work/responder.out")
  [[ -n $port ]] && break
  sleep 0.1
done
[[ -n $port ]] || { echo "the responder did not start:"; cat "$work/responder.out"; exit 1; }

status=0
"$rdmaconf" run --transport sctp --target "127.0.0.1:$port" --suite ddp --suite rdmap -q \
  --json "$work/run.json" >"$work/run.out" 2>&1 || status=$?
python3 "$(dirname "$0")/sctp_verdicts.py" "$work/run.json" "usrsctp"
[[ $status -eq 0 ]] || { echo "rdmaconf run exited $status"; tail -5 "$work/run.out"; exit 1; }

echo "ok: ddp and rdmap over usrsctp: 244 pass, 21 unimplemented"
