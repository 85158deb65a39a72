# shellcheck shell=bash
# tools/rdma-lab's boot: one run of the guest. A run folder of its own (so
# runs overlap), its control files, qemu's arguments, the boot under a
# watchdog (a boot that hangs is killed and tried again), the console split
# into the command's stdout and stderr, and the exit status the guest
# reports back. Sourced by tools/rdma-lab; start_run runs under setup's
# lock, the rest after setup.
#
# Apart from the host setup (host-setup.sh, beside this file) because it is
# per run: but for pruning the folders of runs that were killed, all it
# writes is its own run folder and last-console.log, and nothing it does
# outlives the run. The files it exchanges with the guest init are listed
# in guest-init.sh's header. From tools/rdma-lab it uses log, the options
# (SHARES, TIMEOUT, LINKS, VERBOSE), command_line and the lab constants;
# from the setup LAB_DIR, VMLINUZ and INITRD.

MEM=${RDMABENCH_LAB_MEM:-2G}
SMP=${RDMABENCH_LAB_SMP:-2}          # one vCPU makes busy-polling peers share it
CPU=${RDMABENCH_LAB_CPU:-qemu64}     # faster under TCG than "max" (rxe 1.5x, siw 4x)

# Under TCG the guest kernel now and then hangs early in boot, with nothing
# on the console after the BIOS (2 of about 15 boots on a 2-core host in
# one afternoon). A boot normally takes 4-10 s, so a guest not ready within
# BOOT_LIMIT is killed and booted again.
BOOT_LIMIT=${RDMABENCH_LAB_BOOT_LIMIT:-120}
BOOT_TRIES=3

# qemu splits option values at commas; a literal comma is written twice.
qemu_escape() { printf '%s' "${1//,/,,}"; }

# Each run boots from its own folder, so runs can overlap. It pins this run's
# initramfs with a hard link: another version of this tool may rebuild the
# shared one while we boot.
new_run_folder() {
  RUN=$(mktemp -d "$LAB_DIR/runs/run.XXXXXX")
  echo $$ > "$RUN/pid"
  ln "$INITRD" "$RUN/initrd.gz" 2>/dev/null || cp "$INITRD" "$RUN/initrd.gz"
}

# Run folders of runs that were killed outright (no EXIT trap) pile up.
prune_stale_runs() {
  local d pid
  for d in "$LAB_DIR"/runs/run.*; do
    [ -d "$d" ] || continue
    pid=$(cat "$d/pid" 2>/dev/null || true)
    [ -n "$pid" ] && [ -d "/proc/$pid" ] && continue
    [ -n "$pid" ] || [ -n "$(find "$d" -maxdepth 0 -mmin +1440)" ] || continue
    rm -rf "$d"
  done
}

# A run starts under setup's lock: old run folders go, ours is made.
start_run() {
  prune_stale_runs
  new_run_folder
}

