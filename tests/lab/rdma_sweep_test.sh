#!/usr/bin/env bash
# rdma_sweep end to end under mpirun, every rank in one lab guest.
#   pairwise-rxe / pairwise-siw: -np 4 (write_bw, write_lat, send_lat and
#     read_lat), and on rxe0 -np 8 (write_bw), on one device; every ordered pair must
#     be in results.jsonl with a figure, and every output file written (the
#     heatmap PNGs on rxe0 only).
#   pairwise-2-rxe: -np 2 only (the sanitizer build's case: four ASan'ed
#     ranks, about 520 MB each, overrun the guest's 2 GiB).
#   patterns-rxe: -np 4 with each other pattern (ring, incast, all-to-all,
#     bisection), their pairs run at once where the pattern says so.
#   rank-killed / rank-stopped: one rank SIGKILLed or SIGSTOPped mid-sweep;
#     the sweep must end (non-zero) within --timeout + a few seconds, with
#     what finished in results.jsonl and the partial report written; then
#     (rank-killed) --resume completes it without running a finished pair again.
#   stranger-siw: -np 2 over two siw "hosts" (tests/lab/sweep_faults.sh),
#     the client of the first pair stopped after the hello (the "handshake"
#     pause point); a third host's rping connects to that pair's rdma_cm port
#     first. The server must refuse it (the pair belongs to its partner's
#     address, which the client binds as its rdma_cm source) and then
#     measure the real client: the sweep passes.
#   rank-stopped-at-end: -np 2, rank 1 stops itself once told the sweep is
#     over (the "sweep-end" pause point): rank 0 must not wait for it in
#     MPI_Finalize, but end the job within --timeout + a few seconds, saying
#     why, with the whole report written. Before that, a healthy -np 2
#     sweep whose heatmap tool takes longer than that bound (a stand-in
#     that sleeps 7 s, where --timeout 2 gives 5): the ranks must meet
#     before the heatmaps are drawn, so the sweep passes.
# Exits 77 (skipped) outside the lab guest or without mpirun.
set -uo pipefail
CASE=${1:?usage: rdma_sweep_test.sh CASE PATH/TO/rdma_sweep}
SWEEP=${2:?usage: rdma_sweep_test.sh CASE PATH/TO/rdma_sweep}
HERE=$(cd "$(dirname "$0")" && pwd)
case $CASE in
  *-siw) DEV=${SIW_DEV:-siw0} ;;
  *) DEV=${RXE_DEV:-rxe0} ;;
esac
if [ ! -e /sys/class/infiniband/$DEV ]; then
  echo "SKIPPED: needs $DEV (run inside tools/rdma-lab)"; exit 77
fi
if ! command -v mpirun >/dev/null; then
  echo "SKIPPED: no mpirun (tools/install-deps sweep installs openmpi-bin)"; exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# One guest: shared memory and loopback TCP carry MPI's own messages.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo
# matplotlib's font cache, built once and kept where the guest can write
# and the next boot finds it (the guest's own home is new at every boot).
export MPLCONFIGDIR=${RDMABENCH_BUILD:-$(dirname "$SWEEP")/..}/mplconfig
mkdir -p "$MPLCONFIGDIR"
# RDMABENCH_SWEEP_KEEP=DIR keeps the sweeps' folders there (a shared folder,
# to read them after the guest is gone).
if [ -n "${RDMABENCH_SWEEP_KEEP:-}" ]; then
  tmp=$RDMABENCH_SWEEP_KEEP; rm -rf "$tmp"; mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

# Every sweep here runs at the default limits (but the share of the median
# for siw's pairwise sweeps and the patterns, below): a healthy sweep must pass them, even in one guest of
# 2 vCPUs where a latency pair's tail is the scheduler's. Latency pairs of
# fewer than 1000 samples are judged on their median, and a pair that fails
# once and passes its re-test fails nothing (failures.txt says "NOT
# REPRODUCED"); tests/lab/rdma_sweep_faults_test.sh checks the verdicts on
# a sick fabric.

