#!/usr/bin/env bash
# slurm_one_node.sh - run COMMAND inside a throwaway one-node Slurm cluster
# (Debian's munge, slurmctld and slurmd) on this machine, then stop it again.
#
# Usage: tests/lab/slurm_one_node.sh COMMAND [ARGS...]
#
#   Meant for the lab guest (tools/rdma-lab), as root: /etc is the host's and
#   read-only there, so everything the daemons write or read that is not a
#   package file lives under one folder, $SLURM_ONE_NODE_DIR (default
#   /run/rdmabench-slurm): the munge key, munged's socket, slurm.conf, the
#   state and spool folders, logs and pid files. COMMAND runs with SLURM_CONF
#   pointing at that slurm.conf, so srun, sbatch and sinfo find the cluster.
#   The node is this machine's hostname at 127.0.0.1 (the guest's name does
#   not resolve through the host's /etc/hosts), with its real `nproc` CPUs;
#   COMMAND also gets SLURM_OVERCOMMIT=1, so `srun -n 8` on 2 CPUs starts
#   8 tasks instead of queueing for CPUs that will never come.
#
#   Exit status: COMMAND's; 77 outside the lab guest (it would start daemons
#   on the host's default Slurm ports), when not root, or when a package is
#   missing (tools/install-deps slurm installs them); 1 when the cluster does not
#   come up, after printing the daemons' logs.
#
# Environment: SLURM_ONE_NODE_DIR, SLURM_ONE_NODE_MPI (MpiDefault, default
# pmix), SLURM_ONE_NODE_WAIT (seconds the node may take to turn idle after
# the daemons start, default 60).
set -uo pipefail

DIR=${SLURM_ONE_NODE_DIR:-/run/rdmabench-slurm}
MPI_DEFAULT=${SLURM_ONE_NODE_MPI:-pmix}
WAIT_S=${SLURM_ONE_NODE_WAIT:-60}
NODE=$(hostname -s)

log() { echo "slurm_one_node: $*" >&2; }

[ $# -gt 0 ] || { log "usage: $0 COMMAND [ARGS...]"; exit 2; }
[ "${RDMABENCH_LAB:-}" = 1 ] ||
  { echo "SKIPPED: starts Slurm daemons as root, so only inside tools/rdma-lab"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIPPED: needs root (daemons as root in the lab guest)"; exit 77; }
for tool in munged mungekey slurmctld slurmd srun sinfo scontrol; do
  PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null ||
    { echo "SKIPPED: no $tool (tools/install-deps slurm installs munge, slurmctld, slurmd, slurm-client)"; exit 77; }
done
PATH=$PATH:/usr/sbin

# munged insists that its key is private to its user, that no folder on the
# way to its key or socket is writable by others, and that every one is
# searchable by all (clients must reach the socket). The guest's / is 0700
# (an initramfs), which only --force lets pass, as a warning; the guest's name
# does not resolve, hence --origin.
start_munge() {
  mkdir -p "$DIR/munge" && chmod 755 "$DIR" "$DIR/munge" || return 1
  mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null || return 1
  munged --key-file="$DIR/munge/munge.key" --socket="$DIR/munge/munge.socket" \
         --log-file="$DIR/munge/munged.log" --pid-file="$DIR/munge/munged.pid" \
         --seed-file="$DIR/munge/munged.seed" --origin=127.0.0.1 --force || return 1
}

write_slurm_conf() {
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log" || return 1
  cat >"$DIR/slurm.conf" <<EOF
# One node, written by tests/lab/slurm_one_node.sh; everything under $DIR.
ClusterName=rdmabench-lab
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups in the guest: track processes by parent pid, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=$MPI_DEFAULT
ReturnToService=2
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=$NODE CPUs=$(nproc) State=UNKNOWN
# Up to 8 jobs may share a CPU (an sbatch job and an srun beside it);
# SLURM_OVERCOMMIT lets one job's tasks outnumber the CPUs.
PartitionName=lab Nodes=$NODE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
EOF
  # slurmd loads a cgroup plugin whatever the other plugins are, and 22.05's
  # autodetect fails with "No filesystem mounted on /sys/fs/cgroup" in the
  # guest; v1, named outright, loads without one and nothing here uses it.
  echo "CgroupPlugin=cgroup/v1" >"$DIR/cgroup.conf"
}

# Bounded wait until sinfo reports the node idle.
wait_node_idle() {
  local deadline=$((SECONDS + WAIT_S)) state=
  while [ $SECONDS -lt $deadline ]; do
    state=$(sinfo -h -n "$NODE" -o %T 2>/dev/null) || state=
    [ "$state" = idle ] && return 0
    sleep 1
  done
  log "node $NODE not idle after ${WAIT_S}s (sinfo says: ${state:-nothing})"
  return 1
}

print_logs() {
  local f
  for f in "$DIR/munge/munged.log" "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log"; do
    [ -e "$f" ] || continue
    echo "----- $f (last 40 lines)" >&2
    tail -n 40 "$f" >&2
  done
}

# Stop one daemon by its pid file, waiting (bounded) until it is gone.
stop_by_pid_file() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null
}

stop_all() {
  stop_by_pid_file "$DIR/slurmd.pid"
  stop_by_pid_file "$DIR/slurmctld.pid"
  stop_by_pid_file "$DIR/munge/munged.pid"
}

start_cluster() {
  start_munge || { log "munged did not start"; return 1; }
  write_slurm_conf || { log "cannot write $DIR/slurm.conf"; return 1; }
  export SLURM_CONF=$DIR/slurm.conf
  slurmctld || { log "slurmctld did not start"; return 1; }
  slurmd -N "$NODE" || { log "slurmd did not start"; return 1; }
  wait_node_idle
}

if [ -e "$DIR" ]; then
  log "$DIR exists: another cluster runs here, or one was not cleaned up"; exit 1
fi
trap 'stop_all; rm -rf "$DIR"' EXIT
started=$SECONDS
start_cluster || { print_logs; exit 1; }
log "node $NODE idle after $((SECONDS - started))s (MpiDefault=$MPI_DEFAULT)"
SLURM_OVERCOMMIT=1 "$@"
rc=$?
[ $rc = 0 ] || print_logs
exit $rc
