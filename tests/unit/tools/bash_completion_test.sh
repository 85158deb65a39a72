#!/usr/bin/env bash
# The generated bash completion of BINARY works: cmake/bash_completion.py
# writes it, bash -n accepts it, and sourced in a fresh bash its function
# for BINARY completes -- words to the binary's options (--hel -> --help;
# --si -> --size where it has --size), a file option's argument (--json
# arg) to file names, a value option's argument (--size) to nothing, and
# -d/--ib-dev to the devices of /sys/class/infiniband where there are any.
#
# Usage: tests/unit/tools/bash_completion_test.sh GENERATOR BINARY
#   e.g. tests/unit/tools/bash_completion_test.sh cmake/bash_completion.py build/bench/rdma_write_bw
# Exit: 0 all checks passed; 1 one failed; 2 usage.
set -uo pipefail
[ $# -eq 2 ] || { sed -n 's/^# \{0,1\}//; /^Usage:/,/^Exit:/p' "$0" >&2; exit 2; }
generator=$1 binary=$2
name=$(basename "$binary")
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-completion.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
fail() { echo "FAIL: $name: $*"; failed=1; }

python3 "$generator" "$work/completion" "$binary" || { echo "FAIL: $generator $binary exited $?"; exit 1; }
bash -n "$work/completion" || { echo "FAIL: bash -n rejects the completion of $name"; exit 1; }
help=$("$binary" --help 2>&1)

# complete WORD...: the COMPREPLY of the binary's completion function for
# the command line "$name WORD..." with the cursor on the last word, one a line.
complete_words() {
  bash -c '
    source "$1" || exit 1
    fn=$(complete -p "$2" 2>/dev/null | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
    [ -n "$fn" ] || { echo "no complete -F for $2" >&2; exit 1; }
    COMP_WORDS=("${@:2}"); COMP_CWORD=$(($# - 2)); COMPREPLY=()
    "$fn" "$2" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]:-}" || exit 1
    printf "%s\n" "${COMPREPLY[@]}"' _ "$work/completion" "$name" "$@"
}
has() { grep -qxF -- "$1" <<< "$2"; }

out=$(complete_words --hel) || fail "the completion function failed"
has --help "$out" || fail "--hel offered [$(tr '\n' ' ' <<< "$out")], not --help"
out=$(complete_words -)
[ "$(grep -c . <<< "$out")" -ge 2 ] || fail "- offered [$(tr '\n' ' ' <<< "$out")]: fewer than 2 options"
for opt in $(grep -oE -- '--[a-z][a-z0-9-]*' <<< "$help" | sort -u); do
  grep -qE -- "^ {1,6}(-[A-Za-z0-9], |-[A-Za-z0-9] \[ )?$opt( |\]|$)" <<< "$help" || continue  # an option of the table
  has "$opt" "$out" || fail "- does not offer $opt"
done
if grep -qE -- '--size\b' <<< "$help"; then
  out=$(complete_words --si)
  has --size "$out" || fail "--si offered [$(tr '\n' ' ' <<< "$out")], not --size"
  out=$(complete_words --size 6)
  [ -z "$out" ] || fail "--size 6 offered [$(tr '\n' ' ' <<< "$out")], not nothing"
fi
if grep -qE -- '--json arg' <<< "$help"; then
  touch "$work/result-one.json"
  out=$(complete_words --json "$work/result-")
  has "$work/result-one.json" "$out" || fail "--json $work/result- offered [$(tr '\n' ' ' <<< "$out")], not the file"
  out=$(complete_words --json = "$work/result-")
  has "$work/result-one.json" "$out" || fail "--json=$work/result- offered [$(tr '\n' ' ' <<< "$out")], not the file"
fi
devices=$(ls /sys/class/infiniband 2>/dev/null | head -1)
if [ -n "$devices" ] && grep -qE -- '--ib-dev' <<< "$help"; then
  out=$(complete_words --ib-dev "")
  has "$devices" "$out" || fail "--ib-dev offered [$(tr '\n' ' ' <<< "$out")], not $devices"
fi
[ "$failed" = 0 ] && echo "ok: the bash completion of $name offers its options and their arguments"
exit "$failed"