# sweep NAME RANKS ARGS...: runs one sweep into $tmp/NAME, prints its wall
# time; the exit status is rdma_sweep's.
sweep() {
  local name=$1 ranks=$2; shift 2
  local started rc
  started=$(date +%s.%N)
  timeout "${SWEEP_LIMIT_S:-600}" mpirun --oversubscribe -np "$ranks" "$SWEEP" -d "$DEV" --out "$tmp/$name" "$@"
  rc=$?
  echo "== $name: mpirun -np $ranks exit status $rc after $(echo "$(date +%s.%N) - $started" | bc) s"
  if [ -s "$tmp/$name/failures.txt" ]; then echo "== $name: failures.txt:"; cat "$tmp/$name/failures.txt"; fi
  return $rc
}

check_complete() {  # check_complete NAME RANKS TESTS [with-heatmaps]
  local pngs=
  if [ "${4:-}" = with-heatmaps ] && [ -n "${RDMABENCH_DEFERRED_HEATMAPS:-}" ]; then
    # The ordinary build's lab pass: rdma_sweep ran the stand-in
    # (defer_heatmaps.sh), the host draws and checks them after the guest.
    grep -q "^$(cd "$tmp/$1" && pwd -P)"$'\t' "$RDMABENCH_DEFERRED_HEATMAPS/list" 2>/dev/null ||
      { echo "FAIL: rdma_sweep handed no heatmaps of $tmp/$1 over (RDMABENCH_SWEEP_HEATMAPS)"; return 1; }
    echo "ok: $1's heatmaps handed to the host to draw"
  elif [ "${4:-}" = with-heatmaps ]; then
    # Heatmaps are drawn where matplotlib is installed (tools/install-deps test does).
    python3 -c "import matplotlib" 2>/dev/null && pngs=1
  fi
  EXPECT_PNGS=$pngs python3 "$HERE/rdma_sweep_check.py" complete "$tmp/$1" "$2" "$3"
}

case $CASE in
  pairwise-rxe|pairwise-siw)
    # Same-host pairs are measured on purpose: all ranks share one guest.
    # The heatmaps (matplotlib, about 10 s each under the guest's emulated
    # CPU, 18 of them) are drawn and checked on rxe0 only: their code does
    # not depend on the transport. The ordinary build's pass hands them to
    # the host to draw (RDMABENCH_DEFERRED_HEATMAPS, tests/CMakeLists.txt);
    # the sanitizer pass's -np 2 sweep draws its own in the guest.
    # On siw the bandwidth is the guest's CPU: siw runs TCP in software,
    # two pairs share the 2 vCPUs in each round, and CI's background builds
    # take what the guest leaves. A pair at 0.49 of the median, confirmed on
    # re-test, failed a CI run so, on a healthy emulator; siw's sweeps are
    # judged at 0.2 of the median (rxe's at the default 0.5), which still
    # fails a pair that gets nothing. The verdicts on a sick fabric:
    # rdma_sweep_faults_test.sh.
    heatmaps=with-heatmaps draw=() share=()
    [ "$CASE" = pairwise-siw ] && heatmaps= draw=(--no-heatmaps) share=(--min-share-of-median 0.2)
    sweep np4 4 --test write_bw,write_lat,send_lat,read_lat -n 200 "${draw[@]}" "${share[@]}" ||
      { echo "FAIL: the -np 4 sweep exited non-zero"; exit 1; }
    check_complete np4 4 write_bw,write_lat,send_lat,read_lat $heatmaps || exit 1
    # Eight ranks (56 pairs) on rxe0 only: how the sweep schedules them does
    # not depend on the transport, and siw's run cost 10-15 s of CI.
    if [ "$CASE" = pairwise-rxe ]; then
      sweep np8 8 --test write_bw -n 200 --no-heatmaps "${share[@]}" ||
        { echo "FAIL: the -np 8 sweep exited non-zero"; exit 1; }
      check_complete np8 8 write_bw || exit 1
    fi
    ;;
  pairwise-2-rxe)
    sweep np2 2 --test write_bw,write_lat -n 200 || { echo "FAIL: the -np 2 sweep exited non-zero"; exit 1; }
    check_complete np2 2 write_bw,write_lat with-heatmaps || exit 1
    ;;
  patterns-rxe)
    # These pairs run at once (three into rank 2 for incast) on the guest's
    # 2 vCPUs, with no re-test to forgive a pair the scheduler starved. A CI
    # run failed this case in 8 s (its log kept no reason; a pair under half
    # the median is the likely one). As siw's pairwise sweeps, they are
    # judged at 0.2 of the median; a pair that gets nothing still fails.
    for pattern in ring incast all-to-all bisection; do
      sweep "$pattern" 4 --test write_bw -n 100 --no-heatmaps --no-retest --pattern $pattern --root 2 --repeat 2 \
            --min-share-of-median 0.2 ||
        { echo "FAIL: the $pattern sweep exited non-zero"; exit 1; }
      python3 "$HERE/rdma_sweep_check.py" pattern "$tmp/$pattern" 4 "$pattern" || exit 1
    done
    ;;
  rank-killed|rank-stopped)
    signal=KILL; [ "$CASE" = rank-stopped ] && signal=STOP
    sweep partial 4 --test write_bw -n 3000 --timeout 3 --no-heatmaps &
    job=$!
    # Rank 2, once a pair has finished (rank 0 wrote its record), which may
    # be mid-round: the partial report must exist even then. A wait on that
    # event, bounded at 120 s (the guest is emulated, CI's builds beside it).
    victim=
    for _ in $(seq 600); do
      for pid in $(pgrep -f "$SWEEP" || true); do
        if tr '\0' '\n' < /proc/$pid/environ 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=2; then victim=$pid; fi
      done
      [ -n "$victim" ] && [ -s "$tmp/partial/results.jsonl" ] && break
      kill -0 $job 2>/dev/null || break
      sleep 0.2
    done
    [ -n "$victim" ] || { echo "FAIL: rank 2 never started"; kill $job; exit 1; }
    [ -s "$tmp/partial/results.jsonl" ] ||
      { echo "FAIL: no pair of the sweep finished within 120 s (or it ended first)"; kill $job; exit 1; }
    stopped_at=$(date +%s.%N)
    kill -$signal "$victim"
    echo "sent SIG$signal to rank 2 (pid $victim)"
    wait $job
    rc=$?
    took=$(echo "$(date +%s.%N) - $stopped_at" | bc)
    [ "$signal" = STOP ] && kill -CONT "$victim" 2>/dev/null
    echo "the sweep ended $took s after the signal, exit status $rc"
    [ $rc != 0 ] || { echo "FAIL: a sweep that lost a rank exited 0"; exit 1; }
    python3 - "$took" <<'PY' || exit 1
