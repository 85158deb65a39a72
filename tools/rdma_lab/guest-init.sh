#!/.bb/busybox sh
# shellcheck shell=sh disable=SC2015  # "A && B || say": say when either fails
# rdmabench lab guest init: PID 1 of the tools/rdma-lab guest (busybox sh).
#
# A file of its own because it is not host code: it runs inside the guest,
# as a POSIX sh under busybox, with nothing but /.bb/busybox until the host's
# /usr is mounted. build_initramfs (tools/rdma_lab/host-setup.sh) copies it
# unchanged to /init, beside /.lab-env; the initramfs' cache key covers this
# file, so an edit here rebuilds the initramfs on the next run.
#
# What it shares with the host (tools/rdma_lab/boot.sh):
#   /.lab-env     (in the initramfs) the lab constants, from tools/rdma-lab:
#                 RXE_DEV RXE_NETDEV RXE_IP, SIW_DEV SIW_NETDEV SIW_IP,
#                 MARK_BEGIN MARK_END, PATH
#   /.ctl         this run's control share: read shares ("TAG PATH" lines),
#                 flags (LAB_LINKS=0|1) and cmd.sh (the command, for bash);
#                 written: times ("init=S ready=S", once the devices are up,
#                 before the command) and rc (the command's exit status)
#   ttyS0         the console: "init: ..." messages, then MARK_BEGIN, the
#                 command's stdout, and "MARK_END rc=N@@" (the status again,
#                 should the control share fail)
#   ttyS1         the command's stderr, raw
# shellcheck source=/dev/null
. /.lab-env
B=/.bb/busybox
say() { echo "init: $*"; }
uptime_s() { $B cut -d' ' -f1 /proc/uptime; }

mount_pseudo_filesystems() {
  $B mount -t proc proc /proc
  $B mount -t sysfs sys /sys
  $B mount -t devtmpfs dev /dev
  $B mkdir -p /dev/pts /dev/shm
  $B mount -t devpts devpts /dev/pts
  $B mount -t tmpfs -o mode=1777 shm /dev/shm
  $B mount -t tmpfs -o mode=1777 tmp /tmp
  $B mount -t tmpfs -o mode=755 run /run
}

load_modules() {
  for m in $($B cat /kmod/order); do
    $B insmod /kmod/"$m" 2>/dev/null && continue
    # crc32c-intel needs SSE4.2, which -cpu qemu64 lacks; crc32c_generic stands in.
    case $m in crc32c-intel.ko) ;; *) say "insmod $m failed" ;; esac
  done
}

# /.ctl is this run's control folder on the host; /usr and /etc are the host's.
mount_shares() {
  o=trans=virtio,version=9p2000.L,msize=512000
  $B mount -t 9p -o $o,cache=mmap ctl /.ctl || { say "control share mount failed"; return 1; }
  $B mount -t 9p -o $o,ro,cache=loose hostusr /usr || say "/usr mount failed"
  $B mount -t 9p -o $o,ro,cache=loose hostetc /etc || say "/etc mount failed"
  while IFS= read -r line; do       # "TAG PATH", PATH may hold spaces
    tag=${line%% *} path=${line#* }
    $B mkdir -p "$path" && $B mount -t 9p -o $o,cache=mmap "$tag" "$path" || say "mount $path failed"
  done < /.ctl/shares
}

setup_network() {
  $B hostname rdmabench-lab
  ip link set lo up
  ip addr add "$RXE_IP"/24 dev "$RXE_NETDEV" && ip link set "$RXE_NETDEV" up || say "$RXE_NETDEV setup failed"
  # dummy.ko creates dummy0 when it loads.
  [ -e /sys/class/net/"$SIW_NETDEV" ] || ip link add "$SIW_NETDEV" type dummy
  ip addr add "$SIW_IP"/24 dev "$SIW_NETDEV" && ip link set "$SIW_NETDEV" up || say "$SIW_NETDEV setup failed"
  if [ "$LAB_LINKS" = 1 ]; then
    rdma link add "$RXE_DEV" type rxe netdev "$RXE_NETDEV" || say "$RXE_DEV link failed"
    rdma link add "$SIW_DEV" type siw netdev "$SIW_NETDEV" || say "$SIW_DEV link failed"
  fi
}

# Guest stderr goes out on the second serial port, raw (no \r added), so the
# host can keep it apart from stdout.
stderr_device() {
  if [ -e /dev/ttyS1 ] && $B stty -F /dev/ttyS1 raw -echo 2>/dev/null; then
    echo /dev/ttyS1
  else
    echo /dev/console
  fi
}

# stty sets attributes with TCSADRAIN, so it returns once the serial port has
# sent everything: nothing is lost at power-off.
drain() { $B stty -F "$1" -echo 2>/dev/null || true; }

power_off() { $B sync; $B poweroff -f; }

mount_pseudo_filesystems
t_init=$(uptime_s)
load_modules
mount_shares || power_off
. /.ctl/flags
setup_network
# shellcheck disable=SC3045  # busybox ash has ulimit -l
ulimit -l unlimited     # memory registration pins pages
echo "init=$t_init ready=$(uptime_s)" > /.ctl/times
err=$(stderr_device)
echo "$MARK_BEGIN"
$B env -i /usr/bin/bash --noprofile --norc /.ctl/cmd.sh < /dev/null 2> "$err"
rc=$?
drain "$err"
echo $rc > /.ctl/rc
echo "$MARK_END rc=$rc@@"
drain /dev/ttyS0
power_off
