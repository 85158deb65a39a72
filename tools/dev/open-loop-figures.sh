#!/usr/bin/env bash
# Figures for open-loop latency (--rate) in the lab: rdma_read_lat's
# achieved / target rate at three rates, then a run whose client is stopped
# for 200 ms 1.5 s in, open loop beside closed loop. Run in the lab guest:
#   tools/rdma-lab -s $PWD -s $PWD/build -- bash $PWD/tools/dev/open-loop-figures.sh $PWD/build [DEVS]
# Prints one line per run: device, mode, rate, achieved/target, response
# p50/p99/p99.9/max, service p99, late messages.
#
# Usage: open-loop-figures.sh BUILD [DEVICES]
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
set -uo pipefail
BUILD=${1:?usage: open-loop-figures.sh BUILD [DEVICES]}
DEVS=${2:-rxe0 siw0}
out=$(mktemp -d)
. "$(dirname "$0")/device-address.sh"

# run DEV LABEL STALL CLIENT_ARGS...: one pair; STALL=1 stops the client for 200 ms.
run() {
  local dev=$1 label=$2 stall=$3 port=$((20000 + RANDOM % 5000 * 2)); shift 3
  rm -f "$out/ready" "$out/c.json"
  "$BUILD/bench/rdma_read_lat" -d "$dev" -p $port --ready-file "$out/ready" > /dev/null 2>&1 &
  local server=$!
  for _ in $(seq 100); do [ -s "$out/ready" ] && break; sleep 0.1; done
  "$BUILD/bench/rdma_read_lat" -d "$dev" -p $port --json "$out/c.json" "$@" "$(addr_of "$dev")" > "$out/c.txt" 2>&1 &
  local client=$!
  if [ "$stall" = 1 ]; then
    for _ in $(seq 300); do grep -q '#bytes' "$out/c.txt" && break; sleep 0.1; done
    sleep 1.5; kill -STOP $client; sleep 0.2; kill -CONT $client
  fi
  wait $client; wait $server
  python3 - "$out/c.json" "$dev" "$label" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).readline())
l, o = j["latency"], j.get("open_loop")
ratio = f'{o["achieved_to_target"]:.4f}' if o else "-"
service = f'{o["service"]["p99_us"]:.1f}' if o else "-"
late = o["late"]["messages"] if o else "-"
print(f'{sys.argv[2]:5} {sys.argv[3]:22} ratio {ratio:7} response p50 {l["median_us"]:9.1f} p99 {l["p99_us"]:9.1f} '
      f'p99.9 {l["p99_9_us"]:9.1f} max {l["max_us"]:9.1f} | service p99 {service:>7} | late {late} of {l["samples"]}')
PY
}

for dev in $DEVS; do
  for rate in 500 1000 2000; do run "$dev" "open $rate/s" 0 -D 3 --rate $rate; done
  run "$dev" "closed" 0 -D 3
  run "$dev" "open 1000/s, 200ms stop" 1 -D 4 --rate 1000
  run "$dev" "closed, 200ms stop" 1 -D 4
done
