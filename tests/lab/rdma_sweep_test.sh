#!/usr/bin/env bash
# rdma_sweep end to end under mpirun: 4 ranks on one lab guest, all on rxe0
# and 10.0.2.15, sweep every ordered pair with write_bw. Every pair must be
# in results.jsonl with a figure, and report.md must exist. Exits 77
# (skipped) outside the lab guest or without mpirun.
set -uo pipefail
SWEEP=${1:?usage: rdma_sweep_test.sh PATH/TO/rdma_sweep}
RXE=${RXE_DEV:-rxe0} RXE_IP=${RXE_IP:-10.0.2.15}
RANKS=4
if [ ! -e /sys/class/infiniband/$RXE ]; then
  echo "SKIPPED: needs $RXE (run inside tools/rdma-lab)"; exit 77
fi
if ! command -v mpirun >/dev/null; then
  echo "SKIPPED: no mpirun (tools/install-deps installs openmpi-bin)"; exit 77
fi
if [ ! -x "$SWEEP" ]; then
  echo "SKIPPED: $SWEEP was not built (no MPI when configured)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

started=$(date +%s.%N)
# Same-host pairs are measured on purpose: all ranks share one guest.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  timeout 240 mpirun --oversubscribe -np $RANKS "$SWEEP" -d "$RXE" --address "$RXE_IP" -n 200 --out "$tmp"
rc=$?
echo "mpirun -np $RANKS exit status $rc after $(echo "$(date +%s.%N) - $started" | bc) s"
[ $rc = 0 ] || { echo "FAIL: rdma_sweep exited $rc"; exit 1; }

[ -s "$tmp/report.md" ] || { echo "FAIL: no report.md"; exit 1; }
cat "$tmp/report.md"
python3 - "$tmp/results.jsonl" "$RANKS" <<'PY'
import itertools, json, sys
path, ranks = sys.argv[1], int(sys.argv[2])
records = [json.loads(line) for line in open(path)]
seen = {}
for r in records:
    key = (r["client"]["rank"], r["server"]["rank"])
    if key in seen:
        sys.exit(f"FAIL: pair {key} appears twice in results.jsonl")
    seen[key] = r
expected = set(itertools.permutations(range(ranks), 2))
missing = sorted(expected - set(seen))
extra = sorted(set(seen) - expected)
if missing or extra:
    sys.exit(f"FAIL: results.jsonl pairs: missing {missing}, unexpected {extra}")
bad = {k: r.get("error") for k, r in seen.items() if not (r.get("bw_avg_gbits", 0) > 0)}
if bad:
    sys.exit(f"FAIL: pairs without a figure: {bad}")
print(f"ok: {len(seen)} ordered pairs, each with a figure")
PY
