# `ci/interop.sh --fuzz MINUTES`: `rdmaconf fuzz` through the agent against siw and against Linux's SMC
# CLC server in the guest, MINUTES each (`--only siw|smc`: one of them). Sourced by kernel-run.sh after
# the first boot; its helpers and variables are this file's. Leaves in $out/fuzz/PART/
# (reports/interop/<kernel>/fuzz/{siw,smc}/):
#   runN/fuzz.txt, fuzz.json  the fuzzer's console and JSON summary (every finding, its signature, when
#                           it was found, its minimized script); run2 ... when a run ended early (an IUT
#                           that did not come back without a kernel crash): the next seed, a fresh boot
#   runN/findings/M-CASE/   one folder per finding: the script, its captures, kernel.txt (the splat)
#   runN/findings/restore.log  the fuzzer's restore command's output, one block per restore
#   restore-harness.txt     each restore the fuzzer asked for: when, and how long its reboot took
#   kernel.txt              every kernel crash the watcher saw, when, and the reboot after it
#   dmesg-crashN.txt        the guest's kernel log (or serial console, after a panic) at crash N
#   reproduce.txt           each finding of the IUT or its host (not of a rule broken) run alone on a
#                           fresh boot: its verdict, and did the kernel crash again; a finding that took
#                           several inputs (its folder's numbered scripts) runs them in order, -j 1
# The fuzzer runs on the host, so that it outlives the guest's kernel crashes: it reads them in the
# guest's kernel log through the agent (GET /v1/kernel-log) and waits (--revive) for the host to come
# back; a watcher here reboots the guest after each crash (the kernel log shows one, or the guest is
# gone after a panic), so the fuzzer minimizes across reboots and carries on. An IUT that stops
# answering without a crash is restored by the fuzzer's restore command (a reboot, below); one that does
# not answer within --revive after it (600 s: a reboot under TCG on a loaded host took 217 s, and the
# host must be back and the IUT up within it) ends the fuzzer's run; the guest then reboots and the
# next seed fuzzes for the time left.
#   siw: the MPA responder (siw_up: siw on eth0, the agent on siw0); RDMACONF_FUZZ_EXCLUDE (globs,
#        default the cases known to crash siw: docs/interop.md, "Kernel crashes").
#   smc: the CLC server (`--suite clc`): smc-up.sh's setup, the agent on rxe0 (its AF_SMC listener is
#        the IUT), and clc_relay, which carries the host's connections into the tester's namespace
#        and cgroup so that they reach Linux with the SMC TCP option, from the peer the tester's
#        --clc-* options describe (ci/interop/README.md, "Fuzzing Linux's CLC server");
#        RDMACONF_FUZZ_SMC_EXCLUDE (globs, default none).
# Both: RDMACONF_FUZZ_SEED (1), RDMACONF_FUZZ_MINIMIZE_RUNS (12: each run that crashes the kernel
# costs a reboot), RDMACONF_FUZZ_RESTORE: "reboot" (the default) gives the fuzzer a restore command
# (`--restore-command`) that reboots the guest and brings the part's IUT and the agent up, run after an
# IUT that stopped answering and before each try of its finding (or a kernel crash's), so that a finding of several inputs
# (siw's lost listener) is minimized; "snapshot" (siw only; smc falls back to "reboot"): every boot's disk
# is a qcow2 overlay, the guest is saved (vm.sh savevm) once siw and the agent are up, and each restore
# (the fuzzer's, and the watcher's after a kernel crash) brings that guest back with `loadvm`: seconds
# instead of the minutes of a reboot under TCG (a guest gone after a panic, or a loadvm that fails, is
# rebooted and saved again); "none": the fuzzer only waits for the IUT (--revive). Not a reload
# of siw: the lost listener's teardown (the agent's end) crashes 6.1's kernel in siw_destroy_listen and
# leaves siw in use, so only a reboot or the saved guest restores it (docs/interop.md, "Fuzzing siw").
# Each restore's steps go to fuzz/PART/restore-harness.txt, the fuzzer's log of its command to
# runN/findings/restore.log.
bug_re='BUG:|kernel BUG at|Oops:|general protection fault|Kernel panic'

