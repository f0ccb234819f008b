# `ci/interop.sh --fuzz MINUTES`: `rdmaconf fuzz` against siw in the guest through the agent (sourced by
# kernel-run.sh after the first boot; its helpers and variables are this file's). Leaves in
# $out/fuzz/ (reports/interop/<kernel>/fuzz/):
#   runN/fuzz.txt, fuzz.json  the fuzzer's console and JSON summary (every finding, its signature, when
#                           it was found, its minimized script); run2 ... when a run ended early (an IUT
#                           that did not come back without a kernel crash): the next seed, a fresh boot
#   runN/findings/M-CASE/   one folder per finding: the script, its captures, kernel.txt (the splat)
#   kernel.txt              every kernel crash the watcher saw, when, and the reboot after it
#   dmesg-crashN.txt        the guest's kernel log (or serial console, after a panic) at crash N
#   reproduce.txt           each finding of the IUT or its host (not of a rule broken) run alone on a
#                           fresh boot: did the kernel crash again
# The fuzzer reads crashes in the guest's kernel log through the agent (GET /v1/kernel-log) and waits
# (--revive) for the host to come back; a watcher here reboots the guest after each crash (the kernel
# log shows one, or the guest is gone after a panic), so the fuzzer minimizes across reboots and
# carries on. An IUT that stops answering without a crash ends a fuzzer's run after --revive (240 s);
# the guest then reboots and the next seed fuzzes for the time left. RDMACONF_FUZZ_EXCLUDE (globs, default the cases known to crash siw: docs/interop.md,
# "Kernel crashes"), RDMACONF_FUZZ_SEED (1), RDMACONF_FUZZ_MINIMIZE_RUNS (12: each run that crashes
# the kernel costs a reboot).
fz="$out/fuzz"
rm -rf "$fz"
mkdir -p "$fz"
bug_re='BUG:|kernel BUG at|Oops:|general protection fault|Kernel panic'
t_fuzz=$SECONDS
siw_up nocapture > /dev/null

# The lock (fd 9, below) orders the watcher's reboots and the loop's; the guest's qemu must not
# inherit it (it would hold the lock for as long as it runs), hence "9>&-" on every boot.
# The watcher: every 5 s the guest's kernel log; a crash there (or a guest gone) -> its log kept, a
# reboot with siw and the agent up again (the same token and ports: the fuzzer reconnects).
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
    local t=$SECONDS
    touch "$fz/.watching"
    STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
    { boot_guest > /dev/null 2>&1 9>&- && siw_up nocapture > /dev/null 2>&1 9>&-; } || echo "  reboot failed" | tee -a "$fz/kernel.txt" >&2
    rm -f "$fz/.watching"
    flock -u 9
    echo "  rebooted in $((SECONDS - t)) s" | tee -a "$fz/kernel.txt" >&2
  done
}
fuzz_watch &
watcher=$!

set -f  # the globs go to rdmaconf as they are
excludes=()
for g in ${RDMACONF_FUZZ_EXCLUDE:-mpa-p2p-* mpa-crc-error-*}; do excludes+=(--exclude "$g"); done
deadline=$((SECONDS + fuzz_minutes * 60))
round=0
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
        { boot_guest > /dev/null 2>&1 9>&- && siw_up nocapture > /dev/null 2>&1 9>&-; } || echo "run $round: the guest did not come up" >&2
      ) 9> "$fz/.lock"
    fi
  fi
  rc=0
  "$rdmaconf" fuzz --agent "http://127.0.0.1:$p_control" --token "$token" --target "127.0.0.1:$p_iut" \
    --seconds $((deadline - SECONDS)) --seed $((${RDMACONF_FUZZ_SEED:-1} + round - 1)) "${excludes[@]}" \
    --time-scale 2 --revive 240 --minimize-runs "${RDMACONF_FUZZ_MINIMIZE_RUNS:-12}" \
    --out "$d/findings" --json "$d/fuzz.json" 2>&1 | tee "$d/fuzz.txt" || rc=$?
  echo "rdmaconf fuzz exit status $rc" | tee -a "$d/fuzz.txt"
  [ "$rc" -le 1 ] || break  # a usage error or an agent it could not reach: no use going on
done
set +f
touch "$fz/.done"
wait "$watcher" || true
rm -f "$fz/.done" "$fz/.watching" "$fz/.lock"
timing "fuzz: $fuzz_minutes minutes of rdmaconf fuzz ($round runs)" $((SECONDS - t_fuzz))

# Each finding's script alone, on a fresh boot: does the kernel crash again? (The findings of a rule
# broken on the wire were reproduced by the fuzzer itself; they crash nothing.)
t0=$SECONDS
mapfile -t silent < <(jq -r '.findings[] | select(.kind != "rule-broken") | .folder' "$fz"/run*/fuzz.json 2> /dev/null)
for f in "${silent[@]}"; do
  c="$(ls "$f"/*.case 2> /dev/null | head -1)"
  [ -n "$c" ] || continue
  STOP_TIMEOUT=20 vm stop "$run" > /dev/null 2>&1 || true
  boot_guest > /dev/null 2>&1 && siw_up nocapture > /dev/null 2>&1 \
    || { echo "${c#"$fz"/}: the guest did not come up to run it" | tee -a "$fz/reproduce.txt"; continue; }
  "$rdmaconf" run --agent "http://127.0.0.1:$p_control" --token "$token" --target "127.0.0.1:$p_iut" --agent-nat \
    --time-scale 2 --case-file "$c" > "${c%.case}.alone.txt" 2>&1 || true
  sleep 5
  # (Whether siw still listens cannot be read here: `run --agent` closes the agent's listener at its end.)
  if kill -0 "$(cat "$run/qemu.pid" 2> /dev/null)" 2> /dev/null && dmesg="$(guest 'dmesg' 30 2> /dev/null)"; then :; else
    dmesg="$(cat "$run/console.log" 2> /dev/null)"
  fi
  if first="$(grep -m1 -E "$bug_re" <<< "$dmesg")"; then
    printf '%s\n' "$dmesg" > "${c%.case}.alone-dmesg.txt"
    echo "${c#"$fz"/}: crashes the guest again when run alone: $first" | tee -a "$fz/reproduce.txt"
  else
    echo "${c#"$fz"/}: no kernel crash when run alone ($(tail -1 "${c%.case}.alone.txt"))" | tee -a "$fz/reproduce.txt"
  fi
done
timing "fuzz: each finding's script alone on a fresh boot" $((SECONDS - t0))
