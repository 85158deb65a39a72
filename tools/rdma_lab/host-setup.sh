# shellcheck shell=bash
# tools/rdma-lab's host setup: what a boot needs that outlives it, in the
# cache (${RDMABENCH_LAB_DIR:-~/.cache/rdmabench-lab}/cache): the host
# packages, Debian's kernel (extracted, never installed), siw.ko built out
# of tree, a static busybox, and the initramfs with the guest init
# (guest-init.sh, beside this file). Sourced by tools/rdma-lab, which runs
# setup before every boot, and alone for --setup-only.
#
# Apart from the boot (boot.sh, beside this file) because it lives apart:
# it runs once per cache and then finds everything done, one cache serves
# every checkout and run on the machine (under a lock), and what it builds
# is keyed to what it is built from. Every step checks its own result
# first, so a run after an interrupted one picks up where it stopped.
# From tools/rdma-lab it uses log, die, LAB_LIB (this folder) and the lab
# constants (RXE_*, SIW_*, MARK_*, GUEST_PATH); it sets LAB_DIR and CACHE,
# and setup sets KREL, VMLINUZ and INITRD for the boot.

# Host packages: qemu, the RDMA userspace the guest uses through the shared
# /usr, and the toolchain that builds siw.ko (Debian's 6.1 kernel lacks it).
HOST_PACKAGES=(qemu-system-x86 ibverbs-providers ibverbs-utils rdmacm-utils
               perftest iproute2 kmod cpio gzip xz-utils make gcc-12 libc6-dev)

# Guest modules, loaded in this order together with their dependencies.
# crc32_generic must precede rdma_rxe: the guest cannot auto-load crypto
# modules and rxe then fails with "failed to init crc32 algorithm".
# bridge, sch_prio, sch_netem, cls_u32 and act_gact are for
# tests/lab/sweep_faults.sh: "hosts" on veths joined by a bridge, one made
# slow and one pair cut with tc (the guest has no /lib/modules to auto-load
# them from, and the host may lack iptables).
GUEST_MODULES=(virtio_pci virtio_net 9p 9pnet_virtio veth dummy crc32_generic
               rdma_rxe siw ib_uverbs rdma_ucm ib_umad
               bridge sch_prio sch_netem cls_u32 act_gact)

is_root() { [ "$(id -u)" = 0 ]; }

# The cache lives outside the repository, so every checkout and CI job on a
# machine shares one.
lab_dir() {
  if [ -n "${RDMABENCH_LAB_DIR:-}" ]; then echo "$RDMABENCH_LAB_DIR"
  elif [ -n "${XDG_CACHE_HOME:-}" ]; then echo "$XDG_CACHE_HOME/rdmabench-lab"
  elif [ -n "${HOME:-}" ]; then echo "$HOME/.cache/rdmabench-lab"
  else die "set HOME or RDMABENCH_LAB_DIR"
  fi
}
LAB_DIR=$(lab_dir) || exit 126
CACHE=$LAB_DIR/cache

# apt-get download as root warns that the _apt sandbox user cannot write to
# the folder; we download into our own cache on purpose. Into the current
# folder.
apt_download() {
  local opts=(-qq) watcher=
  # On a terminal, apt's own progress: the first setup's download is long.
  # Elsewhere (a CI log), a line every 10 s with the megabytes so far.
  if [ -t 2 ]; then
    opts=(-q)
  else
    local total
    total=$(download_mb "$@")
    # Its sleep is ended with it, so that nothing holds stderr open after.
    (trap 'kill $! 2>/dev/null; exit 0' TERM
     while :; do
       sleep 10 & wait $!
       log "downloaded $(du -sm --apparent-size . 2>/dev/null | cut -f1) of $total MB"
     done) &
    watcher=$!
  fi
  is_root && opts+=(-o APT::Sandbox::User=root)
  local rc=0
  apt-get "${opts[@]}" download "$@" >&2 || rc=$?
  [ -z "$watcher" ] || kill "$watcher" 2>/dev/null || true
  return "$rc"
}