# The CLC server's setup for fuzzing: what the live clc suite has (smc-up.sh), eth0's address and the
# agent's control channel on it, where the host's forwards reach them, a fixed MAC on the tester's interface (the peer
# --clc-mac names, the same after every reboot), and the relay from the forwarded port.
clc_peer_mac=02:78:00:00:00:02
smc_fuzz_up() {
  guest 'bash /opt/rdmaconf/smc-up.sh' >> "$out/guest/smc-up.txt" 2>&1
  guest "ip link set lo up; ip link set eth0 up; ip addr replace 10.0.2.15/24 dev eth0  # as siw-up.sh: the forwards' address
         ip -n tester link set smc1 address $clc_peer_mac
         setsid rdmaconf-agent --backend rdma-core --device rxe0 --control 10.0.2.15:7500 --bind --token $token \
           > agent-smc-boot$boots.log 2>&1 < /dev/null &
         for i in \$(seq 60); do ss -Htln 'sport = :7500' | grep -q . && break; sleep 0.5; done; cat agent-smc-boot$boots.log"
  guest "echo \$\$ > /sys/fs/cgroup/rdmaconf-tester/cgroup.procs
         setsid clc_relay 10.0.2.15 $p_iut tester 10.78.0.1 $p_iut > clc-relay-boot$boots.log 2>&1 < /dev/null &
         sleep 1; cat clc-relay-boot$boots.log"
}
# With the snapshot restore, the guest is saved once the part's IUT and the agent are up (vm.sh savevm),
# after every boot: the state each restore brings back.
part_up() {
  if [ "$part" = siw ]; then siw_up nocapture; else smc_fuzz_up; fi
  [ "$restore_mode" != snapshot ] || vm savevm "$run" ready
}

# The fuzzer's restore command (restore.sh, written by fuzz_part) asks fuzz_restorer, which has this
# harness's functions, to restore the part's IUT: a request file, then the restorer's exit status in
# a status file. The lock orders the restorer's reboots with the watcher's.
restore_part() {
  local t=$SECONDS
  # The snapshot taken after this boot's part_up, while qemu runs; else (or when loadvm fails) a reboot.
  if [ "$restore_mode" = snapshot ] && kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null; then
    echo "$(date -u +%H:%M:%S) restore: loadvm"
    if vm loadvm "$run" ready 2>&1 9>&-; then
      echo "  restored in $((SECONDS - t)) s"
      return 0
    fi
    echo "  loadvm failed: a reboot instead"
  fi
  echo "$(date -u +%H:%M:%S) restore: a reboot"
  STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
  boot_guest > /dev/null 2>&1 9>&- && part_up > /dev/null 2>&1 9>&- || { echo "  the reboot failed"; return 1; }
  echo "  rebooted in $((SECONDS - t)) s"
}
fuzz_restorer() {
  local rc
  while [ ! -e "$fz/.done" ]; do
    if [ -e "$fz/.restore-request" ]; then
      rm -f "$fz/.restore-request"
      rc=0
      exec 9> "$fz/.lock"
      flock 9
      restore_part >> "$fz/restore-harness.txt" 2>&1 || rc=$?
      flock -u 9
      tail -2 "$fz/restore-harness.txt" > "$fz/.restore-said"
      echo "$rc" > "$fz/.restore-status"
    fi
    sleep 0.5
  done
}

# The lock (fd 9, below) orders the watcher's reboots and the loop's; the guest's qemu must not
# inherit it (it would hold the lock for as long as it runs), hence "9>&-" on every boot.
# The watcher: every 5 s the guest's kernel log; a crash there (or a guest gone) -> its log kept, a
# reboot with the part's IUT and the agent up again (the same token and ports: the fuzzer reconnects).
fuzz_watch() {
  local n=0 dmesg first alive
  while [ ! -e "$fz/.done" ]; do
    sleep 5
    [ -e "$fz/.done" ] && break
    alive=1
    if kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null && dmesg="$(guest 'dmesg' 30 2> /dev/null)"; then
      first="$(grep -m1 -E "$bug_re" <<< "$dmesg")" || continue
    else
      alive=0
      dmesg="$(cat "$run/console.log" 2> /dev/null)"
      first="$(grep -m1 -E "$bug_re" <<< "$dmesg")" || first="the guest is gone (no BUG line on the console)"
    fi
    # The loop below may be rebooting the guest itself (an IUT that did not come back): the lock
    # orders the two; once it is ours, a guest that is up with a clean log was rebooted by the loop.
    exec 9> "$fz/.lock"
    flock 9
    if kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null && [ -e "$run/share/ready" ] \
       && ! guest 'dmesg' 30 2> /dev/null | grep -q -E "$bug_re"; then
      flock -u 9
      continue
    fi
    n=$((n + 1))
    printf '%s\n' "$dmesg" > "$fz/dmesg-crash$n.txt"
    echo "$(date -u +%H:%M:%S) ($((SECONDS - t_fuzz)) s) crash $n$([ $alive = 0 ] && echo ', the guest is gone'): $first" \
      | tee -a "$fz/kernel.txt" >&2
    touch "$fz/.watching"
    # A reboot, or with the snapshot restore the guest as saved (a guest gone after a panic: a reboot).
    restore_part 2>&1 | sed 's/^[0-9:]* restore: /  restore: /' | tee -a "$fz/kernel.txt" >&2
    rm -f "$fz/.watching"
    flock -u 9
  done
}

