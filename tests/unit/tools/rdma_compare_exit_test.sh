#!/bin/sh
# rdma_compare's exit status as a CI job or an acceptance script sees it,
# on the fixed sets of tests/data/compare (five write_bw and write_lat runs
# "before", five alike "again", five with the bandwidth 20% lower
# "slower"): 0 nothing regressed, 1 something regressed, 2 a usage or
# input error, each error one line on stderr.
# Usage: rdma_compare_exit_test.sh RDMA_COMPARE DATA_DIR
# A cross build's binary runs through $RDMABENCH_TEST_EMULATOR (qemu-user).
set -u
[ $# -eq 2 ] || { echo "usage: $0 RDMA_COMPARE DATA_DIR" >&2; exit 2; }
bin=$1
cd "$2" || exit 1
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failed=0
# expect STATUS TEXT ARGS...: the exit status, and TEXT in stdout or stderr.
expect() {
  status=$1 text=$2
  shift 2
  ${RDMABENCH_TEST_EMULATOR:-} "$bin" "$@" >"$out" 2>"$err"
  got=$?
  if [ "$got" -ne "$status" ] || ! grep -qF -- "$text" "$out" "$err"; then
    echo "FAIL: rdma_compare $* exited $got (expected $status) without '$text':"
    cat "$out" "$err"
    failed=1
  else
    echo "ok: rdma_compare $* exited $got"
  fi
}
expect 0 "# rdma_compare: 0 regressed, 11 same, 0 improved" before again
expect 1 "| **regressed** | bandwidth (MB/s) | write_bw 65536 B client |" before slower
expect 1 '"verdict": "regressed"' before slower --format json
expect 0 "rdma_compare: 0 regressed" before again --format html --out /dev/null
expect 2 "rdma_compare: error: 'absent' does not exist" before absent
expect 2 "rdma_compare: error: expected two sides, OLD and NEW, and got 1" before
expect 2 "Try 'rdma_compare --help'." before again --no-such-option
expect 0 "Exit status: 0 nothing regressed, 1 something regressed, 2" --help
[ "$failed" -eq 0 ] && echo "all passed"
exit "$failed"