# The per-run control share: the command, its environment, the shares to
# mount; the guest writes back its exit status and timing.
write_control_files() {
  local ctl=$RUN/ctl cwd=/ i=0 s name
  mkdir -p "$ctl"
  : > "$ctl/shares"
  for s in "${SHARES[@]}"; do
    printf 's%d %s\n' "$i" "$s" >> "$ctl/shares"
    case "$PWD/" in "$s"/*) cwd=$PWD ;; esac
    i=$((i + 1))
  done
  case "$PWD" in /usr|/usr/*|/etc|/etc/*) cwd=$PWD ;; esac     # visible read-only
  [ "$cwd" = "$PWD" ] || log "note: $PWD is not shared with the guest; starting in /"
  echo "LAB_LINKS=$LINKS" > "$ctl/flags"
  {
    echo "# guest environment of one rdma-lab run"
    # Host variables a test may look at; the lab's own settings stay behind.
    for name in $(compgen -e); do
      case "$name" in
        RDMABENCH_LAB|RDMABENCH_LAB_*) ;;
        CI|RDMABENCH_*|ASAN_OPTIONS|UBSAN_OPTIONS|LSAN_OPTIONS)
          printf 'export %s=%q\n' "$name" "${!name}" ;;
      esac
    done
    printf 'export PATH=%q HOME=/root TERM=dumb LANG=C.UTF-8\n' "$GUEST_PATH"
    printf 'export RXE_DEV=%s RXE_IP=%s SIW_DEV=%s SIW_IP=%s\n' "$RXE_DEV" "$RXE_IP" "$SIW_DEV" "$SIW_IP"
    echo "export RDMABENCH_LAB=1"
  } > "$ctl/env"
  {
    echo ". /.ctl/env"
    printf 'cd -- %q || exit 126\n' "$cwd"
    command_line
  } > "$ctl/cmd.sh"
}

qemu_args() {
  local run_esc i=0 s
  run_esc=$(qemu_escape "$RUN")
  local loglevel="quiet loglevel=1"
  [ "$VERBOSE" = 1 ] && loglevel="loglevel=6"
  # shellcheck disable=SC2054  # the commas belong to qemu's option syntax
  QEMU_ARGS=(
    -nodefaults -no-user-config -nographic -monitor none -no-reboot
    -m "$MEM" -smp "$SMP" -cpu "$CPU" -accel tcg,thread=multi   # no /dev/kvm here
    -kernel "$VMLINUZ" -initrd "$RUN/initrd.gz"
    -append "console=ttyS0 panic=-1 mitigations=off $loglevel ${RDMABENCH_LAB_KERNEL_ARGS:-}"
    -serial stdio                                               # ttyS0: console, stdout
    -chardev "file,id=guesterr,path=$run_esc/stderr.fifo"
    -device isa-serial,chardev=guesterr                         # ttyS1: stderr
    # restrict=on: no traffic leaves qemu; romfile= skips the iPXE ROM
    -netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0,romfile=
    -virtfs "local,path=$run_esc/ctl,mount_tag=ctl,security_model=none"
    -virtfs "local,path=/usr,mount_tag=hostusr,security_model=none,readonly=on"
    -virtfs "local,path=/etc,mount_tag=hostetc,security_model=none,readonly=on"
  )
  for s in "${SHARES[@]}"; do
    QEMU_ARGS+=(-virtfs "local,path=$(qemu_escape "$s"),mount_tag=s$i,security_model=none")
    i=$((i + 1))
  done
}

# Show the command's part of the console (or all of it with -v); init's own
# messages go to stderr. Debian's mawk buffers a pipe unless interactive.
console_filter() {
  local awk=(awk)
  [[ $(awk -W version 2>&1) == *mawk* ]] && awk=(awk -W interactive)
  # shellcheck disable=SC2016  # awk's own $0, not the shell's
  "${awk[@]}" -v verbose="$VERBOSE" -v begin="$MARK_BEGIN" -v end="$MARK_END rc=" '
    { sub(/\r$/, "") }
    # SeaBIOS output can share a line with the begin marker
    !on && index($0, begin) { on = 1; if (!verbose) next }
    # output without a final newline shares a line with the end marker
    on && (i = index($0, end)) {
      on = 0
      if (!verbose) { if (i > 1) print substr($0, 1, i - 1); fflush(); next }
    }
    !verbose && !on && /^init: / { print > "/dev/stderr"; next }
    verbose || on { print; fflush() }'
}

# Stop the guest when we are stopped: qemu runs in the background of this
# script, so a signal to the script alone would otherwise leave it running.
# Signalling timeout makes it pass the signal on to qemu.
# shellcheck disable=SC2317  # called from traps
on_signal() {
  trap - INT TERM HUP
  log "interrupted"
  if [ -n "${GUEST_PIPELINE:-}" ]; then
    local pid
    pid=$(cat "$RUN/timeout.pid" 2>/dev/null || true)
    [ -z "$pid" ] || kill "$pid" 2>/dev/null || true
    wait "$GUEST_PIPELINE" 2>/dev/null || true    # let it finish its files
  fi
  exit "$1"
}

# shellcheck disable=SC2317  # called from the EXIT trap
cleanup() {
  [ -n "${RUN:-}" ] || return 0
  if [ "${RDMABENCH_LAB_KEEP:-0}" = 1 ]; then log "run folder kept: $RUN"; else rm -rf "$RUN"; fi
}

# qemu under the wall-clock limit. It heads a pipeline, so its exit status
# goes to a file. --foreground keeps it in our process group, so a Ctrl-C at
# the terminal reaches it; its own messages go to a file ("terminating on
# signal" is noise after a timeout).
run_qemu() {
  trap - ERR                  # exit_status judges a failing qemu
  local rc=0
  timeout --foreground -k 10 "$TIMEOUT" qemu-system-x86_64 "${QEMU_ARGS[@]}" \
    < /dev/null 2> "$RUN/qemu.log" &
  echo $! > "$RUN/timeout.pid"
  wait $! || rc=$?
  echo "$rc" > "$RUN/qemu.rc"
}

# One boot. Returns 1 only when the guest was killed for not being ready
# within BOOT_LIMIT; any other end (the command's, a timeout) returns 0.
boot_once() {
  # Guest stderr (second serial port) arrives through a fifo.
  mkfifo "$RUN/stderr.fifo"
  cat "$RUN/stderr.fifo" >&2 &
  local errcat=$! hung=0 waited=0
  T0=$(date +%s.%N)
  run_qemu | tee "$RUN/console.log" | console_filter &
  GUEST_PIPELINE=$!
  # init writes ctl/times once rxe0 and siw0 are up, before the command.
  while [ ! -e "$RUN/ctl/times" ] && kill -0 "$GUEST_PIPELINE" 2>/dev/null; do
    if [ "$waited" -ge $((BOOT_LIMIT * 5)) ]; then
      hung=1
      kill "$(cat "$RUN/timeout.pid" 2>/dev/null)" 2>/dev/null || true
      break
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  wait "$GUEST_PIPELINE" || true
  T1=$(date +%s.%N)
  # If qemu died before opening the fifo, cat still waits for a writer:
  # open it read-write (never blocks) and close it so cat sees end of file.
  exec {fifo}<>"$RUN/stderr.fifo"; exec {fifo}>&-
  wait "$errcat" || true
  { cat "$RUN/console.log"
    if [ -s "$RUN/qemu.log" ]; then echo "--- qemu messages"; cat "$RUN/qemu.log"; fi
  } > "$LAB_DIR/last-console.log" 2>/dev/null || true
  return "$hung"
}

boot_guest() {
  qemu_args
  local attempt
  for attempt in $(seq 1 "$BOOT_TRIES"); do
    [ "$attempt" = 1 ] ||
      rm -f "$RUN/stderr.fifo" "$RUN/console.log" "$RUN/qemu.log" "$RUN/qemu.rc" "$RUN/ctl/times" "$RUN/ctl/rc"
    boot_once && return 0
    log "the guest was not ready after ${BOOT_LIMIT}s (boot $attempt of $BOOT_TRIES; its console is in $LAB_DIR/last-console.log)"
  done
  log "giving up: no boot of $BOOT_TRIES was ready within ${BOOT_LIMIT}s"
}

# The guest writes its status to the control share; the console marker is the
# fallback.
exit_status() {
  local qrc rc
  qrc=$(cat "$RUN/qemu.rc" 2>/dev/null || echo '?')
  if [ -s "$RUN/ctl/rc" ]; then
    rc=$(cat "$RUN/ctl/rc")
  elif rc=$(grep -ao "$MARK_END rc=[0-9]*" "$RUN/console.log" | tail -n 1 | grep -o '[0-9]*$'); then
    :
  elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
    log "timeout after ${TIMEOUT}s"; rc=124
  else
    log "guest reported no exit status (qemu rc=$qrc); end of $LAB_DIR/last-console.log:"
    tail -n 30 "$LAB_DIR/last-console.log" | tr -d '\r' >&2
    rc=125
  fi
  echo "$rc"
}

report_timing() {
  local init='?' ready='?' fields=() f
  read -ra fields 2>/dev/null < "$RUN/ctl/times" || true
  for f in "${fields[@]}"; do
    case "$f" in init=*) init=${f#init=} ;; ready=*) ready=${f#ready=} ;; esac
  done
  log "guest ready ${ready}s (init ${init}s, guest clock); wall $(awk -v a="$T0" -v b="$T1" 'BEGIN { printf "%.1f", b - a }')s; rc=$1"
}