# 212: the download size in MB of the packages (NAME=VERSION) in $@.
download_mb() {
  apt-cache show --no-all-versions "$@" 2>/dev/null |
    awk '/^Size:/ { total += $2 } END { printf "%.0f", total / 1e6 }'
}

# "about 212 MB", for the line before the download.
download_size() { echo "about $(download_mb "$@") MB"; }

# Whether apt can install package $1. (Not "apt-cache | grep -q": under
# pipefail, grep's early exit fails the pipeline with SIGPIPE.)
apt_has_candidate() {
  [[ $(apt-cache policy "$1" 2>/dev/null) == *"Candidate: "[0-9]* ]]
}

# Make sure apt knows package $1, refreshing the lists once if needed (root).
apt_knows() {
  apt_has_candidate "$1" && return 0
  is_root || die "apt does not know $1; run 'apt-get update' as root"
  log "apt-get update"
  apt-get update -qq || die "apt-get update failed"
  apt_has_candidate "$1"
}

missing_packages() {
  # One dpkg-query call for all: packages it does not know print nothing.
  local installed
  installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' "$@" 2>/dev/null |
              awk '$2 == "installed" { sub(/:.*/, "", $1); print $1 }') || true
  local p
  for p in "$@"; do
    grep -qxF -- "$p" <<<"$installed" || echo "$p"
  done
}

