# tests/timing/stages.sh - sourced by tools/run-tests and .ci/run: time each
# stage of a test run, so that a slow run says where its time went.
#
#   stage NAME COMMAND [ARGS...]  runs COMMAND, returns its status, and adds
#                                 "NAME<TAB>SECONDS<TAB>ok|FAILED" to the log
#   stage_report [TITLE]          prints the log as a table, with the total
#
# The log is $RDMABENCH_STAGE_LOG when set (so .ci/run's table includes the
# stages of the tools/run-tests it calls), else a temporary file.

if [ -z "${RDMABENCH_STAGE_LOG:-}" ]; then
  RDMABENCH_STAGE_LOG=$(mktemp "${TMPDIR:-/tmp}/rdmabench-stages.XXXXXX")
  export RDMABENCH_STAGE_LOG
fi

stage() {
  local name=$1 start rc=0
  shift
  start=$(date +%s)
  echo "=== stage: $name ===" >&2
  "$@" || rc=$?
  printf '%s\t%s\t%s\n' "$name" "$(( $(date +%s) - start ))" "$([ "$rc" = 0 ] && echo ok || echo FAILED)" \
    >> "$RDMABENCH_STAGE_LOG"
  return "$rc"
}

stage_report() {
  local title=${1:-stages}
  [ -s "$RDMABENCH_STAGE_LOG" ] || return 0
  echo
  echo "$title (seconds):"
  awk -F'\t' '{ printf "  %-44s %6d  %s\n", $1, $2, $3 }' "$RDMABENCH_STAGE_LOG"
}
