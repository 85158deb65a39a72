#!/usr/bin/env bash
# How long rdma_sweep's pairwise sweep takes against what its pairs alone
# take: one pair's write_bw in both directions with the pair binaries
# (server and client started by hand, as a user would), then mpirun
# -np 2/4/8 sweeps with the same options. Run in the lab guest:
#   tools/rdma-lab -s $PWD -s $PWD/build -- bash $PWD/tools/dev/sweep-timing.sh $PWD/build [DEV] [ROUNDS]
# Prints each wall time and, per N, sweep / ((N-1) x pair both ways).
#
# Usage: sweep-timing.sh BUILD [DEV] [REPEATS]
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
set -uo pipefail
BUILD=${1:?usage: sweep-timing.sh BUILD [DEV] [REPEATS]}
DEV=${2:-rxe0} REPEATS=${3:-3}
ARGS=(-s 65536 -n 2000)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
ADDR=$(ip -4 -o addr show dev "$(cat /sys/class/infiniband/$DEV/ports/1/gid_attrs/ndevs/0 2>/dev/null || cat /sys/class/infiniband/$DEV/parent)" | awk '{print $4}' | cut -d/ -f1 | head -1)
now() { date +%s.%N; }
out=$(mktemp -d)

pair_once() {  # [K]: K pairs at once (default 1), one direction, connection included
  local t0 k port pids=() count=${1:-1}
  t0=$(now)
  for k in $(seq "$count"); do
    port=$((20000 + 2 * k + 100 * (RANDOM % 100)))
    "$BUILD/bench/rdma_write_bw" -d "$DEV" -p $port "${ARGS[@]}" > /dev/null 2>&1 &
    pids+=($!)
    "$BUILD/bench/rdma_write_bw" -d "$DEV" -p $port "${ARGS[@]}" "$ADDR" > /dev/null 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  echo "$(now) - $t0" | bc
}

for i in $(seq "$REPEATS"); do
  a=$(pair_once); b=$(pair_once)
  echo "pair both ways: $(echo "$a + $b" | bc) s"
  for n in 2 4 8; do
    t0=$(now)
    mpirun --oversubscribe -np $n "$BUILD/bench/rdma_sweep" -d "$DEV" --out "$out/n$n-$i" --no-heatmaps --no-retest \
      --max-p99-multiple 100000 --min-share-of-median 0.01 "${ARGS[@]}" > /dev/null 2> "$out/n$n-$i.err"
    rc=$?
    t=$(echo "$(now) - $t0" | bc)
    ratio=$(echo "scale=3; $t / (($n - 1) * ($a + $b))" | bc)
    echo "N=$n sweep: $t s (exit $rc), (N-1) x pair both ways: $(echo "($n - 1) * ($a + $b)" | bc) s, ratio $ratio"
    # In one guest the N/2 pairs of a round share its CPUs: the fair yardstick
    # is a round of N/2 pairs at once, each way, with the pair binaries.
    if [ $n -gt 2 ]; then
      ra=$(pair_once $((n / 2))); rb=$(pair_once $((n / 2)))
      echo "N=$n: $((n / 2)) pairs at once, both ways: $(echo "$ra + $rb" | bc) s; sweep / ((N-1) x that): $(echo "scale=3; $t / (($n - 1) * ($ra + $rb))" | bc)"
    fi
    t0=$(now); mpirun --oversubscribe -np $n true; echo "N=$n: mpirun -np $n true: $(echo "$(now) - $t0" | bc) s"
  done
done
rm -rf "$out"
