#!/usr/bin/env bash
# Demonstrates tests/lab/sweep_faults.sh in the lab guest with the pair
# binaries and prints what it measured:
#   flock /tmp/rdmabench-lab.lock tools/rdma-lab -s $PWD -s BUILD -t 600 -- \
#     bash $PWD/tools/dev/sweep-faults-check.sh BUILD
# 1. why not aliases on eth0: rdma_write_bw between two aliases of rxe0, and
#    how many bytes lo and eth0 carried meanwhile;
# 2. four hosts; rdma_write_bw between normal hosts, then with host 4 slow,
#    then with the link 1-2 broken (client --timeout 2), then cleared;
# 3. two siw hosts: rping (source bound) normal and across a broken link,
#    and rdma_write_bw -R, whose client binds no source address.
# SECTIONS="siw_hosts" (say) runs only the named ones. Investigation only: rdma_sweep's lab test is the test.
#
# Usage: sweep-faults-check.sh BUILD_DIR
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
set -u
BIN=$(realpath "${1:?usage: sweep-faults-check.sh BUILD_DIR}")/bench
HERE=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
# shellcheck source=../../tests/lab/sweep_faults.sh
source "$HERE/../../tests/lab/sweep_faults.sh"
ITERS=${ITERS:-300} SIZE=65536 PORT=21000

now() { date +%s.%N; }
secs_since() { echo "$(now) - $1" | bc | xargs printf "%.2f"; }
bytes() { cat "/sys/class/net/$1/statistics/$2_bytes"; }

# Each line of stdin with the time it came in front (EPOCHREALTIME: no fork
# per line; the client's stdout is line-buffered by stdbuf).
stamp() { while IFS= read -r line; do echo "$EPOCHREALTIME $line"; done; }

