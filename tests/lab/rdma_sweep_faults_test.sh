#!/usr/bin/env bash
# rdma_sweep must name exactly the node and the link that are bad. In one
# lab guest, six "hosts" (a veth, an address and an rxe device each:
# tests/lab/sweep_faults.sh says why not IP aliases), one rank each; host 6
# is made slow (a 30 ms round trip: netem delay on its veth, with -t 4 in
# flight), the link between hosts 1 and 2 is cut (its RDMA packets dropped
# both ways) and the link between hosts 3 and 4 loses some of its packets
# (netem loss both ways), which its bandwidth hides and its sequence-error
# counters show. A pairwise write_bw sweep with its re-test pass must exit
# non-zero and name: node rank 5, link rank 0 - rank 1, the silent degrader
# rank 2 - rank 3, and no other suspect. RDMABENCH_SWEEP_KEEP=DIR keeps the report.
# Exits 77 (skipped) outside the lab guest or without mpirun or tc.
set -uo pipefail
SWEEP=${1:?usage: rdma_sweep_faults_test.sh PATH/TO/rdma_sweep}
HERE=$(cd "$(dirname "$0")" && pwd)
HOSTS=6
LOSS=${RDMABENCH_SWEEP_LOSS:-0.5%}
[ -e /sys/class/infiniband/rxe0 ] || { echo "SKIPPED: needs the lab guest (run inside tools/rdma-lab)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIPPED: no mpirun (tools/install-deps sweep installs openmpi-bin)"; exit 77; }
command -v tc >/dev/null || { echo "SKIPPED: no tc (iproute2)"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
export MPLCONFIGDIR=$(dirname "$SWEEP")/../mplconfig
mkdir -p "$MPLCONFIGDIR"
if [ -n "${RDMABENCH_SWEEP_KEEP:-}" ]; then
  out=$RDMABENCH_SWEEP_KEEP; rm -rf "$out"
else
  out=$(mktemp -d)/faults
fi
# shellcheck source=sweep_faults.sh
source "$HERE/sweep_faults.sh"
trap 'sweep_remove_hosts >/dev/null 2>&1' EXIT
sweep_add_hosts $HOSTS || { echo "FAIL: could not make $HOSTS hosts"; exit 1; }
sweep_slow_node "${SWEEP_ADDRS[5]}" || { echo "FAIL: could not slow host 6"; exit 1; }
sweep_break_link "${SWEEP_ADDRS[0]}" "${SWEEP_ADDRS[1]}" || { echo "FAIL: could not cut hosts 1-2"; exit 1; }
sweep_lossy_link "${SWEEP_ADDRS[2]}" "${SWEEP_ADDRS[3]}" "$LOSS" || { echo "FAIL: could not make hosts 3-4 lossy"; exit 1; }
devices=$(IFS=,; echo "${SWEEP_DEVS[*]}")
addresses=$(IFS=,; echo "${SWEEP_ADDRS[*]}")

started=$(date +%s.%N)
# Each rank has a device of its own, so each is on a rail of its own:
# --cross-rail pairs them all. -t 4: the slow node's delay caps what a pair
# moves per round trip (sweep_faults.sh).
timeout 900 mpirun --oversubscribe -np $HOSTS "$SWEEP" --devices "$devices" --addresses "$addresses" \
  --cross-rail --test write_bw -s 16K -n 200 -t 4 --timeout 5 --out "$out"
rc=$?
echo "== mpirun -np $HOSTS exit status $rc after $(echo "$(date +%s.%N) - $started" | bc) s"
echo "== failures.txt:"; cat "$out/failures.txt"
[ $rc != 0 ] || { echo "FAIL: a sweep with a slow node and a cut link exited 0"; exit 1; }
# How far the slow node was below the others, for the log (and for whoever
# reads a failure below: a ratio near 1 means the delay did not act).
python3 - "$out/write_bw-bw_average_Gbps.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))[1:]
slow, other = [], []
for c, row in enumerate(rows):
    for s, cell in enumerate(row[1:]):
        try:
            value = float(cell)
        except ValueError:
            continue
        (slow if 5 in (c, s) else other).append(value)
ratio = statistics.median(slow) / statistics.median(other)
print(f"slow node's pairs: median {statistics.median(slow):.3g} Gb/s, the others {statistics.median(other):.3g}: ratio {ratio:.2f}")
PY
python3 - "$out/failures.txt" <<'PY' || exit 1
import re, sys
suspects = [line for line in open(sys.argv[1]) if line.startswith("SUSPECT")]
named = set()
for line in suspects:
    kind = line.split()[1]
    ranks = tuple(sorted(int(r) for r in re.findall(r"rank (\d+)", line.split(":")[0])))
    named.add((kind, ranks))
expected = {("node", (5,)), ("link", (0, 1)), ("silent-degrader", (2, 3))}
if named != expected:
    sys.exit(f"FAIL: suspects named {sorted(named)}, expected exactly {sorted(expected)}")
print(f"ok: the sweep named exactly {sorted(named)}")
PY
grep -q "confirm" "$out/report.md" || { echo "FAIL: report.md says nothing of the re-test confirming"; exit 1; }
# The degrader's records: a sequence counter moved at an end, and its
# bandwidth passed (the failure is its counters' alone).
python3 - "$out/results.jsonl" <<'PY' || exit 1
import json, sys
watched = ("rcvd_seq_err", "out_of_seq_request")
for line in open(sys.argv[1]):
    r = json.loads(line)
    if {r["client"]["rank"], r["server"]["rank"]} != {2, 3} or r["pass"] != "sweep":
        continue
    moved = {end: r.get("counters", {}).get(end, {}).get("moved", {}) for end in ("client", "server")}
    counted = sum(moved[end].get(name, 0) for end in moved for name in watched)
    print(f"rank {r['client']['rank']} -> rank {r['server']['rank']}: {r['figures']}, {counted} sequence errors, {moved}")
    if counted == 0:
        sys.exit("FAIL: the lossy pair's records show no sequence error at either end")
PY
grep -q 'id="write_bw-counter_' "$out/report.html" || { echo "FAIL: report.html has no counter heatmap"; exit 1; }
sed -n '/## write_bw/,$p' "$out/report.md" | head -60
echo "ok: faults"
