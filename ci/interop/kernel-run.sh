#!/usr/bin/env bash
# One kernel's part of the live interop run (ci/interop.sh runs it once per kernel): builds or reuses
# that kernel's guest image, boots it, runs the catalogue against siw and the clc suite against
# Linux SMC, and leaves the reports in $RDMACONF_INTEROP_OUT (reports/interop/<kernel>/; the list is
# in ci/interop.sh). Not meant to be called by hand: ci/interop.sh builds the binaries and passes
#   RDMACONF_KERNEL (6.1 or 6.12), RDMACONF_INTEROP_OUT, RDMACONF_INTEROP_TIMINGS (the shared
#   timings.txt), RDMACONF_BIN, RDMACONF_AGENT_BIN, and the options --only PART, --keep-guest, --fuzz MINUTES
#   (instead of the conformance run: `rdmaconf fuzz` against siw for that long, ci/interop/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
. ci/interop/lib.sh
export RDMACONF_CASES="$root/conformance/cases"

only=""
keep=0
fuzz_minutes=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --keep-guest) keep=1; shift ;;
    --fuzz) fuzz_minutes="$2"; shift 2 ;;
    *) echo "usage: RDMACONF_KERNEL=6.1|6.12 ... bash ci/interop/kernel-run.sh [--only siw|smc|sctp] [--keep-guest] [--fuzz MINUTES]" >&2; exit 2 ;;
  esac
done
want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

out="${RDMACONF_INTEROP_OUT:?set by ci/interop.sh}"
timings="${RDMACONF_INTEROP_TIMINGS:-$out/timings.txt}"
rdmaconf="${RDMACONF_BIN:?set by ci/interop.sh}"
agent="${RDMACONF_AGENT_BIN:-}"
smcr_probe="${RDMACONF_SMCR_PROBE_BIN:-}"
mkdir -p "$out/siw/cases" "$out/smc" "$out/guest"
timing() { printf '%-6s %-40s %6s s\n' "$KERNEL" "$1" "$2" | tee -a "$timings" >&2; }
t_start=$SECONDS

t0=$SECONDS
bash ci/interop/build-image.sh  # RDMACONF_KERNEL picks the image (lib.sh)
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
bins=(ci/interop/guest/siw-up.sh ci/interop/guest/smc-up.sh ci/interop/guest/smcd-pair.sh ci/interop/guest/sctp-kernel.sh
      "$rdmaconf")
[ -n "$agent" ] && bins+=("$agent")
[ -n "$smcr_probe" ] && bins+=("$smcr_probe" ci/interop/guest/smcr-up.sh ci/interop/guest/smcr-roce.sh ci/interop/guest/smcr-suite.sh)
# The SMC side's two helpers, built here for the guest (same Debian release, same libc).
clang -target bpf -O2 -g -Wall -I/usr/include/x86_64-linux-gnu -c ci/interop/guest/smc_option.bpf.c \
  -o "$run/smc_option.bpf.o"
gcc -O2 -Wall -Wextra -o "$run/smc_config" ci/interop/guest/smc_config.c
gcc -O2 -Wall -Wextra -o "$run/smc_pair" ci/interop/guest/smc_pair.c
gcc -O2 -Wall -Wextra -o "$run/clc_relay" ci/interop/guest/clc_relay.c  # --fuzz: the host's tester to Linux's CLC server
bins+=("$run/smc_option.bpf.o" "$run/smc_config" "$run/smc_pair" "$run/clc_relay")

# The tester runs in the guest for the clc suite: it reads the catalogue from the bin share.
mkdir -p "$run/bin"
cp -r conformance/cases "$run/bin/cases"

vm() { bash ci/interop/vm.sh "$@"; }
guest() { vm exec "$run" "$@"; }
stop_guest() {
  [ -e "$run/qemu.pid" ] || return 0
  kill -0 "$(cat "$run/qemu.pid")" 2> /dev/null || { rm -f "$run/qemu.pid"; return 0; }
  guest 'dmesg' 30 > "$out/guest/dmesg.txt" 2>&1 || true
  [ "$keep" = 1 ] && { log "guest left running: bash ci/interop/vm.sh exec $run 'CMD'; ... stop $run"; return 0; }
  vm stop "$run"
}
trap stop_guest EXIT

