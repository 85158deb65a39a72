#!/usr/bin/env bash
# rdma_sweep across two kernels, once: mpirun spans the two guests of the
# shared lab's pair script (a qemu-private link between them), one or two
# ranks per guest, on rxe0 and on siw0. Not in CI (it needs the reference
# scripts outside this repository and openssh-server on the host).
#
# On the host:
#   KEYS=$PWD/build/two-guest-keys tools/dev/sweep-two-guests.sh --keys
#   /work/shared/soft-rdma-lab/run-lab-pair.reference.sh --pair -s $PWD -t 900 -- \
#     "source $PWD/tools/dev/sweep-two-guests.sh $PWD/build" "source $PWD/tools/dev/sweep-two-guests.sh $PWD/build"
# The sweeps' folders land in BUILD/two-guest-sweeps/.
#
# Usage: source sweep-two-guests.sh BUILD (in both guests)
. "$(dirname "${BASH_SOURCE[0]}")/usage.sh" "$@"
if [ "${1:-}" = --keys ]; then
  mkdir -p "$KEYS" && rm -f "$KEYS"/*
  ssh-keygen -q -t ed25519 -N '' -f "$KEYS/id" && ssh-keygen -q -t ed25519 -N '' -f "$KEYS/hostkey"
  cp "$KEYS/id.pub" "$KEYS/authorized_keys" && chmod 600 "$KEYS/id" "$KEYS/hostkey" "$KEYS/authorized_keys"
  exit
fi
BUILD=${1:?usage: source sweep-two-guests.sh BUILD (in both guests)}
KEYS=$BUILD/two-guest-keys
OUT=$BUILD/two-guest-sweeps
mkdir -p /run/sshd
cat > /run/sshd_config <<CONF
Port 2222
HostKey $KEYS/hostkey
AuthorizedKeysFile $KEYS/authorized_keys
PermitRootLogin yes
StrictModes no
PasswordAuthentication no
UsePAM no
PidFile /run/sshd.pid
CONF
/usr/sbin/sshd -f /run/sshd_config -E /run/sshd.log
cat > /run/ssh_agent.sh <<AG
#!/bin/sh
exec ssh -p 2222 -i $KEYS/id -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "\$@"
AG
chmod +x /run/ssh_agent.sh
if [ "$LAB_ROLE" = b ]; then
  lab_post up; lab_wait done 900
else
  lab_wait up 60
  rm -rf "$OUT"; mkdir -p "$OUT"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 MPLCONFIGDIR=$BUILD/mplconfig
  # MPI over the private link only (the user-net of each guest is its own).
  mpi=(--mca plm_rsh_agent /run/ssh_agent.sh --mca oob_tcp_if_include 192.168.77.0/24
       --mca btl self,vader,tcp --mca btl_tcp_if_include 192.168.77.0/24)
  run() {  # NAME HOSTS NP ARGS...
    local name=$1 hosts=$2 np=$3 t0; shift 3
    t0=$(date +%s.%N)
    mpirun --oversubscribe -np "$np" -H "$hosts" "${mpi[@]}" "$BUILD/bench/rdma_sweep" --out "$OUT/$name" "$@"
    echo "== $name: exit status $? after $(echo "$(date +%s.%N) - $t0" | bc) s"
    cat "$OUT/$name/failures.txt" 2>/dev/null
    grep -E '^\| [0-9]' "$OUT/$name/report.md" | head -12
  }
  run rxe-2 192.168.77.1,192.168.77.2 2 -d rxe0 --test write_bw,write_lat -n 1000 --no-heatmaps
  run siw-2 192.168.77.1,192.168.77.2 2 -d siw0 --test write_bw,write_lat -n 1000 --no-heatmaps
  run rxe-4 192.168.77.1:2,192.168.77.2:2 4 -d rxe0 --test write_bw -n 1000 --no-heatmaps
  lab_post done
fi
