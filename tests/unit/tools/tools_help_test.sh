#!/usr/bin/env bash
# Every tool answers -h and --help with its usage and exit 0, before it
# installs, downloads or builds anything: each runs with a PATH whose
# package managers, build tools, downloaders, emulators and launchers are
# stand-ins that record being called and fail. Any call, a non-zero exit,
# or no usage text fails the tool.
# Every tool under tools/ and .ci/ answers --version with
#   TOOL (rdmabench) X.Y.Z
#   ... rdma-core ...
# (TOOL: its file name), as the binaries do, exit 0, under the same stand-ins.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd -P)
stubs=$(mktemp -d "${TMPDIR:-/tmp}/rdmabench-help.XXXXXX")
trap 'rm -rf "$stubs"' EXIT
for name in apt-get apt dpkg sudo pip pip3 cmake ctest cpack make ninja gcc g++ cc c++ clang clang++ \
            curl wget git debootstrap qemu-system-x86_64 qemu-img qemu-aarch64 mpirun srun sbatch \
            systemctl modprobe rdma ib_write_bw ib_read_lat; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 1\n' "$name" "$stubs" > "$stubs/$name"
  chmod +x "$stubs/$name"
done

tools=()
for f in "$repo"/tools/* "$repo"/tools/dev/* "$repo"/tests/fuzz/run "$repo"/tests/catch_shard.sh "$repo"/.ci/run "$repo"/.ci/background-builds; do
  [ -f "$f" ] && [ -x "$f" ] && tools+=("$f")
done
[ "${#tools[@]}" -gt 10 ] || { echo "FAIL: found only ${#tools[@]} tools under $repo/tools"; exit 1; }

failed=0
for tool in "${tools[@]}"; do
  for flag in -h --help; do
    rm -f "$stubs/called"
    out=$(cd "$stubs" && PATH="$stubs:$PATH" timeout 60 "$tool" "$flag" 2>&1)
    rc=$?
    what="${tool#"$repo"/} $flag"
    if [ -e "$stubs/called" ]; then
      echo "FAIL: $what called $(tr '\n' ';' < "$stubs/called")"; failed=1
    elif [ "$rc" != 0 ]; then
      echo "FAIL: $what exited $rc: $(head -3 <<< "$out")"; failed=1
    elif ! grep -qi 'usage\|^ *-h\b\|--help' <<< "$out"; then
      echo "FAIL: $what printed no usage: $(head -3 <<< "$out")"; failed=1
    fi
  done
done

versioned=0
for tool in "${tools[@]}"; do
  case "$tool" in "$repo"/tools/*|"$repo"/.ci/*) ;; *) continue ;; esac
  rm -f "$stubs/called"
  out=$(cd "$stubs" && PATH="$stubs:$PATH" timeout 60 "$tool" --version 2>&1)
  rc=$?
  what="${tool#"$repo"/} --version"
  name=$(basename "$tool")
  if [ -e "$stubs/called" ]; then
    echo "FAIL: $what called $(tr '\n' ';' < "$stubs/called")"; failed=1
  elif [ "$rc" != 0 ]; then
    echo "FAIL: $what exited $rc: $(head -3 <<< "$out")"; failed=1
  elif ! [[ $(sed -n 1p <<< "$out") =~ ^"$name"\ \(rdmabench\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "FAIL: $what: first line is not '$name (rdmabench) X.Y.Z': $(sed -n 1p <<< "$out")"; failed=1
  elif ! sed -n 2p <<< "$out" | grep -q 'rdma-core'; then
    echo "FAIL: $what: second line names no rdma-core: $(sed -n 2p <<< "$out")"; failed=1
  else
    versioned=$((versioned + 1))
  fi
done
# A usage error exits 2, as in every binary and tool (the lab's wrapper
# once said 126, its setup errors' status), before anything runs.
while read -r tool args; do
  what="tools/$tool $args"
  [ -x "$repo/tools/$tool" ] || { echo "FAIL: tools/$tool is not there"; failed=1; continue; }
  rm -f "$stubs/called"
  # shellcheck disable=SC2086  # the arguments split on purpose
  out=$(cd "$stubs" && PATH="$stubs:$PATH" timeout 60 "$repo/tools/$tool" $args 2>&1)
  rc=$?
  if [ -e "$stubs/called" ]; then
    echo "FAIL: $what called $(tr '\n' ';' < "$stubs/called")"; failed=1
  elif [ "$rc" != 2 ]; then
    echo "FAIL: $what exited $rc, not 2: $(head -3 <<< "$out")"; failed=1
  fi
done <<'EOF_USAGE'
rdma-lab --no-such-option
compare-perftest --no-such-option
compare-perftest --rounds 0
compare-perftest --seed 1
transport-shootout --no-such-option
gdr-affinity-study --no-such-option
run-pair --no-such-option
EOF_USAGE
[ "$versioned" -gt 10 ] || [ "$failed" != 0 ] || { echo "FAIL: only $versioned tools checked for --version"; failed=1; }
[ "$failed" = 0 ] && echo "ok: ${#tools[@]} tools answer -h and --help with their usage, $versioned --version with theirs, exit 0, nothing installed or built"
exit "$failed"