# What each part's fuzzer and its reproducers are given. The CLC server's peer is the one the live
# clc suite's tester is (docs/interop.md, "Linux SMC: the clc suite"), named here since the tester's
# own connection (host loopback) shows none of it: the namespace's prefix, the RoCEv2 GID of its
# address, its interface's MAC, the guest's UEID. 6.1 lacks SMC v2.1. --time-scale 4 on both kernels:
# Linux's SMC-R server holds the lock every Proposal's answer waits for from its Accept until the
# Confirm comes or its CLC wait (6 s) ends, and a fuzz case that sends no Confirm keeps the next
# connection's Proposal waiting that long (at 2 the liveness check's 4 s made that a finding); 6.12's
# server holds it up to 5 s more after each Confirm, waiting for the first link's LLC answer.
part_args() {
  if [ "$part" = siw ]; then
    part_fuzz=(--target "127.0.0.1:$p_iut" --time-scale 2)
    part_run=(--target "127.0.0.1:$p_iut" --time-scale 2)
    part_exclude="${RDMACONF_FUZZ_EXCLUDE:-mpa-p2p-* mpa-crc-error-*}"
  else
    local scale=4 ident=(--clc-eid RDMACONF-INTEROP --clc-prefix 10.78.0.0/24 --clc-gid ::ffff:10.78.0.2 --clc-mac "$clc_peer_mac")
    [ "$KERNEL" = 6.1 ] && ident+=(--iut-lacks smcv2.1)
    part_fuzz=(--suite clc --target "127.0.0.1:$p_iut" "${ident[@]}" --time-scale "$scale")
    part_run=(--suite clc --clc-target "127.0.0.1:$p_iut" "${ident[@]}" --time-scale "$scale")
    part_exclude="${RDMACONF_FUZZ_SMC_EXCLUDE:-}"
  fi
}