# The guest's kernel: two bugs in Linux end a boot's usefulness (docs/interop.md, "Kernel crashes").
# After every pass the kernel log is read; a BUG or Oops is recorded in siw/kernel.txt (with the
# guest's log in guest/dmesg-bootN.txt), the guest is rebooted and the run goes on.
boots=0
boot_guest() {
  boots=$((boots + 1))
  FORWARD="$p_control:7500 $p_rping:$p_rping $p_iut:$p_iut" GUESTFWD="$p_tester" vm start "$run" "${bins[@]}"
}
kernel_ok() {  # kernel_ok AFTER: false (and recorded) when this boot's kernel log has a BUG or Oops
  local dmesg first
  # A panic powers the guest off (panic=-1 under -no-reboot): then its last words are on the serial
  # console, with the same timestamps as dmesg.
  if ! kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null || ! dmesg="$(guest 'dmesg' 60 2>&1)"; then
    dmesg="$(cat "$run/console.log")"
    first="$(grep -m1 -E 'BUG:|kernel BUG at|Oops:|general protection fault' <<< "$dmesg")" || first="no BUG line on the console"
    printf '%s\n' "$dmesg" > "$out/guest/dmesg-boot$boots.txt"
    echo "boot $boots, after $1: the guest is gone (kernel panic): $first (guest/dmesg-boot$boots.txt, the console)" \
      | tee -a "$out/siw/kernel.txt" >&2
    return 1
  fi
  first="$(grep -m1 -E 'BUG:|kernel BUG at|Oops:|general protection fault' <<< "$dmesg")" || return 0
  printf '%s\n' "$dmesg" > "$out/guest/dmesg-boot$boots.txt"
  echo "boot $boots, after $1: $first (guest/dmesg-boot$boots.txt)" | tee -a "$out/siw/kernel.txt" >&2
  return 1
}
siw_up() {  # siw on eth0, tcpdump (live-bootN.pcap, for `rdmaconf analyze`; not with "nocapture"), the agent on siw0
  siw_boot=$boots
  guest 'bash /opt/rdmaconf/siw-up.sh' | tee -a "$out/guest/siw-up.txt"
  [ "${1:-}" = nocapture ] || guest "setsid tcpdump -i eth0 -s 0 -U -n -w live-boot$boots.pcap tcp > tcpdump.log 2>&1 < /dev/null & echo \$! > tcpdump.pid; sleep 2; cat tcpdump.log"
  [ -n "$agent" ] || return 0
  if [ "${SNAPSHOTS:-0}" = 1 ]; then
    # A guest to be saved (vm.sh savevm) leaves its 9p shares for the save: the agent runs from a copy
    # outside them, in a folder of its own, its log there too (the host reads it through `guest`).
    guest "mkdir -p /var/lib/rdmaconf && cp /opt/rdmaconf/rdmaconf-agent /var/lib/rdmaconf/ && cd /var/lib/rdmaconf &&
           { setsid ./rdmaconf-agent --backend rdma-core --device siw0 --control 10.0.2.15:7500 --bind --token $token \
               > agent-boot$boots.log 2>&1 < /dev/null & }
           for i in \$(seq 60); do ss -Htln 'sport = :7500' | grep -q . && break; sleep 0.5; done; cat agent-boot$boots.log"
    return
  fi
  guest "setsid rdmaconf-agent --backend rdma-core --device siw0 --control 10.0.2.15:7500 --bind --token $token \
           > agent-boot$boots.log 2>&1 < /dev/null &
         for i in \$(seq 60); do ss -Htln 'sport = :7500' | grep -q . && break; sleep 0.5; done; cat agent-boot$boots.log"
}
reboot_guest() {  # after a kernel BUG: power off (a stuck guest gets SIGTERM after 20 s), boot again
  local t=$SECONDS
  guest 'kill -INT "$(cat tcpdump.pid)"' > /dev/null 2>&1 || true
  STOP_TIMEOUT=20 vm stop "$run" || true
  boot_guest
  want siw && siw_up
  timing "reboot after a kernel BUG" $((SECONDS - t))
}