# pair LABEL CDEV CGID SDEV SGID SADDR [CLIENT OPTIONS...]: one rdma_write_bw
# pair; prints the client's average MB/s, its seconds, its exit status, and
# on failure its error and how long after its table header (the connection
# made, the first size starting) it came.
pair() {
  local label=$1 cdev=$2 cgid=$3 sdev=$4 sgid=$5 saddr=$6; shift 6
  local ready=/tmp/ready.$PORT slog=/tmp/server.$PORT clog=/tmp/client.$PORT
  local spid start rc bw tries=100
  PORT=$((PORT + 2))
  rm -f "$ready"
  "$BIN/rdma_write_bw" -d "$sdev" -x "$sgid" --bind "$saddr" -p "$PORT" -s $SIZE -n "$ITERS" \
    --ready-file "$ready" >"$slog" 2>&1 &
  spid=$!
  while [ ! -s "$ready" ] && [ "$tries" -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
  start=$(now)
  timeout 120 stdbuf -oL "$BIN/rdma_write_bw" -d "$cdev" -x "$cgid" -p "$PORT" -s $SIZE \
    -n "$ITERS" "$@" "$saddr" 2>&1 | stamp >"$clog"
  rc=${PIPESTATUS[0]}
  local took; took=$(secs_since "$start")
  bw=$(awk -v s=$SIZE '$2 == s && NF >= 5 { print $5 }' "$clog")
  printf '%-34s %9s MB/s %7ss rc=%s\n' "$label" "${bw:--}" "$took" "$rc"
  if [ "$rc" != 0 ]; then
    echo "    client: $( (grep -m1 'error' "$clog" || tail -n1 "$clog") | cut -d' ' -f2-)"
    awk '$2 == "#bytes" { h = $1 } /error/ && !e { e = $1 }
         END { if (h != "" && e != "") printf "    error %.2f s after the table header\n", e - h }' "$clog"
  fi
  tries=50
  while kill -0 "$spid" 2>/dev/null && [ "$tries" -gt 0 ]; do sleep 0.1; tries=$((tries - 1)); done
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  LAST_BW=${bw:-0}
}

# host_pair LABEL C S [CLIENT OPTIONS...]: pair between hosts C and S (1-based),
# with how many bytes C's veth sent (proof that the traffic left through it).
host_pair() {
  local label=$1 ch=$2 c=$(($2 - 1)) s=$(($3 - 1)) tx; shift 3
  tx=$(bytes "swh$ch" tx)
  pair "$label" "${SWEEP_DEVS[$c]}" "${SWEEP_GIDS[$c]}" "${SWEEP_DEVS[$s]}" "${SWEEP_GIDS[$s]}" \
    "${SWEEP_ADDRS[$s]}" "$@"
  echo "    swh$ch sent $(( $(bytes "swh$ch" tx) - tx )) bytes"
}

ratio() { echo "scale=3; $1 / $2" | bc; }

aliases_on_eth0() {
  echo "== 1. two IP aliases on eth0 (rxe0), -n $ITERS x $SIZE B"
  local start; start=$(now)
  ip addr add 10.0.2.101/24 dev eth0 && ip addr add 10.0.2.102/24 dev eth0
  local ga gb; ga=$(sweep_wait_gid rxe0 10.0.2.101) && gb=$(sweep_wait_gid rxe0 10.0.2.102) || return 1
  echo "GIDs on rxe0: 10.0.2.101 -> index $ga, 10.0.2.102 -> index $gb ($(secs_since "$start") s)"
  local lo eth; lo=$(bytes lo tx) eth=$(bytes eth0 tx)
  pair "rxe0 .101 -> .102" rxe0 "$ga" rxe0 "$gb" 10.0.2.102
  echo "    meanwhile lo sent $(( $(bytes lo tx) - lo )) bytes, eth0 $(( $(bytes eth0 tx) - eth )) bytes"
  ip addr del 10.0.2.101/24 dev eth0; ip addr del 10.0.2.102/24 dev eth0
}

hosts_and_faults() {
  echo "== 2. four hosts (veth + rxe each, one bridge)"
  local start; start=$(now)
  sweep_add_hosts 4 || return 1
  echo "ready in $(secs_since "$start") s; SWEEP_HOSTS=$SWEEP_HOSTS"
  host_pair "normal 1 -> 2" 1 2; local base=$LAST_BW
  host_pair "normal 3 -> 4" 3 4
  echo "== slow node ${SWEEP_ADDRS[3]} (netem delay $SWEEP_SLOW_DELAY each way)"
  sweep_slow_node "${SWEEP_ADDRS[3]}" || return 1
  host_pair "slow: 1 -> 4" 1 4; echo "    ratio to normal 1 -> 2: $(ratio "$LAST_BW" "$base")"
  host_pair "slow: 4 -> 2" 4 2; echo "    ratio to normal 1 -> 2: $(ratio "$LAST_BW" "$base")"
  host_pair "untouched: 1 -> 2" 1 2; echo "    ratio to normal 1 -> 2: $(ratio "$LAST_BW" "$base")"
  sweep_clear_faults
  echo "== broken link ${SWEEP_ADDRS[0]} - ${SWEEP_ADDRS[1]}"
  sweep_break_link "${SWEEP_ADDRS[0]}" "${SWEEP_ADDRS[1]}" || return 1
  host_pair "broken: 1 -> 2 (--timeout 2)" 1 2 --timeout 2
  host_pair "broken: 2 -> 1 (--timeout 2)" 2 1 --timeout 2
  host_pair "broken: 1 -> 2 (--timeout 10)" 1 2
  host_pair "untouched: 1 -> 3" 1 3
  host_pair "untouched: 3 -> 2" 3 2
  tc -s filter show dev swh1 | grep -E 'match|rule hit|Sent' | sed 's/^/    /'
  echo "== cleared"
  sweep_clear_faults
  host_pair "cleared: 1 -> 2" 1 2; echo "    ratio to normal 1 -> 2: $(ratio "$LAST_BW" "$base")"
  sweep_remove_hosts
  echo "after removal: $(ls /sys/class/infiniband | tr '\n' ' '); rule 0: $(ip rule show pref 0)"
}

# rping_pair PORT SECONDS: rping client from host 1 to host 2, 100 pings of
# 1000 B (-S 60000 hung at connect here, not chased), its source bound (-I);
# prints its exit status, its seconds and how many bytes swh1 and lo sent.
rping_pair() {
  local lo sw start rc spid
  lo=$(bytes lo tx) sw=$(bytes swh1 tx)
  rping -s -a "${SWEEP_ADDRS[1]}" -p "$1" -C 100 -S 1000 >/dev/null 2>&1 & spid=$!
  sleep 1
  start=$(now)
  timeout "$2" rping -c -a "${SWEEP_ADDRS[1]}" -I "${SWEEP_ADDRS[0]}" -p "$1" -C 100 -S 1000 >/dev/null 2>&1
  rc=$?
  echo "    rc=$rc in $(secs_since "$start") s; swh1 sent $(( $(bytes swh1 tx) - sw )), lo $(( $(bytes lo tx) - lo )) bytes"
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
}

siw_hosts() {
  echo "== 3. two siw hosts (SWEEP_LINK_TYPE=siw)"
  SWEEP_LINK_TYPE=siw sweep_add_hosts 2 || return 1
  echo "rping ${SWEEP_ADDRS[0]} -> ${SWEEP_ADDRS[1]}, normal:"; rping_pair 23000 30
  sweep_break_link "${SWEEP_ADDRS[0]}" "${SWEEP_ADDRS[1]}"
  echo "rping across the broken link (killed after 20 s):"; rping_pair 23002 20
  sweep_clear_faults
  echo "rdma_write_bw -R without a source address (rdma_cm picks the device):"
  pair "siw 1 -> 2, -R" swsiw1 0 swsiw2 0 "${SWEEP_ADDRS[1]}" -R
  sweep_remove_hosts
}

for section in ${SECTIONS:-aliases_on_eth0 hosts_and_faults siw_hosts}; do "$section"; done
