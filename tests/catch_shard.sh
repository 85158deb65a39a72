#!/usr/bin/env bash
# tests/catch_shard.sh - run one shard of a Catch test binary's cases in one
# process: shard INDEX of COUNT takes every COUNTth case of the list, in
# order, starting at the INDEXth (1-based). Lanes where starting a process is
# dear register their unit tier this way (RDMABENCH_UNIT_SHARDS): under
# qemu-user each of the 400 case processes took about 0.8 s to start, and
# under ASan about 0.2 s. The ordinary build keeps one ctest case per Catch
# case, so a case that leans on another's leftovers still fails there.
#
# Usage: tests/catch_shard.sh [-s SPEC] INDEX COUNT COMMAND...
#   -s SPEC   a Catch test spec that chooses the cases first (e.g. "~[host-proc]")
#   COMMAND   the test binary, after its emulator if any
# Fails if any case fails, or if the binary ran a different number of cases
# than the shard holds (a name the spec did not match back).
set -euo pipefail
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
spec=()
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  -s) spec=("$2"); shift 2 ;;
esac
[ $# -ge 3 ] || { usage >&2; exit 2; }
index=$1 count=$2
shift 2
[[ $index =~ ^[0-9]+$ && $count =~ ^[0-9]+$ && $index -ge 1 && $index -le $count ]] ||
  { echo "catch_shard: INDEX must be 1..COUNT, got $index of $count" >&2; exit 2; }

# Catch 2's exit status after a listing is the number of cases listed.
# Catch 3 (Debian 13's) lists names alone with --list-tests --verbosity
# quiet; it refuses Catch 2's flag, whose listing is then empty.
listing=$("$@" "${spec[@]}" --list-test-names-only 2>/dev/null) || true
[ -n "$listing" ] || listing=$("$@" "${spec[@]}" --list-tests --verbosity quiet) || true
[ -n "$listing" ] || { echo "catch_shard: $* listed no cases" >&2; exit 1; }
# Catch's test spec treats , [ ] * " \ and more as syntax: a backslash
# before every character that is not a letter, digit or underscore makes
# each name match itself alone (as CMake's catch_discover_tests does).
mapfile -t names < <(awk -v i="$index" -v n="$count" 'NF && (++k - i) % n == 0' <<< "$listing" |
                       sed 's/[^A-Za-z0-9_]/\\&/g')
[ ${#names[@]} -gt 0 ] || { echo "catch_shard: shard $index of $count holds no cases"; exit 0; }
echo "catch_shard: shard $index of $count: ${#names[@]} cases"

status=0
# One argument, the names joined by commas (Catch's "or"; separate
# arguments would each have to match).
filter=$(IFS=,; printf '%s' "${names[*]}")
output=$("$@" "$filter" 2>&1) || status=$?
# (less Catch's "Filters:" line, which repeats every name)
sed '/^Filters: /d' <<< "$output"
# Catch's summary: "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed".
ran=$(sed -nE 's/.*All tests passed \([0-9]+ assertions? in ([0-9]+) test cases?\).*/\1/p;
               s/^test cases: *([0-9]+) .*/\1/p' <<< "$output" | tail -1)
if [ "${ran:-0}" != "${#names[@]}" ]; then
  echo "catch_shard: the shard holds ${#names[@]} cases but ${ran:-none} ran" >&2
  exit 1
fi
exit "$status"
