#!/usr/bin/env bash
# The live interop run: the catalogue against Linux soft-iWARP (siw) and the CLC suite against the
# Linux SMC stack, both in a Debian 12 guest this script builds and boots (ci/interop/README.md).
#
#   bash ci/interop.sh [--only siw|smc] [--keep-guest]
#
# Builds what is missing (host packages, rdmaconf and rdmaconf-agent, the guest image), boots the
# guest, and leaves in reports/interop/:
#   siw/results.json                             `rdmaconf run` through the agent against siw (all passes)
#   siw/{responder,initiator,initiator-last}/    each pass's results.json, junit.xml and html/
#   siw/cases/                                   one capture per case, as the tester saw it
#   siw/replay.txt                               the shared rping recordings replayed against siw's rping
#   siw/live.pcap, siw/analyze.json              tcpdump in the guest during the run, and its analysis
#   smc/results.json, smc/junit.xml, smc/html/   the clc suite against Linux SMC (net/smc)
#   timings.txt, guest/                          measured times; the guest's logs and kernel log
# then powers the guest off. Exit status: 0 when everything ran (failing cases are findings, not
# errors: see docs/interop.md), 1 when a step could not run.
#
# Environment: RDMACONF_VM_DIR (guest image and run folders, default ~/.cache/rdmaconf/interop-vm),
# RDMACONF_INTEROP_PORT (first of four host loopback ports, default 17170), RDMACONF_BIN and
# RDMACONF_AGENT_BIN (use these binaries instead of building build/interop; RDMACONF_REPLAY_BIN, if
# set, is the rdmaconf used for the replay step), RDMACONF_INTEROP_OUT (reports folder instead of
# reports/interop), RDMACONF_SMC_CASES ("ID ...": only these clc cases; a Linux client serves one
# first-contact Accept per boot over stock rxe, docs/interop.md, so each of those runs in its own boot).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
. ci/interop/lib.sh

only=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --keep-guest) keep=1; shift ;;
    *) echo "usage: bash ci/interop.sh [--only siw|smc] [--keep-guest]" >&2; exit 2 ;;
  esac
done
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

t_start=$SECONDS
out="${RDMACONF_INTEROP_OUT:-$root/reports/interop}"
rm -rf "$out"
mkdir -p "$out/siw/cases" "$out/smc" "$out/guest"
timing() { printf '%-36s %6s s\n' "$1" "$2" | tee -a "$out/timings.txt" >&2; }

# --- host side: packages, binaries, guest image -------------------------------------------------
t0=$SECONDS
bash ci/install-deps.sh
bash ci/interop/install-deps.sh
timing "host packages" $((SECONDS - t0))

t0=$SECONDS
if [ -n "${RDMACONF_BIN:-}" ]; then
  rdmaconf="$RDMACONF_BIN"
  agent="${RDMACONF_AGENT_BIN:-}"
else
  build="$root/build/interop"
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
  targets=(rdmaconf)
  if ninja -C "$build" -t targets all 2> /dev/null | grep -q '^rdmaconf-agent:'; then targets+=(rdmaconf-agent); fi
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
  rdmaconf="$build/conformance/cli/rdmaconf"
  agent="$(find "$build" -name rdmaconf-agent -type f -perm -u+x 2> /dev/null | head -1)"
fi
[ -x "$rdmaconf" ] || die "no rdmaconf binary at $rdmaconf"
timing "build (or given binaries)" $((SECONDS - t0))

t0=$SECONDS
bash ci/interop/build-image.sh
timing "guest image (build or reuse)" $((SECONDS - t0))

# --- boot ---------------------------------------------------------------------------------------
port=${RDMACONF_INTEROP_PORT:-17170}
p_control=$port         # agent control channel: host 127.0.0.1:P -> guest 7500
p_rping=$((port + 1))   # rping server (replay proof), same port on both sides
p_iut=$((port + 2))     # the agent's siw listener (responder-role cases), same port on both sides
p_tester=$((port + 3))  # the tester's listener (initiator-role cases): guest 10.0.2.100:P -> host 127.0.0.1:P
token="$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')"

run="$VM_DIR/runs/interop-$(date -u +%Y%m%d-%H%M%S)"
mkdir -p "$run"
bins=(ci/interop/guest/siw-up.sh ci/interop/guest/smc-up.sh "$rdmaconf")
[ -n "$agent" ] && bins+=("$agent")
# The SMC side's two helpers, built here for the guest (same Debian release, same libc).
clang -target bpf -O2 -g -Wall -I/usr/include/x86_64-linux-gnu -c ci/interop/guest/smc_option.bpf.c \
  -o "$run/smc_option.bpf.o"
gcc -O2 -Wall -Wextra -o "$run/smc_config" ci/interop/guest/smc_config.c
bins+=("$run/smc_option.bpf.o" "$run/smc_config")

# The tester runs in the guest for the clc suite: it reads the catalogue from the bin share.
mkdir -p "$run/bin"
cp -r conformance/cases "$run/bin/cases"