ensure_host_packages() {
  local need
  mapfile -t need < <(missing_packages "${HOST_PACKAGES[@]}")
  [ ${#need[@]} -gt 0 ] || return 0
  is_root || die "missing host packages: ${need[*]}; install them as root (tools/install-deps lab does)"
  log "installing host packages: ${need[*]}"
  apt-get update -qq || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null ||
    die "apt-get install failed: ${need[*]}"
}

# The guest kernel release is fixed once per cache, so that later runs keep
# booting the kernel their siw.ko was built for, even after Debian moves on.
resolve_kernel_release() {
  if [ -n "${RDMABENCH_LAB_KREL:-}" ]; then KREL=$RDMABENCH_LAB_KREL
  elif [ -s "$CACHE/krel" ]; then KREL=$(cat "$CACHE/krel")
  else
    apt_knows linux-image-amd64 || die "apt has no linux-image-amd64 (a Debian 12 host is expected)"
    KREL=$(apt-cache depends linux-image-amd64 |
           awk '/Depends: linux-image-[0-9]/ { sub(/.*linux-image-/, ""); print; exit }')
    [ -n "$KREL" ] || die "cannot tell which kernel linux-image-amd64 depends on"
  fi
  KABI=${KREL%-amd64}                      # 6.1.0-57
  KSERIES=$(cut -d. -f1,2 <<<"$KREL")      # 6.1
  DEBS=$CACHE/debs-$KREL
  KROOT=$CACHE/kernel-$KREL                # extracted linux-image package
  HROOT=$CACHE/headers-$KREL               # extracted headers and kbuild
  MODDIR=$KROOT/lib/modules/$KREL
  # shellcheck disable=SC2034  # boot.sh boots it
  VMLINUZ=$KROOT/boot/vmlinuz-$KREL
}

# Download the kernel packages named in $@ that are not cached yet, all of the
# version linux-image-$KREL has (they come from one source package).
fetch_kernel_debs() {
  local p missing=() version
  for p in "$@"; do
    compgen -G "$DEBS/${p}_*.deb" >/dev/null || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  apt_knows "linux-image-$KREL" || die "apt has no linux-image-$KREL (unset RDMABENCH_LAB_KREL or clear $CACHE/krel)"
  version=$(apt-cache show --no-all-versions "linux-image-$KREL" | awk '/^Version:/ { print $2; exit }')
  log "downloading ${missing[*]} ($version; $(download_size "${missing[@]/%/=$version}"), once: later boots use the cache)"
  mkdir -p "$DEBS"
  (cd "$DEBS" && apt_download "${missing[@]/%/=$version}") || die "apt-get download failed"
}

# Kernel image, module tree, headers and kbuild scripts: extracted, never
# installed, so the host's own kernel setup stays untouched.
prepare_kernel() {
  [ -e "$CACHE/.done-kernel-$KREL" ] && return 0
  fetch_kernel_debs "linux-image-$KREL" "linux-headers-$KREL" \
                    "linux-headers-$KABI-common" "linux-kbuild-$KSERIES"
  log "extracting kernel $KREL"
  rm -rf "$KROOT" "$HROOT"
  rm -f "$CACHE/.done-siw-$KREL"        # siw.ko lives in the tree removed here
  dpkg-deb -x "$DEBS"/linux-image-"$KREL"_*.deb "$KROOT"
  local p
  for p in "linux-headers-$KREL" "linux-headers-$KABI-common" "linux-kbuild-$KSERIES"; do
    dpkg-deb -x "$DEBS/$p"_*.deb "$HROOT"
  done
  # The arch headers' Makefile includes the common headers by their absolute
  # installed path (/usr/src/...); point it at the extracted copy instead.
  printf 'include %s/usr/src/linux-headers-%s-common/Makefile\n' "$HROOT" "$KABI" \
    > "$HROOT/usr/src/linux-headers-$KREL/Makefile"
  touch "$CACHE/.done-kernel-$KREL"
}

# Debian builds 6.1 without CONFIG_RDMA_SIW, so siw.ko is built out of tree from
# linux-source against the extracted headers and added to the module tree.
build_siw() {
  [ -e "$CACHE/.done-siw-$KREL" ] && return 0
  fetch_kernel_debs "linux-source-$KSERIES"
  local src=$CACHE/siw-src-$KREL
  log "building siw.ko for $KREL"
  rm -rf "$src" "$CACHE/linux-source-$KSERIES"
  dpkg-deb --fsys-tarfile "$DEBS"/linux-source-"$KSERIES"_*.deb |
    tar -xO "./usr/src/linux-source-$KSERIES.tar.xz" |
    tar -xJ -C "$CACHE" "linux-source-$KSERIES/drivers/infiniband/sw/siw"
  mv "$CACHE/linux-source-$KSERIES/drivers/infiniband/sw/siw" "$src"
  rm -rf "$CACHE/linux-source-$KSERIES"
  if ! make -C "$HROOT/usr/src/linux-headers-$KREL" M="$src" CONFIG_RDMA_SIW=m \
         -j"$(nproc)" modules > "$src/build.log" 2>&1 || [ ! -f "$src/siw.ko" ]; then
    tail -n 30 "$src/build.log" >&2
    die "siw.ko build failed (log: $src/build.log)"
  fi
  mkdir -p "$MODDIR/updates"
  strip --strip-debug -o "$MODDIR/updates/siw.ko" "$src/siw.ko"
  depmod -b "$KROOT" "$KREL"
  touch "$CACHE/.done-siw-$KREL"
  # linux-source is 140 MB and only needed for this build.
  rm -f "$DEBS"/linux-source-*.deb
  # Record the release only now that it is usable.
  [ -n "${RDMABENCH_LAB_KREL:-}" ] || echo "$KREL" > "$CACHE/krel"
}

# A static busybox is the initramfs' only program until /usr is mounted.
# It is extracted from busybox-static, not installed on the host.
fetch_busybox() {
  BUSYBOX=$CACHE/busybox/bin/busybox
  [ -x "$BUSYBOX" ] && return 0
  apt_knows busybox-static || die "apt has no busybox-static"
  log "downloading busybox-static"
  local tmp; tmp=$(mktemp -d "$CACHE/busybox-deb.XXXXXX")
  (cd "$tmp" && apt_download busybox-static) || die "apt-get download busybox-static failed"
  rm -rf "$CACHE/busybox"
  dpkg-deb -x "$tmp"/busybox-static_*.deb "$CACHE/busybox"
  rm -rf "$tmp"
  [ -x "$BUSYBOX" ] || die "busybox-static has no bin/busybox"
}

# Module files to load in the guest, in load order, dependencies first.
module_files() {
  local m
  for m in "${GUEST_MODULES[@]}"; do
    modprobe -d "$KROOT" -S "$KREL" --show-depends "$m" || die "module $m not found for $KREL"
  done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

# The lab constants, as guest-init.sh reads them from /.lab-env.
guest_constants() {
  printf '# rdmabench lab constants for the guest init, written by tools/rdma-lab\n'
  printf 'RXE_DEV=%s RXE_NETDEV=%s RXE_IP=%s\n' "$RXE_DEV" "$RXE_NETDEV" "$RXE_IP"
  printf 'SIW_DEV=%s SIW_NETDEV=%s SIW_IP=%s\n' "$SIW_DEV" "$SIW_NETDEV" "$SIW_IP"
  printf 'MARK_BEGIN=%s MARK_END=%s PATH=%s\n' "$MARK_BEGIN" "$MARK_END" "$GUEST_PATH"
}

# The initramfs holds busybox, the modules, the init script (guest-init.sh,
# copied as is) and the lab constants it reads. Its key covers all that goes
# into it: the init script, this file (the layout, the module list), the
# constants, the module tree and busybox; so editing guest-init.sh or this
# file, changing a constant or rebuilding siw.ko rebuilds it.
build_initramfs() {
  INITRD=$CACHE/initrd-$KREL.gz
  local init=$LAB_LIB/guest-init.sh key
  [ -r "$init" ] || die "no guest init script at $init"
  key=$({ cat "$init" "$LAB_LIB/host-setup.sh"; guest_constants
          cat "$MODDIR/modules.dep" "$BUSYBOX"; } | sha256sum | cut -c1-16)
  if [ -s "$INITRD" ] && [ "$(cat "$INITRD.key" 2>/dev/null)" = "$key" ]; then
    return 0
  fi
  log "building initramfs"
  local root f name modules
  modules=$(module_files)     # not in a process substitution: failures count
  root=$(mktemp -d "$CACHE/initramfs.XXXXXX")
  mkdir -p "$root"/{.bb,.ctl,kmod,proc,sys,dev,tmp,run,usr,etc,root,mnt,var/tmp}
  cp "$BUSYBOX" "$root/.bb/busybox"
  # /usr-merged layout: the shared /usr provides /bin, /lib, ...
  for f in bin sbin lib lib64; do ln -s "usr/$f" "$root/$f"; done
  while IFS= read -r f; do
    name=$(basename "$f")
    case "$name" in
      *.ko.xz) name=${name%.xz}; xz -dc "$f" > "$root/kmod/$name" ;;   # busybox insmod wants plain .ko
      *) cp "$f" "$root/kmod/$name" ;;
    esac
    echo "$name" >> "$root/kmod/order"
  done <<<"$modules"
  cp "$init" "$root/init"
  chmod 755 "$root/init"
  guest_constants > "$root/.lab-env"
  (cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1 > "$INITRD.tmp")
  mv "$INITRD.tmp" "$INITRD"
  echo "$key" > "$INITRD.key"
  rm -rf "$root"
}

# setup [COMMAND...]: make the cache ready, then run COMMAND while still
# holding the lock (a run pins the initramfs there, before another version
# of this tool can rebuild it).
setup() {
  mkdir -p "$CACHE" "$LAB_DIR/runs"
  local lock
  exec {lock}>"$LAB_DIR/setup.lock"
  # A warm setup takes a fraction of a second: only say so for a long wait.
  if ! flock -w 3 "$lock"; then
    log "waiting for another rdma-lab to finish setting up $LAB_DIR"
    flock "$lock"
  fi
  ensure_host_packages
  resolve_kernel_release
  prepare_kernel
  build_siw
  fetch_busybox
  build_initramfs
  [ $# -eq 0 ] || "$@"
  exec {lock}>&-      # qemu must not inherit the lock
}