# The findings of a part's results (docs/conformance.md, "Findings"): findings.txt to read,
# findings.json for a baseline, and against the findings kept in ci/interop/known/ (the last
# documented run, docs/interop.md) what is new and what was fixed.
interop_findings() {
  local part=$1 known="ci/interop/known/$1-linux-$KERNEL.json"
  [ -e "$out/$part/results.json" ] || return 0
  "$rdmaconf" findings "$out/$part/results.json" --cases-dir conformance/cases --json "$out/$part/findings.json" \
    > "$out/$part/findings.txt" 2>&1 || true
  if [ -e "$known" ]; then
    "$rdmaconf" findings "$out/$part/results.json" --cases-dir conformance/cases --baseline "$known" \
      > "$out/$part/findings-vs-known.txt" 2>&1 || true
    head -1 "$out/$part/findings-vs-known.txt"
  else
    head -1 "$out/$part/findings.txt"
  fi
}

# --fuzz with RDMACONF_FUZZ_RESTORE=snapshot: every boot's disk is a qcow2 overlay with qemu's QMP
# socket, so that the fuzzer's restore can bring back the guest saved once siw and the agent were up
# (vm.sh savevm/loadvm; ci/interop/fuzz.sh).
[ -n "$fuzz_minutes" ] && [ "${RDMACONF_FUZZ_RESTORE:-reboot}" = snapshot ] && export SNAPSHOTS=1
t0=$SECONDS
boot_guest
timing "boot (qemu start -> guest ready)" $((SECONDS - t0))

# --- fuzz (--fuzz MINUTES): instead of the conformance run ---------------------------------------
if [ -n "$fuzz_minutes" ]; then
  . ci/interop/fuzz.sh
  timing "total (this kernel)" $((SECONDS - t_start))
  exit 0
fi

# --- sctp: the reference over Linux's own SCTP ------------------------------------------------------
# guest/sctp-kernel.sh, on the guest's loopback (docs/sctp-ddp.md, "Over the kernel's SCTP"):
# `rdmaconf loopback --transport sctp --sctp-stack kernel`, then the ddp, rdmap and sctp suites
# against `rdmaconf responder --sctp-stack kernel`, tcpdump on lo throughout. First, so that a siw
# crash later in the boot cannot touch it. Reports, captures and what analyze makes of them in sctp/.
if want sctp; then
  t0=$SECONDS
  rm -rf "$run/share/sctp"
  mkdir -p "$out/sctp"
  guest 'SCTP_PORT=9899 bash /opt/rdmaconf/sctp-kernel.sh' 3600 2>&1 | tee "$out/sctp/run.txt" || true
  cp -r "$run/share/sctp/." "$out/sctp/" 2> /dev/null || true
  for p in loopback one-case streams suites; do
    [ -s "$out/sctp/$p.pcap" ] || continue
    "$rdmaconf" analyze "$out/sctp/$p.pcap" --json "$out/sctp/analyze-$p.json" > "$out/sctp/analyze-$p.txt" 2>&1 || true
    tail -1 "$out/sctp/analyze-$p.txt"
  done
  timing "sctp: the reference over the kernel's SCTP" $((SECONDS - t0))
fi

