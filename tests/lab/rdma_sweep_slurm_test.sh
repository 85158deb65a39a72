#!/usr/bin/env bash
# rdma_sweep launched by Slurm instead of mpirun: a one-node cluster in the lab
# guest (slurm_one_node.sh), then `srun -n 4 --mpi=pmix rdma_sweep` on rxe0,
# oversubscribed on the guest's CPUs. Every ordered pair of the
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
RXE=${RXE_DEV:-rxe0}
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

# Same-host pairs are measured on purpose: all ranks share one guest. The
# limits are the defaults, as in rdma_sweep_test.sh's rxe sweeps: a pair
# that fails once is re-tested, and fails the sweep only if it fails again.
SLURM_ONE_NODE_MPI=$MPI_PLUGIN "$HERE/slurm_one_node.sh" bash -c '
  started=$(date +%s.%N)
  timeout 240 srun -n "$1" --mpi="$2" "$3" -d "$4" -n 200 --no-heatmaps --out "$5"
  rc=$?
  echo "srun -n $1 --mpi=$2: exit status $rc after $(echo "$(date +%s.%N) - $started" | bc) s"
  exit $rc' srun-sweep "$RANKS" "$MPI_PLUGIN" "$SWEEP" "$RXE" "$tmp"
rc=$?
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: srun rdma_sweep (or the cluster) exited $rc"; exit 1; }
python3 "$HERE/rdma_sweep_check.py" complete "$tmp" "$RANKS" write_bw || exit 1
echo "ok: srun -n $RANKS --mpi=$MPI_PLUGIN"