import sys
took = float(sys.argv[1])
# --timeout 3, plus the silence margin (3 s) and a few seconds of teardown.
if took > 12: sys.exit(f"FAIL: the sweep took {took:.1f} s to end after losing a rank (limit 12)")
PY
    python3 "$HERE/rdma_sweep_check.py" partial "$tmp/partial" 4 write_bw || exit 1
    # --resume finishes it: the pairs already there are not run again. Once,
    # after the killed rank: what --resume reads does not depend on how the
    # rank was lost, and a resumed -np 4 sweep costs 10-20 s of CI.
    [ "$signal" = KILL ] || exit 0
    before=$(wc -l < "$tmp/partial/results.jsonl")
    timeout 600 mpirun --oversubscribe -np 4 "$SWEEP" -d "$DEV" --resume "$tmp/partial" \
      --test write_bw -n 3000 --timeout 3 --no-heatmaps || { echo "FAIL: the resumed sweep exited non-zero"; exit 1; }
    echo "resumed: $before records before, $(wc -l < "$tmp/partial/results.jsonl") after"
    check_complete partial 4 write_bw || exit 1
    ;;
  stranger-siw)
    command -v rping >/dev/null || { echo "SKIPPED: no rping (rdmacm-utils)"; exit 77; }
    # shellcheck source=sweep_faults.sh
    source "$HERE/sweep_faults.sh"
    trap 'sweep_remove_hosts >/dev/null 2>&1; [ -n "${RDMABENCH_SWEEP_KEEP:-}" ] || rm -rf "$tmp"' EXIT
    SWEEP_LINK_TYPE=siw sweep_add_hosts 3 >/dev/null || { echo "FAIL: could not make 3 siw hosts"; exit 1; }
    a1=${SWEEP_ADDRS[0]} a2=${SWEEP_ADDRS[1]} a3=${SWEEP_ADDRS[2]}
    paused=$tmp/paused
    # Pair 0 -> 1 first: rank 1's server listens for rdma_cm on --port + 2(1) + 1.
    args=(--devices "${SWEEP_DEVS[0]},${SWEEP_DEVS[1]}" --addresses "$a1,$a2" --cross-rail --test write_bw
          -n 100 --timeout 20 --port 30000 --no-heatmaps --no-retest --out "$tmp/stranger")
    timeout 120 mpirun --oversubscribe -np 1 env RDMABENCH_PAUSE_AT=handshake RDMABENCH_PAUSE_FILE="$paused" \
      "$SWEEP" "${args[@]}" : -np 1 "$SWEEP" "${args[@]}" >"$tmp/stranger.log" 2>&1 &
    job=$!
    for _ in $(seq 600); do [ -s "$paused" ] || ! kill -0 $job 2>/dev/null && break; sleep 0.2; done
    [ -s "$paused" ] || { cat "$tmp/stranger.log"; echo "FAIL: the first pair's client never paused"; exit 1; }
    # The client goes on as soon as the server has turned the stranger away
    # (rping itself may take seconds more to give up).
    timeout 10 rping -c -a "$a2" -p 30003 -I "$a3" -C 1 >"$tmp/rping.log" 2>&1 &
    stranger=$!
    for _ in $(seq 100); do grep -q "refused an rdma_cm connection" "$tmp/stranger.log" && break; sleep 0.1; done
    # Rank 0 stops at every pair's handshake (as the server of 1 -> 0 too):
    # let it go on each time.
    while kill -0 $job 2>/dev/null; do pkill -CONT -x rdma_sweep; sleep 0.1; done &
    wait $stranger
    echo "the stranger's rping from $a3 exited $?: $(tr '\n' ' ' < "$tmp/rping.log" | cut -c1-200)"
    wait $job
    rc=$?
    grep -v "round .* done" "$tmp/stranger.log"
    [ $rc = 0 ] || { echo "FAIL: the sweep exited $rc"; exit 1; }
    grep -q "refused an rdma_cm connection from $a3" "$tmp/stranger.log" ||
      { echo "FAIL: the pair's server did not refuse the stranger at $a3"; exit 1; }
    check_complete stranger 2 write_bw || exit 1
    ;;
  rank-stopped-at-end)
    printf '#!/bin/sh\nsleep 7\ntouch "$1/slow-heatmaps-ran"\n' > "$tmp/slow_heatmaps.sh"
    chmod +x "$tmp/slow_heatmaps.sh"
    RDMABENCH_SWEEP_HEATMAPS=$tmp/slow_heatmaps.sh SWEEP_LIMIT_S=60 \
      sweep slow 2 --test write_bw -n 100 --timeout 2 --no-retest ||
      { echo "FAIL: a sweep whose heatmaps outlast the end barrier's bound exited non-zero"; exit 1; }
    [ -e "$tmp/slow/slow-heatmaps-ran" ] || { echo "FAIL: the slow heatmap tool did not finish"; exit 1; }
    echo "ok: the heatmaps drawn after the ranks met at the end"
    paused=$tmp/paused
    # 60 s: a rank 0 held in MPI_Finalize is killed then, and the case fails.
    RDMABENCH_PAUSE_AT=sweep-end RDMABENCH_PAUSE_FILE=$paused SWEEP_LIMIT_S=60 \
      sweep end 2 --test write_bw -n 100 --timeout 3 --no-heatmaps --no-retest 2>"$tmp/end.err" &
    job=$!
    for _ in $(seq 600); do [ -s "$paused" ] || ! kill -0 $job 2>/dev/null && break; sleep 0.2; done
    [ -s "$paused" ] || { cat "$tmp/end.err"; echo "FAIL: rank 1 never reached the end of the sweep"; kill $job; exit 1; }
    stopped_at=$(date +%s.%N)
    wait $job
    rc=$?
    took=$(echo "$(date +%s.%N) - $stopped_at" | bc)
    cat "$tmp/end.err"
    pkill -KILL -x rdma_sweep 2>/dev/null  # a stopped rank a failing run left behind
    echo "the sweep ended $took s after rank 1 stopped at its end, exit status $rc"
    [ $rc != 0 ] && [ $rc != 124 ] || { echo "FAIL: exit status $rc (124: rank 0 hung in MPI_Finalize)"; exit 1; }
    grep -q "not every rank reached the end of the sweep within 6 s" "$tmp/end.err" ||
      { echo "FAIL: rank 0 did not say why it ended the job"; exit 1; }
    python3 -c "import sys; t = float(sys.argv[1]); sys.exit(f'FAIL: {t:.1f} s, limit 12' if t > 12 else 0)" "$took" ||
      exit 1
    check_complete end 2 write_bw || exit 1
    ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
echo "ok: $CASE"
