#!/usr/bin/env bash
# How long rdma_sweep's pairwise sweep takes against what its pairs alone
# take: one pair's write_bw in both directions with the pair binaries
# (server and client started by hand, as a user would), then mpirun
# -np 2/4/8 sweeps with the same options. Run in the lab guest:
#   tools/rdma-lab -s $PWD -s $PWD/build -- bash $PWD/tools/dev/sweep-timing.sh $PWD/build [DEV] [ROUNDS]
# Prints each wall time and, per N, sweep / ((N-1) x pair both ways).
set -uo pipefail
BUILD=${1:?usage: sweep-timing.sh BUILD [DEV] [REPEATS]}
DEV=${2:-rxe0} REPEATS=${3:-3}
ARGS=(-s 65536 -n 2000)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
ADDR=$(ip -4 -o addr show dev "$(cat /sys/class/infiniband/$DEV/ports/1/gid_attrs/ndevs/0 2>/dev/null || cat /sys/class/infiniband/$DEV/parent)" | awk '{print $4}' | cut -d/ -f1 | head -1)
now() { date +%s.%N; }
out=$(mktemp -d)

pair_once() {  # one direction, connection included, as the sweep's pairs are
  local t0 port=$((20000 + RANDOM % 20000))
  t0=$(now)
  "$BUILD/bench/rdma_write_bw" -d "$DEV" -p $port "${ARGS[@]}" > /dev/null 2>&1 &
  local server=$!
  "$BUILD/bench/rdma_write_bw" -d "$DEV" -p $port "${ARGS[@]}" "$ADDR" > /dev/null 2>&1
  wait $server
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
  done
done
rm -rf "$out"