# fuzz_part PART: MINUTES of fuzzing PART on the guest as it is (PART's IUT not set up yet), then each
# finding's script alone on a fresh boot.
fuzz_part() {
  part=$1
  fz="$out/fuzz/$part"
  rm -rf "$fz"  # a part's fuzz run replaces its own folder only
  mkdir -p "$fz"
  t_fuzz=$SECONDS
  # How the fuzzer's restore command restores the part (RDMACONF_FUZZ_RESTORE): snapshot is for siw
  # (smc's relay and agent run from the shares, which a save needs left: a reboot there).
  restore_mode="${RDMACONF_FUZZ_RESTORE:-reboot}"
  [ "$restore_mode" != snapshot ] || [ "$part" = siw ] || restore_mode=reboot
  part_args
  part_up > "$fz/up.txt" 2>&1
  fuzz_watch &
  local watcher=$! restorer="" excludes=() g deadline round=0 d rc restore=()
  if [ "$restore_mode" != none ]; then
    fuzz_restorer &
    restorer=$!
    cat > "$fz/restore.sh" << EOF
# rdmaconf fuzz --restore-command: asks ci/interop/fuzz.sh's restorer to restore the guest's $part
rm -f "$fz/.restore-status"
touch "$fz/.restore-request"
while [ ! -e "$fz/.restore-status" ]; do sleep 0.5; done
cat "$fz/.restore-said"
exit "\$(cat "$fz/.restore-status")"
EOF
    # A reboot under TCG took up to 217 s; a boot that hangs is ended at 900 s.
    restore=(--restore-command "sh $fz/restore.sh" --restore-timeout 900)
  fi
  set -f  # the globs go to rdmaconf as they are
  for g in $part_exclude; do excludes+=(--exclude "$g"); done
  set +f
  deadline=$((SECONDS + fuzz_minutes * 60))
  while [ $((deadline - SECONDS)) -ge 60 ]; do
    round=$((round + 1))
    d="$fz/run$round"
    mkdir -p "$d"
    if [ "$round" -gt 1 ]; then  # the last run ended on an IUT that did not come back: a fresh boot
      if [ -e "$fz/.watching" ]; then  # the watcher is rebooting it already
        while [ -e "$fz/.watching" ]; do sleep 2; done
      else
        (
          flock 9
          STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
          { boot_guest > /dev/null 2>&1 9>&- && part_up > /dev/null 2>&1 9>&-; } || echo "run $round: the guest did not come up" >&2
        ) 9> "$fz/.lock"
      fi
      # The reboot took its time (minutes under TCG): what is left may be too little for a run.
      [ $((deadline - SECONDS)) -ge 60 ] || { rmdir "$d" 2> /dev/null; round=$((round - 1)); break; }
    fi
    rc=0
    "$rdmaconf" fuzz --agent "http://127.0.0.1:$p_control" --token "$token" "${part_fuzz[@]}" \
      --seconds $((deadline - SECONDS)) --seed $((${RDMACONF_FUZZ_SEED:-1} + round - 1)) "${excludes[@]}" \
      --revive 600 --minimize-runs "${RDMACONF_FUZZ_MINIMIZE_RUNS:-12}" "${restore[@]}" \
      --out "$d/findings" --json "$d/fuzz.json" 2>&1 | tee "$d/fuzz.txt" || rc=$?
    echo "rdmaconf fuzz exit status $rc" | tee -a "$d/fuzz.txt"
    [ "$rc" -le 1 ] || break  # a usage error or an agent it could not reach: no use going on
  done
  touch "$fz/.done"
  wait "$watcher" || true
  [ -z "$restorer" ] || wait "$restorer" || true
  rm -f "$fz/.done" "$fz/.watching" "$fz/.lock" "$fz/.restore-request" "$fz/.restore-status" "$fz/.restore-said"
  timing "fuzz $part: $fuzz_minutes minutes of rdmaconf fuzz ($round runs)" $((SECONDS - t_fuzz))

  # Each finding's script alone, on a fresh boot: its verdict, and does the kernel crash again? (The
  # findings of a rule broken on the wire were reproduced by the fuzzer itself; they crash nothing.)
  # A finding that took several inputs has them numbered in its folder (01-..., 02-...): they run in
  # that order, one at a time, as its reproduce line says.
  local t0=$SECONDS f c dmesg first n warn
  local silent=() scripts=() files=()
  mapfile -t silent < <(jq -r '.findings[] | select(.kind != "rule-broken") | .folder' "$fz"/run*/fuzz.json 2> /dev/null)
  for f in "${silent[@]}"; do
    mapfile -t scripts < <(ls "$f"/*.case 2> /dev/null | sort)
    [ "${#scripts[@]}" -gt 0 ] || continue
    c="${scripts[-1]}" n=${#scripts[@]} files=()
    for g in "${scripts[@]}"; do files+=(--case-file "$g"); done
    STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
    boot_guest > /dev/null 2>&1 && part_up > /dev/null 2>&1 \
      || { echo "${c#"$fz"/}: the guest did not come up to run it" | tee -a "$fz/reproduce.txt"; continue; }
    "$rdmaconf" run --agent "http://127.0.0.1:$p_control" --token "$token" "${part_run[@]}" --agent-nat -j 1 \
      "${files[@]}" > "${c%.case}.alone.txt" 2>&1 || true
    sleep 5
    # (Whether siw still listens cannot be read here: `run --agent` closes the agent's listener at its end.)
    if kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null && dmesg="$(guest 'dmesg' 30 2> /dev/null)"; then :; else
      dmesg="$(cat "$run/console.log" 2> /dev/null)"
    fi
    [ "$n" -gt 1 ] && c="$c (the last of $n inputs)"
    if first="$(grep -m1 -E "$bug_re" <<< "$dmesg")"; then
      printf '%s\n' "$dmesg" > "${scripts[-1]%.case}.alone-dmesg.txt"
      echo "${c#"$fz"/}: crashes the guest again when run alone: $first" | tee -a "$fz/reproduce.txt"
    else
      # The run's summary line (its verdict), not the last line (findings' reproduce hints); a
      # kernel warning (siw's lost listener torn down: a refcount underflow) is said too.
      warn="$(grep -m1 -E 'WARNING:|refcount_t:' <<< "$dmesg")" || warn=""
      [ -n "$warn" ] && printf '%s\n' "$dmesg" > "${scripts[-1]%.case}.alone-dmesg.txt"
      echo "${c#"$fz"/}: no kernel crash when run alone ($(grep -m1 -E '^rdmaconf run: [0-9]+ cases' \
        "${scripts[-1]%.case}.alone.txt" || tail -1 "${scripts[-1]%.case}.alone.txt"))${warn:+; the kernel warned: $warn}" \
        | tee -a "$fz/reproduce.txt"
    fi
  done
  timing "fuzz $part: each finding's script alone on a fresh boot" $((SECONDS - t0))
}

first_part=1
for p in siw smc; do
  want "$p" || continue
  if [ "$first_part" = 0 ]; then  # the part before left its IUT (and maybe its findings) in this boot
    STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
    boot_guest
  fi
  first_part=0
  fuzz_part "$p"
done
