#!/usr/bin/env bash
# rdma_sweep launched by Slurm instead of mpirun: a one-node cluster in the lab
# guest (slurm_one_node.sh), then `srun -n 4 --mpi=pmix rdma_sweep` on rxe0
# and 10.0.2.15, oversubscribed on the guest's CPUs. Every ordered pair of the
# 4 ranks must be in results.jsonl with a figure, and report.md must exist.
# Exits 77 (skipped) outside the lab guest, without Slurm or munge, or when
# rdma_sweep was not built.
#
# RDMABENCH_SLURM_MPI picks srun's --mpi plugin (default pmix: Debian's Open
# MPI 4.1.4 talks PMIx only, so pmi2 fails there; see the note in
# examples/rdma_sweep.sbatch).
set -uo pipefail
SWEEP=${1:?usage: rdma_sweep_slurm_test.sh PATH/TO/rdma_sweep}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
RXE=${RXE_DEV:-rxe0} RXE_IP=${RXE_IP:-10.0.2.15}
MPI_PLUGIN=${RDMABENCH_SLURM_MPI:-pmix}
RANKS=4
if [ ! -e "/sys/class/infiniband/$RXE" ]; then
  echo "SKIPPED: needs $RXE (run inside tools/rdma-lab)"; exit 77
fi
if [ ! -x "$SWEEP" ]; then
  echo "SKIPPED: $SWEEP was not built (no MPI when configured)"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Same-host pairs are measured on purpose: all ranks share one guest.
SLURM_ONE_NODE_MPI=$MPI_PLUGIN "$HERE/slurm_one_node.sh" bash -c '
  started=$(date +%s.%N)
  timeout 240 srun -n "$1" --mpi="$2" "$3" -d "$4" --address "$5" -n 200 --out "$6"
  rc=$?
  echo "srun -n $1 --mpi=$2: exit status $rc after $(echo "$(date +%s.%N) - $started" | bc) s"
  exit $rc' srun-sweep "$RANKS" "$MPI_PLUGIN" "$SWEEP" "$RXE" "$RXE_IP" "$tmp"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: srun rdma_sweep (or the cluster) exited $rc"; exit 1; }

[ -s "$tmp/report.md" ] || { echo "FAIL: no report.md"; exit 1; }
cat "$tmp/report.md"
python3 - "$tmp/results.jsonl" "$RANKS" <<'PY'
import itertools, json, sys
path, ranks = sys.argv[1], int(sys.argv[2])
records = [json.loads(line) for line in open(path)]

def figure(record):
    """bw_avg_gbits at the top (first binary) or under "figures" (later)."""
    value = record.get("bw_avg_gbits", record.get("figures", {}).get("bw_avg_gbits"))
    return value if isinstance(value, (int, float)) else 0

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
bad = {k: r.get("error") for k, r in seen.items() if not figure(r) > 0}
if bad:
    sys.exit(f"FAIL: pairs without a figure: {bad}")
print(f"ok: {len(seen)} ordered pairs under srun, each with a figure")
PY