# --- siw ----------------------------------------------------------------------------------------
# The catalogue through the agent in passes (responder-role cases per suite, the replays, the
# initiator-role cases), each followed by the kernel check; a pass during which the kernel hit a
# BUG is run once more on the fresh boot (its first attempt stays in siw/NAME-crashed/). The
# initiator case whose Reply crashes siw's host runs at the very end (below SMC), in the boot it ends.
# --reply-settle: siw misses an FPDU that arrives right after its MPA Reply (docs/interop.md), so
# the tester waits 200 ms there and the cases test what they were written for;
# mpa-responder-fpdu-right-after-reply sends at once and shows the race.
crash_case=mpa-initiator-reply-pd-too-long
passes=()
if want siw; then
  t0=$SECONDS
  siw_up
  timing "siw: siw, tcpdump and agent up" $((SECONDS - t0))

  cases_of() {  # cases_of SUITE ROLE: the ids of SUITE's cases of ROLE, without the crash case
    "$rdmaconf" cases --suite "$1" | awk -v role="$2" -v crash="$crash_case" '$NF == role && $1 != crash { print $1 }'
  }
  common=(--agent "http://127.0.0.1:$p_control" --token "$token" --target "127.0.0.1:$p_iut"
          --listen "127.0.0.1:$p_tester" --agent-connect-to "10.0.2.100:$p_tester" --agent-nat --time-scale 2
          --reply-settle 200)
  siw_pass() {  # siw_pass NAME CASE-ARGS...: one `rdmaconf run`, reports in $out/siw/NAME/
    local name=$1 rc=0; shift
    mkdir -p "$out/siw/$name"
    "$rdmaconf" run "${common[@]}" "$@" --json "$out/siw/$name/results.json" --junit "$out/siw/$name/junit.xml" \
      --html "$out/siw/$name/html" --pcap "$out/siw/cases" 2>&1 | tee -a "$out/siw/run.txt" || rc=$?
    echo "rdmaconf run ($name) exit status $rc" | tee -a "$out/siw/run.txt"
  }
  checked_pass() {  # checked_pass NAME CASE-ID...: siw_pass, then the kernel check (see kernel_ok)
    # After a BUG: the case it came with is named in siw/kernel.txt (the first whose capture was
    # written after the BUG's time, from the guest's uptime), the verdicts up to it stand, the guest
    # reboots and the cases after it run again as pass NAME-2 (NAME-3, ...).
    local name=$1 t=$SECONDS part=$1 attempt=1 up0 host0 bug_up bug_host i trigger f
    shift
    local ids=("$@")
    while [ ${#ids[@]} -gt 0 ]; do
      up0="$(guest 'cut -d" " -f1 /proc/uptime')"
      host0="$(date +%s.%N)"
      # shellcheck disable=SC2046  # one word per --case argument
      siw_pass "$part" $(printf -- '--case %s ' "${ids[@]}")
      passes+=("$part")
      kernel_ok "pass $part" && break
      bug_up="$(grep -m1 -E 'BUG:|kernel BUG at|Oops:|general protection fault' "$out/guest/dmesg-boot$boots.txt" \
                | sed -E 's/^\[ *([0-9.]+)\].*/\1/' || true)"
      bug_host="$(awk -v h="$host0" -v u0="$up0" -v u="$bug_up" 'BEGIN { printf "%.3f", h + (u - u0) }')"
      trigger=$((${#ids[@]} - 1))
      for i in "${!ids[@]}"; do
        f="$out/siw/cases/${ids[$i]}.pcapng"
        [ -e "$f" ] || continue
        if [[ ! "$bug_up" =~ ^[0-9.]+$ ]]; then trigger=$i; continue; fi  # no time known: the last case with a capture
        if awk -v a="$(stat -c %.3Y "$f")" -v b="$bug_host" 'BEGIN { exit !(a >= b) }'; then trigger=$i; break; fi
      done
      echo "  it came with case ${ids[$trigger]} (pass $part); $((${#ids[@]} - trigger - 1)) cases after it run again after a reboot" \
        | tee -a "$out/siw/kernel.txt" >&2
      echo "${ids[$trigger]}" >> "$out/siw/kernel-cases.txt"
      jq --argjson n $((trigger + 1)) '.cases |= .[:$n]' "$out/siw/$part/results.json" > "$out/siw/$part/results.kept.json" \
        && mv "$out/siw/$part/results.kept.json" "$out/siw/$part/results.json"
      ids=("${ids[@]:$((trigger + 1))}")
      reboot_guest
      attempt=$((attempt + 1))
      part="$name-$attempt"
    done
    timing "siw: pass $name" $((SECONDS - t))
  }

  if [ -n "$agent" ]; then
    # shellcheck disable=SC2046  # one word per --case argument
    for suite in mpa ddp rdmap; do checked_pass "$suite-responder" $(cases_of "$suite" responder); done
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
  kernel_ok "the rping replays" || reboot_guest
  timing "siw: rping replay" $((SECONDS - t0))

  # shellcheck disable=SC2046
  [ -n "$agent" ] && checked_pass initiator $(cases_of mpa initiator)

  guest 'kill -INT "$(cat tcpdump.pid)"; sleep 1; cat tcpdump.log' || true
  for f in rping.log agent-boot*.log; do [ -e "$run/share/$f" ] && cp "$run/share/$f" "$out/guest/"; done
fi

# --- SMC ----------------------------------------------------------------------------------------
# The CLC suite runs in the guest (ci/interop/README.md, "SMC"): tester in namespace "tester" and in
# the cgroup whose sockets carry the SMC TCP option, a second agent on rxe0's side for AF_SMC.
# The tester speaks as a peer on smc1 would: the namespace's prefix, the RoCEv2 GID of its address
# and smc1's MAC (learned per connection), the guest's UEID. Linux over rxe lacks SMC-R version 1
# (rxe has RoCE v2 GIDs only, and Linux's v1 needs a RoCE v1 GID: the agent reports it); Linux 6.1
# also lacks SMC v2.1 (its SMC_RELEASE is 0: declared here). Those cases are unimplemented
# (docs/interop.md). Linux 6.12 speaks release 2.1: smc-up.sh sets its two limits.
# Linux 6.1's client serves one first-contact Accept per boot over stock rxe (docs/interop.md): the
# responder-role cases run in one `rdmaconf run`, the client-role cases one run each; after each, a
# task still in Linux's SMC connect (it holds the client's first-contact lock for good) or a Confirm
# from Linux means the next client-role case gets a fresh boot (smc/boots.txt). 6.12's rxe has both
# causes fixed: its client-role cases run in one `rdmaconf run`, checked the same way after it
# (RDMACONF_SMC_CLIENT_RUNS=each|one overrides). `rdmaconf report` writes the parts (smc/parts/) as
# one run: smc/results.json, junit.xml, html/.
smc_lacks=()
[ "$KERNEL" = 6.1 ] && smc_lacks=(--iut-lacks smcv2.1)
client_runs="${RDMACONF_SMC_CLIENT_RUNS:-$([ "$KERNEL" = 6.1 ] && echo each || echo one)}"
if want smc; then
  t0=$SECONDS
  smc_parts=()
  smc_up() {  # rxe, PNET, UEID, the tester's namespace; tcpdump on smc0 and the AF_SMC agent
    guest 'bash /opt/rdmaconf/smc-up.sh' | tee -a "$out/guest/smc-up.txt"
    guest "setsid tcpdump -i smc0 -s 0 -U -n -w smc-boot$boots.pcap tcp > tcpdump-smc.log 2>&1 < /dev/null &
           echo \$! > tcpdump-smc.pid; sleep 2"
    guest "setsid rdmaconf-agent --backend rdma-core --device rxe0 --control 10.78.0.1:7501 --bind --token $token \
             > agent-smc-boot$boots.log 2>&1 < /dev/null &
           for i in \$(seq 60); do ss -Htln 'sport = :7501' | grep -q . && break; sleep 0.5; done; cat agent-smc-boot$boots.log"
  }
  smc_runs=0
  # --time-scale 2 as for siw (TCG): a Linux client building its first link took 3.2 s from the
  # Accept to its Confirm under load, past the tester's 2000 ms (docs/interop.md). 6.12's server-role
  # cases get 4: over 6.12's working rxe, Linux's server waits up to 5 s for the first link's LLC
  # answer after each Confirm it takes, holding the lock every Proposal's answer waits for
  # (docs/interop-6.12.md, "Linux SMC on 6.12"). RDMACONF_SMC_SERVER_TIME_SCALE overrides.
  smc_scale=2
  smc_server_scale="${RDMACONF_SMC_SERVER_TIME_SCALE:-$([ "$KERNEL" = 6.12 ] && echo 4 || echo 2)}"
  smc_pass() {  # smc_pass NAME CASE-ID...: one `rdmaconf run` of these clc cases in the guest, into smc/parts/NAME/
    # Ports of their own per run: the agent opens an AF_SMC listener at every run's start, and an
    # earlier run's can still hold its port (Linux's server side leaves a listen worker hanging).
    local name=$1 rc=0 clc_port=$((7502 + 2 * smc_runs)) listen_port=$((7503 + 2 * smc_runs)); shift
    smc_runs=$((smc_runs + 1))
    mkdir -p "$run/share/smc/$name"
    # shellcheck disable=SC2046  # one word per --case argument
    guest "echo \$\$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs
           exec ip netns exec tester rdmaconf run --agent http://10.78.0.1:7501 --token $token \
             --clc-target 10.78.0.1:$clc_port --listen 10.78.0.2:$listen_port --suite clc --cases-dir /opt/rdmaconf/cases \
             --clc-eid RDMACONF-INTEROP --clc-prefix auto --clc-gid auto --clc-mac auto ${smc_lacks[*]} \
             --time-scale $smc_scale $(printf -- '--case %s ' "$@") \
             --json smc/$name/results.json --junit smc/$name/junit.xml --html smc/$name/html" 3600 \
      2>&1 | tee -a "$out/smc/run.txt" || rc=$?
    echo "rdmaconf run ($name, boot $boots) exit status $rc" | tee -a "$out/smc/run.txt"
    if [ -e "$run/share/smc/$name/results.json" ]; then smc_parts+=("$name"); fi
  }
  client_blocked() {  # client_blocked CASE: true when Linux's client cannot serve another first contact in this boot
    # A task whose kernel stack is still in Linux's SMC connect (smc_connect, __smc_connect,
    # smc_connect_work, smc_connect_rdma) 10 s after the case holds smc_client_lgr_pending: over
    # stock rxe it never leaves smc_wr_drain_cq. A Confirm from Linux leads there too.
    local stuck confirm
    stuck="$(guest '[ -r /proc/1/stack ] || { echo "no /proc/PID/stack: cannot tell"; exit 0; }
                    for i in $(seq 20); do
                      s=$(grep -l smc_connect /proc/[0-9]*/task/[0-9]*/stack 2> /dev/null)
                      [ -n "$s" ] || exit 0
                      sleep 0.5
                    done
                    for f in $s; do echo "$f: $(grep -o "[a-z_0-9]*smc[a-z_0-9]*" "$f" | tr "\n" " ")"; done')" || true
    confirm="$(jq -r '[.cases[].frames[] | select(.from == "iut" and (.headline | startswith("<-- CLC confirm")))] | length' \
                 "$run/share/smc/$1/results.json" 2> /dev/null || echo 0)"
    if [ -z "$stuck" ] && [ "${confirm:-0}" = 0 ]; then return 1; fi
    echo "boot $boots, after $1: Linux sent ${confirm:-0} Confirm(s); tasks in its SMC connect 10 s later: ${stuck:-none}" \
      | tee -a "$out/smc/boots.txt" >&2
    return 0
  }
  smc_reboot() {
    local t=$SECONDS
    guest 'kill -INT "$(cat tcpdump-smc.pid)"; sleep 1' > /dev/null 2>&1 || true
    STOP_TIMEOUT=20 vm stop "$run" || true
    boot_guest
    smc_up
    timing "smc: reboot for a client-role case" $((SECONDS - t))
  }

  # SMC-D v2 over loopback-ism (6.12's smc.ko is built with CONFIG_SMC_LO): two AF_SMC sockets of
  # this guest, the capture on smc0 (6.12/smcd/smcd.pcap) and what analyze makes of it.
  smcd_capture() {
    local t=$SECONDS
    mkdir -p "$out/smcd"
    guest 'bash /opt/rdmaconf/smcd-pair.sh' 120 2>&1 | tee "$out/smcd/run.txt" || true
    if [ -s "$run/share/smcd.pcap" ]; then
      cp "$run/share/smcd.pcap" "$out/smcd/smcd.pcap"
      "$rdmaconf" analyze "$out/smcd/smcd.pcap" --json "$out/smcd/analyze.json" > "$out/smcd/analyze.txt" 2>&1 || true
      tail -1 "$out/smcd/analyze.txt"
    fi
    timing "smcd: AF_SMC pair over loopback-ism" $((SECONDS - t))
  }

  # SMC-R past CLC (6.12): smcr-probe, the reference link group and connection over rdma-core on
  # the tester's own rxe (smcr-up.sh: a veth pair in the root namespace, rxe1 for Linux, rxe2 for
  # the probe), against Linux in both roles (smcr-roce.sh); the probe's logs, the captures on smcr1
  # (6.12/smcr/) and what analyze makes of them. rxe of 6.1 does not bring an SMC-R link up.
  smcr_roce() {
    local t=$SECONDS p
    mkdir -p "$out/smcr"
    guest 'bash /opt/rdmaconf/smcr-up.sh' 60 2>&1 | tee "$out/smcr/up.txt" || true
    guest 'bash /opt/rdmaconf/smcr-roce.sh' 240 2>&1 | tee "$out/smcr/run.txt" || true
    for p in client server; do
      cp "$run/share/smcr-$p.txt" "$run/share/smcr-$p-linux.txt" "$out/smcr/" 2> /dev/null || true
      if [ -s "$run/share/smcr-$p.pcap" ]; then
        cp "$run/share/smcr-$p.pcap" "$out/smcr/"
        "$rdmaconf" analyze "$out/smcr/smcr-$p.pcap" --json "$out/smcr/analyze-$p.json" > "$out/smcr/analyze-$p.txt" 2>&1 || true
        tail -1 "$out/smcr/analyze-$p.txt"
      fi
    done
    timing "smcr: smcr-probe over RoCEv2, both roles" $((SECONDS - t))
    # The smcr suite live (smcr-suite.sh), both roles: rdmaconf run --roce-device rxe2 against
    # Linux's AF_SMC echo on rxe1, then with --listen against Linux's AF_SMC client; its reports and
    # capture beside the probe's (6.12/smcr/). RDMACONF_SMCR_CASES="ID ...": only these cases;
    # RDMACONF_SMCR_ROLES="responder|initiator": only that role; RDMACONF_SMCR_EACH=1: a run per case,
    # with the tasks Linux leaves stuck after each (smcr-suite-stuck.txt).
    t=$SECONDS
    rm -rf "$out/smcr/html" "$out/smcr/parts"
    guest "SMCR_SUITE_CASES='${RDMACONF_SMCR_CASES:-}' SMCR_SUITE_ROLES='${RDMACONF_SMCR_ROLES:-}' \
           SMCR_SUITE_EACH='${RDMACONF_SMCR_EACH:-0}' \
           bash /opt/rdmaconf/smcr-suite.sh" 5400 2>&1 | tee "$out/smcr/suite.txt" || true
    cp -r "$run/share/smcr-suite/." "$out/smcr/" 2> /dev/null || true
    cp "$run/share/smcr-suite-linux.txt" "$run"/share/smcr-suite-dmesg-*.txt "$run/share/smcr-suite-stuck.txt" \
      "$out/smcr/" 2> /dev/null || true
    cp "$run/share/smcr-suite-link2.pcap" "$out/smcr/" 2> /dev/null || true
    if [ -s "$run/share/smcr-suite.pcap" ]; then
      cp "$run/share/smcr-suite.pcap" "$out/smcr/"
      "$rdmaconf" analyze "$out/smcr/smcr-suite.pcap" --json "$out/smcr/analyze-suite.json" \
        > "$out/smcr/analyze-suite.txt" 2>&1 || true
      tail -1 "$out/smcr/analyze-suite.txt"
    fi
    timing "smcr: the smcr suite over RoCEv2 (rdmaconf run --roce-device)" $((SECONDS - t))
  }

  if [ -n "$agent" ]; then
    smc_up
    # The catalogue's clc cases by role (RDMACONF_SMC_CASES: only these).
    smc_ids() {
      "$rdmaconf" cases --suite clc | awk -v role="$1" -v only=" ${RDMACONF_SMC_CASES:-} " \
        '$NF == role && (only == "  " || index(only, " " $1 " ")) { print $1 }'
    }
    mapfile -t server_ids < <(smc_ids responder)
    mapfile -t client_ids < <(smc_ids initiator)
    if [ ${#server_ids[@]} -gt 0 ]; then smc_scale=$smc_server_scale smc_pass server "${server_ids[@]}"; fi
    timing "smc: setup and server-role cases" $((SECONDS - t0))
    t0=$SECONDS
    if [ "$client_runs" = one ] && [ ${#client_ids[@]} -gt 0 ]; then
      echo "boot $boots: ${client_ids[*]}" >> "$out/smc/boots.txt"
      smc_pass client "${client_ids[@]}"
      client_blocked client || true
    else
      blocked=0
      for id in "${client_ids[@]}"; do
        [ "$blocked" = 1 ] && smc_reboot
        echo "boot $boots: $id" >> "$out/smc/boots.txt"
        smc_pass "client-$id" "$id"
        blocked=0
        client_blocked "client-$id" && blocked=1
      done
    fi
    timing "smc: client-role cases (${#client_ids[@]}, $([ "$client_runs" = one ] && echo 'one run' || echo 'a run each'))" $((SECONDS - t0))
    guest 'kill -INT "$(cat tcpdump-smc.pid)"; sleep 1' || true
    # One report for the parts, in the order they ran.
    cp -r "$run/share/smc" "$out/smc/parts" 2> /dev/null || true
    parts=()
    for p in "${smc_parts[@]}"; do parts+=("$out/smc/parts/$p/results.json"); done
    "$rdmaconf" report "${parts[@]}" --cases-dir conformance/cases \
      --json "$out/smc/results.json" --junit "$out/smc/junit.xml" --html "$out/smc/html" 2>&1 | tee -a "$out/smc/run.txt" || true
    interop_findings smc
    mapfile -t pcaps < <(ls "$run"/share/smc-boot*.pcap 2> /dev/null)
    if [ ${#pcaps[@]} -gt 0 ]; then
      mergecap -w "$out/smc/live.pcap" "${pcaps[@]}"
      "$rdmaconf" analyze "$out/smc/live.pcap" --json "$out/smc/analyze.json" > "$out/smc/analyze.txt" 2>&1 || true
      tail -1 "$out/smc/analyze.txt"
    fi
    cp "$run"/share/agent-smc-boot*.log "$out/guest/" 2> /dev/null || true
    if [ "$KERNEL" = 6.12 ]; then smcd_capture; fi
    if [ "$KERNEL" = 6.12 ] && [ -n "$smcr_probe" ]; then smcr_roce; fi
  else
    echo "rdmaconf-agent is not built in this tree: the clc suite was not run against Linux SMC" | tee "$out/smc/run.txt"
    timing "smc: setup" $((SECONDS - t0))
  fi
fi

# --- siw: the crash case, last ------------------------------------------------------------------
if want siw && [ -n "$agent" ]; then
  t0=$SECONDS
  # The SMC part may have rebooted the guest: siw and its agent again, without a capture (as before).
  [ "${siw_boot:-0}" = "$boots" ] || siw_up nocapture
  siw_pass initiator-last --case "$crash_case"
  passes+=(initiator-last)
  kernel_ok "pass initiator-last ($crash_case)" || true
  timing "siw: $crash_case (last)" $((SECONDS - t0))
  # One report for all passes, written by `rdmaconf report` from the parts (a pass cut short by a
  # kernel BUG keeps only its cases up to the BUG), with the findings of the whole run.
  # shellcheck disable=SC2046
  "$rdmaconf" report $(for p in "${passes[@]}"; do ls "$out/siw/$p/results.json" 2> /dev/null; done) \
    --cases-dir conformance/cases --json "$out/siw/results.json" --junit "$out/siw/junit.xml" --html "$out/siw/html" \
    2>&1 | tee -a "$out/siw/run.txt" || true
  interop_findings siw
fi
if want siw; then
  # shellcheck disable=SC2012
  pcaps=($(ls "$run"/share/live-boot*.pcap 2> /dev/null))
  if [ ${#pcaps[@]} -gt 0 ]; then
    mergecap -w "$out/siw/live.pcap" "${pcaps[@]}"
    "$rdmaconf" analyze "$out/siw/live.pcap" --json "$out/siw/analyze.json" > "$out/siw/analyze.txt" 2>&1 || true
    tail -1 "$out/siw/analyze.txt"
  fi
  [ -e "$out/siw/kernel.txt" ] || echo "no kernel BUG or Oops in any pass" > "$out/siw/kernel.txt"
  for f in "$run"/share/agent-boot*.log; do [ -e "$f" ] && cp "$f" "$out/guest/"; done
fi

timing "total (this kernel)" $((SECONDS - t_start))
[ "${replay_failed:-0}" = 0 ] || { log "the paced rping replay did not match: see $out/siw/replay.txt"; exit 1; }
log "kernel $KERNEL: reports in $out"
