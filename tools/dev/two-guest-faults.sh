#!/usr/bin/env bash
# Cross-kernel fault cells, once: run in both guests of the two-guest lab
# (shared/soft-rdma-lab/run-lab-pair.reference.sh --pair), B serving and A
# the client, over the qemu-private link (rxe0 on eth1, siw0 on eth2):
#   run-lab-pair.reference.sh --pair -s $PWD -t 900 -- \
#     "source tools/dev/two-guest-faults.sh build/bench" "source tools/dev/two-guest-faults.sh build/bench"
# (sourced: the lab_post, lab_wait and lab_wait_listen helpers are functions of the guest shell)
# For write_bw and read_lat on each device: the server killed (SIGKILL)
# mid-run, and B's link taken down mid-run (a cable pull: RDMA and control
# both cut). Prints, per cell, how long each side took to exit after the
# fault and its last line. Investigation only; the lab tier's fault matrix
# (tests/lab/fault_matrix_test.cpp) is the test.
#
# Usage: source two-guest-faults.sh BIN_DIR [ONLY] (in both guests)
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
set -u
BIN=$(realpath "$1") ONLY=${2:-}  # ONLY: run just the cells that mention it (e.g. siw0)
cells=(
  "rdma_write_bw rxe0 eth1 sigkill" "rdma_write_bw rxe0 eth1 linkdown"
  "rdma_read_lat rxe0 eth1 sigkill" "rdma_read_lat rxe0 eth1 linkdown"
  "rdma_write_bw siw0 eth2 sigkill" "rdma_write_bw siw0 eth2 linkdown"
  "rdma_read_lat siw0 eth2 sigkill" "rdma_read_lat siw0 eth2 linkdown"
)
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | xargs printf "%.1f"; }
# wait_exit PID LIMIT LOG: sets rc (the exit status, or "running" after LIMIT
# seconds) and said (seconds until LOG first held "error:").
wait_exit() {
  local start; start=$(now); rc=running said=never
  for _ in $(seq $(($2 * 10))); do
    [ "$said" = never ] && grep -q "error:" "$3" && said=$(since "$start")
    kill -0 "$1" 2>/dev/null || { wait "$1"; rc=$?; return; }
    sleep 0.1
  done
}

i=0
for cell in "${cells[@]}"; do
  read -r binary dev netdev fault <<< "$cell"
  i=$((i + 1)); port=$((24000 + 2 * i)) log=/tmp/cell$i.log
  [ -n "$ONLY" ] && [ "${cell/$ONLY/}" = "$cell" ] && continue
  peer=$([ "$dev" = rxe0 ] && echo "$PEER_RXE_IP" || echo "$PEER_SIW_IP")
  if [ "$LAB_ROLE" = b ]; then
    "$BIN/$binary" -d "$dev" -p $port --timeout 2 > $log 2>&1 &
    server=$!
    lab_wait_listen $port 30; lab_post ready$i; lab_wait started$i 60
    t0=$(now)
    if [ "$fault" = sigkill ]; then kill -9 $server; wait $server 2>/dev/null
    else
      ip link set "$netdev" down
      wait_exit $server 60 $log
      echo "cell $i $cell: server said why after $said s, rc=$rc after $(since "$t0") s: $(tail -1 $log)"
      sleep 8; ip link set "$netdev" up; sleep 5  # A's side ends too, then the port comes back
    fi
    lab_post done$i
  else
    lab_wait ready$i 60
    size=$([ "${binary%_bw}" != "$binary" ] && echo "-s 2")
    "$BIN/$binary" -d "$dev" -p $port --timeout 2 -n 10000000 $size "$peer" > $log 2>&1 &
    client=$!
    for _ in $(seq 300); do grep -q "#bytes" $log && break; sleep 0.1; done
    sleep 1; lab_post started$i; t0=$(now)
    wait_exit $client 60 $log
    echo "cell $i $cell: client said why after $said s, rc=$rc after $(since "$t0") s: $(tail -1 $log)"
    [ "$rc" = running ] && kill -9 $client
    lab_wait done$i 120
  fi
done
