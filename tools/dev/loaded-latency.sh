#!/usr/bin/env bash
# Latency idle vs under load (--load-qps) in the lab: for each device and
# each N, an idle run and a loaded run of the same binary, one after the
# other (so that a drift of the guest shows in both), then a markdown table
# of p50/p99/p99.9 (usec) idle and loaded and the load's Gb/s. Run in the
# lab guest:
#   tools/rdma-lab -s $PWD -s $PWD/build -- bash $PWD/tools/dev/loaded-latency.sh $PWD/build [DEVS] [NS] [BINARY] [LOAD ARGS...]
# Defaults: rxe0 siw0, N = 1 4 16, rdma_read_lat, 64 KiB write load.
#
# Usage: loaded-latency.sh BUILD [DEVICES] [NS] [BINARY] [LOAD ARGS...]
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
set -uo pipefail
BUILD=${1:?usage: loaded-latency.sh BUILD [DEVICES] [NS] [BINARY] [LOAD ARGS...]}
DEVS=${2:-rxe0 siw0}
NS=${3:-1 4 16}
BINARY=${4:-rdma_read_lat}
shift $(( $# < 4 ? $# : 4 ))
LOAD_ARGS=("$@")
SECONDS_PER_RUN=${SECONDS_PER_RUN:-3}
out=$(mktemp -d)
. "$(dirname "$0")/device-address.sh"

# run DEV JSON CLIENT_ARGS...: one pair; the client's JSON line lands in JSON.
run() {
  local dev=$1 json=$2 port=$((20000 + RANDOM % 5000 * 2)); shift 2
  rm -f "$out/ready"
  "$BUILD/bench/$BINARY" -d "$dev" -p $port --ready-file "$out/ready" > /dev/null 2>&1 &
  local server=$!
  for _ in $(seq 100); do [ -s "$out/ready" ] && break; sleep 0.1; done
  if ! "$BUILD/bench/$BINARY" -d "$dev" -p $port -D "$SECONDS_PER_RUN" --json "$json" "$@" "$(addr_of "$dev")" \
      > "$out/client.txt" 2>&1; then
    echo "$BINARY on $dev $* failed:" >&2; cat "$out/client.txt" >&2
  fi
  wait $server
}

for dev in $DEVS; do
  for n in $NS; do
    run "$dev" "$out/$dev-$n-idle.json"
    run "$dev" "$out/$dev-$n-loaded.json" --load-qps "$n" "${LOAD_ARGS[@]}"
  done
done

python3 - "$out" "$BINARY" "$DEVS" "$NS" <<'PY'
import json, os, sys
out, binary, devs, ns = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
def line(path):
    try:
        return json.loads(open(path).readline())
    except (OSError, ValueError):
        return None
def fig(j, key):
    return f'{j["latency"][key]:.1f}' if j else "failed"
print(f"{binary}, latency in usec, idle / loaded (one run each, alternating)\n")
print("| device | load QPs | p50 idle | p50 loaded | p99 idle | p99 loaded | p99.9 idle | p99.9 loaded | load Gb/s |")
print("|---|---|---|---|---|---|---|---|---|")
for dev in devs:
    for n in ns:
        idle = line(os.path.join(out, f"{dev}-{n}-idle.json"))
        loaded = line(os.path.join(out, f"{dev}-{n}-loaded.json"))
        load = loaded.get("load") if loaded else None
        rate = f'{load["mean_Gbps"]:.3f} ± {load["stdev_Gbps"]:.3f} ({load["op"]} {load["bytes"]} B, {load["intervals"]} intervals)' if load else "-"
        print(f"| {dev} | {n} | {fig(idle, 'median_us')} | {fig(loaded, 'median_us')} | {fig(idle, 'p99_us')} | "
              f"{fig(loaded, 'p99_us')} | {fig(idle, 'p99_9_us')} | {fig(loaded, 'p99_9_us')} | {rate} |")
PY