vm() { bash ci/interop/vm.sh "$@"; }
guest() { vm exec "$run" "$@"; }
stop_guest() {
  [ -e "$run/qemu.pid" ] || return 0
  guest 'dmesg' > "$out/guest/dmesg.txt" 2>&1 || true
  [ "$keep" = 1 ] && { log "guest left running: bash ci/interop/vm.sh exec $run 'CMD'; ... stop $run"; return 0; }
  vm stop "$run"
}
trap stop_guest EXIT

t0=$SECONDS
FORWARD="$p_control:7500 $p_rping:$p_rping $p_iut:$p_iut" GUESTFWD="$p_tester" vm start "$run" "${bins[@]}"
timing "boot (qemu start -> guest ready)" $((SECONDS - t0))

# --- siw ----------------------------------------------------------------------------------------
if want siw; then
  t0=$SECONDS
  guest 'bash /opt/rdmaconf/siw-up.sh' | tee "$out/guest/siw-up.txt"
  # Everything siw sends or receives on eth0, for `rdmaconf analyze` afterwards.
  guest 'setsid tcpdump -i eth0 -s 0 -U -n -w live.pcap tcp > tcpdump.log 2>&1 < /dev/null & echo $! > tcpdump.pid; sleep 2; cat tcpdump.log'

  # The catalogue through the agent, in three passes, because two things in siw end its usefulness
  # for the rest of a boot (docs/interop.md, "Kernel crashes"): responder-role cases first, then
  # the replays (paced like a real client: these must match message by message), then the
  # initiator-role cases, the one whose Reply crashes siw last.
  if [ -n "$agent" ]; then
    t0=$SECONDS
    guest "setsid rdmaconf-agent --backend rdma-core --device siw0 --control 10.0.2.15:7500 --bind --token $token \
             > agent.log 2>&1 < /dev/null &
           for i in \$(seq 60); do ss -Htln 'sport = :7500' | grep -q . && break; sleep 0.5; done; cat agent.log"
    cases_of() {  # cases_of ROLE [grep -v PATTERN]: --case arguments for the iWARP suites' cases of ROLE
      "$rdmaconf" cases --suite mpa --suite ddp --suite rdmap | awk -v role="$1" '$NF == role { print $1 }' \
        | grep -v -e "${2:-^$}" | sed 's/^/--case\n/' | tr '\n' ' '
    }
    common=(--agent "http://127.0.0.1:$p_control" --token "$token" --target "127.0.0.1:$p_iut"
            --listen "127.0.0.1:$p_tester" --agent-connect-to "10.0.2.100:$p_tester" --agent-nat --time-scale 2)
    siw_pass() {  # siw_pass NAME CASE-ARGS...: one `rdmaconf run`, reports in $out/siw/NAME/
      local name=$1 rc=0; shift
      mkdir -p "$out/siw/$name"
      "$rdmaconf" run "${common[@]}" "$@" --json "$out/siw/$name/results.json" --junit "$out/siw/$name/junit.xml" \
        --html "$out/siw/$name/html" --pcap "$out/siw/cases" 2>&1 | tee -a "$out/siw/run.txt" || rc=$?
      echo "rdmaconf run ($name) exit status $rc" | tee -a "$out/siw/run.txt"
    }
    # shellcheck disable=SC2046  # one word per --case argument
    siw_pass responder $(cases_of responder)
    timing "siw: responder-role cases" $((SECONDS - t0))
  else
    echo "rdmaconf-agent is not built in this tree: the catalogue was not run against siw" | tee "$out/siw/run.txt"
  fi

  # The replay proof: the recorded rping client against siw's own rping server (one server per
  # replay: `rping -s` serves one connection and exits), paced like a real client.
  t0=$SECONDS
  replay_failed=0
  for c in ci/interop/captures/siw-rping-*.pcap; do
    echo "== $(basename "$c") --pace 20" | tee -a "$out/siw/replay.txt"
    guest "setsid rping -s -a 0.0.0.0 -p $p_rping -v >> rping.log 2>&1 < /dev/null & echo \$! > rping.pid; sleep 1"
    rc=0
    "${RDMACONF_REPLAY_BIN:-$rdmaconf}" replay "$c" --target "127.0.0.1:$p_rping" --timeout 3000 --pace 20 \
      2>&1 | tee -a "$out/siw/replay.txt" || rc=$?
    echo "exit $rc" | tee -a "$out/siw/replay.txt"
    [ "$rc" = 0 ] || replay_failed=1
    guest 'p=$(cat rping.pid); for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $p 2> /dev/null || exit 0; sleep 0.5; done; kill $p' || true
  done
  timing "siw: rping replay" $((SECONDS - t0))

  if [ -n "$agent" ]; then
    t0=$SECONDS
    # shellcheck disable=SC2046
    siw_pass initiator $(cases_of initiator 'mpa-initiator-reply-pd-too-long')
    siw_pass initiator-last --case 'mpa-initiator-reply-pd-too-long'
    # One results.json for all passes, in `rdmaconf run`'s format.
    jq -s 'reduce .[1:][] as $p (.[0];
             .duration_ms += $p.duration_ms
             | .summary = (.summary as $a | reduce ($a | keys[]) as $k ({}; .[$k] = $a[$k] + ($p.summary[$k] // 0)))
             | .exit_code = ([.exit_code, $p.exit_code] | max)
             | .cases += $p.cases)' \
      $(ls "$out"/siw/{responder,initiator,initiator-last}/results.json 2> /dev/null) > "$out/siw/results.json" || true
    timing "siw: initiator-role cases" $((SECONDS - t0))
  fi

  guest 'kill -INT "$(cat tcpdump.pid)"; sleep 1; cat tcpdump.log' || true
  cp "$run/share/live.pcap" "$out/siw/live.pcap"
  "$rdmaconf" analyze "$out/siw/live.pcap" --json "$out/siw/analyze.json" > "$out/siw/analyze.txt" 2>&1 || true
  tail -1 "$out/siw/analyze.txt"
  for f in rping.log agent.log; do [ -e "$run/share/$f" ] && cp "$run/share/$f" "$out/guest/"; done
fi

# --- SMC ----------------------------------------------------------------------------------------
# The CLC suite runs in the guest (ci/interop/README.md, "SMC"): tester in namespace "tester" and in
# the cgroup whose sockets carry the SMC TCP option, a second agent on rxe0's side for AF_SMC.
# The tester speaks as a peer on smc1 would: the namespace's prefix, the RoCEv2 GID of its address
# and smc1's MAC (learned per connection), the guest's UEID. Linux 6.1 over rxe lacks two things the
# catalogue can ask for: SMC-R version 1 (rxe has RoCE v2 GIDs only, and Linux's v1 needs a RoCE v1
# GID: the agent reports it) and SMC v2.1 (its SMC_RELEASE is 0: declared here); those cases are
# unimplemented (docs/interop.md).
if want smc; then
  t0=$SECONDS
  guest 'bash /opt/rdmaconf/smc-up.sh' | tee "$out/guest/smc-up.txt"
  if [ -n "$agent" ]; then
    guest 'setsid tcpdump -i smc0 -s 0 -U -n -w smc.pcap tcp > tcpdump-smc.log 2>&1 < /dev/null & echo $! > tcpdump-smc.pid; sleep 2'
    guest "setsid rdmaconf-agent --backend rdma-core --device rxe0 --control 10.78.0.1:7501 --bind --token $token \
             > agent-smc.log 2>&1 < /dev/null &
           for i in \$(seq 60); do ss -Htln 'sport = :7501' | grep -q . && break; sleep 0.5; done; cat agent-smc.log"
    smc_cases=""
    for c in ${RDMACONF_SMC_CASES:-}; do smc_cases+=" --case $c"; done
    rc=0
    guest "echo \$\$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs
           exec ip netns exec tester rdmaconf run --agent http://10.78.0.1:7501 --token $token \
             --clc-target 10.78.0.1:7502 --listen 10.78.0.2:7503 --suite clc --cases-dir /opt/rdmaconf/cases \
             --clc-eid RDMACONF-INTEROP --clc-prefix auto --clc-gid auto --clc-mac auto --iut-lacks smcv2.1$smc_cases \
             --json smc-results.json --junit smc-junit.xml --html smc-html" 3600 \
      2>&1 | tee "$out/smc/run.txt" || rc=$?
    echo "rdmaconf run exit status $rc" >> "$out/smc/run.txt"
    guest 'kill -INT "$(cat tcpdump-smc.pid)"; sleep 1' || true
    cp "$run/share/smc-results.json" "$out/smc/results.json" 2> /dev/null || true
    cp "$run/share/smc-junit.xml" "$out/smc/junit.xml" 2> /dev/null || true
    cp -r "$run/share/smc-html" "$out/smc/html" 2> /dev/null || true
    cp "$run/share/smc.pcap" "$out/smc/live.pcap" 2> /dev/null || true
    [ -e "$out/smc/live.pcap" ] && "$rdmaconf" analyze "$out/smc/live.pcap" --json "$out/smc/analyze.json" \
      > "$out/smc/analyze.txt" 2>&1 || true
    [ -e "$run/share/agent-smc.log" ] && cp "$run/share/agent-smc.log" "$out/guest/"
  else
    echo "rdmaconf-agent is not built in this tree: the clc suite was not run against Linux SMC" | tee "$out/smc/run.txt"
  fi
  timing "smc: setup and clc suite" $((SECONDS - t0))
fi

timing "total" $((SECONDS - t_start))
[ "${replay_failed:-0}" = 0 ] || { log "the paced rping replay did not match: see $out/siw/replay.txt"; exit 1; }
log "reports in reports/interop/"
