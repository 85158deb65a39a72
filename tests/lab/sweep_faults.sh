# shellcheck shell=bash
# sweep_faults.sh - make N RDMA "hosts" in one lab guest, then make one of
# them slow and cut the link between two of them, for rdma_sweep's lab test.
# Source it in the guest (root; tools/rdma-lab loads the bridge and tc
# modules it needs):
#
#   source tests/lab/sweep_faults.sh
#   sweep_add_hosts 4           # prints "ADDR DEVICE GID_INDEX" per host
#   sweep_slow_node 10.0.9.4    # every packet to or from .4 delayed SWEEP_SLOW_DELAY
#   sweep_break_link 10.0.9.1 10.0.9.2   # RDMA between .1 and .2 dropped
#   sweep_lossy_link 10.0.9.3 10.0.9.4 0.5%   # packets between .3 and .4 lost now and then
#   sweep_clear_faults          # both undone, the hosts stay
#   sweep_remove_hosts          # everything undone
#
# Why not IP aliases on eth0 with rxe0's extra GIDs: rxe hands a packet
# whose destination MAC is its own netdev's straight to its own receive path
# (rxe_loopback), so RDMA between two addresses of one netdev never reaches
# lo, eth0, tc or netfilter: nothing can shape or drop it by address (the
# lab measured 19 MB of writes while lo and eth0 counted only the control
# connection's few packets). So each host here is a veth of its own with one
# address and one rxe device, the veths' peers joined by a bridge, and policy
# routing sends traffic between two local addresses out of the source's veth
# instead of through lo. Then a host's packets cross real netdevs, where tc
# can act on them: a "slow node" is a netem delay on both ends of its veth, a "broken
# link" is a u32 drop of the two addresses on the two veths.
#
# Host i (1-based): address $SWEEP_SUBNET.i on veth swh<i> (peer swp<i> in
# bridge swbr0), RDMA device swrxe<i> (swsiw<i> with SWEEP_LINK_TYPE=siw),
# routing table 100+i. The out-of-band TCP connection of a pair still goes
# through lo (it has no source address bound, so the moved local rule routes
# it), so a broken link cuts RDMA only, like a fabric fault with the
# management network fine.
#
# siw (iWARP is TCP) follows the same routes, but only where the client's
# rdma_cm binds its source address (rping -I): a client that leaves it unset
# gets the destination's own address and device, through lo, unfaulted.

SWEEP_SUBNET=${SWEEP_SUBNET:-10.0.9}      # a /24 of its own, not eth0's
SWEEP_SLOW_DELAY=${SWEEP_SLOW_DELAY:-15ms} # each way: a 30 ms round trip
SWEEP_WAIT_S=${SWEEP_WAIT_S:-10}          # bound on waiting for a GID or port
SWEEP_LINK_TYPE=${SWEEP_LINK_TYPE:-rxe}   # or siw: devices swsiw<i>, see below
SWEEP_BRIDGE=swbr0
SWEEP_HOSTS=""            # "ADDR:DEVICE:GID ..." after sweep_add_hosts (exportable)
SWEEP_ADDRS=() SWEEP_DEVS=() SWEEP_GIDS=()

sweep_log() { echo "sweep_faults: $*" >&2; }

# The RoCEv2 GID index of IPv4 address $2 on device $1, or nothing yet.
# One grep over the 512 GID files: a shell loop with a cat per file takes
# minutes in the emulated guest.
sweep_gid_index() {
  local want f i a b c d port=/sys/class/infiniband/$1/ports/1
  IFS=. read -r a b c d <<<"$2"
  want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
  for f in $(grep -lx "$want" "$port"/gids/* 2>/dev/null); do
    i=${f##*/}
    [ "$(cat "$port/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] && { echo "$i"; return 0; }
  done
  return 1
}

# The GID table fills and the port turns ACTIVE a moment after the address
# and the rxe link appear (netdev events); wait for both, at most SWEEP_WAIT_S.
# Prints the GID index, or "-" on siw (iWARP addresses by IP, not by GID).
sweep_wait_gid() {
  local dev=$1 addr=$2 tries=$((SWEEP_WAIT_S * 10)) gid
  while [ "$tries" -gt 0 ]; do
    if grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state"; then
      case $dev in swsiw*) echo -; return 0 ;; esac
      gid=$(sweep_gid_index "$dev" "$addr") && { echo "$gid"; return 0; }
    fi
    sleep 0.1; tries=$((tries - 1))
  done
  sweep_log "$dev: no ACTIVE port with a RoCEv2 GID for $addr after ${SWEEP_WAIT_S}s"
  return 1
}

# The kernel looks up its "local" table (rule 0) before any other, and that
# sends every packet between two local addresses through lo. Moving the rule
# below the per-host rules lets those pick the source's veth first. Input
# routing is unaffected: the per-host rules only match "iif lo" (packets this
# host sends), so arriving packets still reach the local table. A host's own
# address is a "throw" in its table: traffic to itself (a TCP connection's
# source defaults to its destination) falls through to the local rule and lo.
sweep_move_local_rule() {
  ip rule show pref 0 | grep -q 'lookup local' || return 0
  ip rule add pref 1000 lookup local && ip rule del pref 0 lookup local
}

# accept_local: packets from one local address to another must not count as
# martians. rp_filter off: the reply path of a source is its own veth, not
# the one it arrived on. arp_ignore=1: only the veth holding an address
# answers ARP for it, not every veth on the bridge.
sweep_tune_veth() {
  local d=$1
  echo 1 > "/proc/sys/net/ipv4/conf/$d/accept_local"
  echo 0 > "/proc/sys/net/ipv4/conf/$d/rp_filter"
  echo 1 > "/proc/sys/net/ipv4/conf/$d/arp_ignore"
}

sweep_add_host() {
  local i=$1 addr=$SWEEP_SUBNET.$1 h=swh$1 p=swp$1 dev=sw$SWEEP_LINK_TYPE$1 gid
  ip link add "$h" type veth peer name "$p" &&
    ip link set "$p" master "$SWEEP_BRIDGE" && ip link set "$p" up &&
    ip addr add "$addr/24" dev "$h" && sweep_tune_veth "$h" &&
    ip link set "$h" up &&
    ip route add "$SWEEP_SUBNET.0/24" dev "$h" src "$addr" table $((100 + i)) &&
    ip route add throw "$addr/32" table $((100 + i)) &&
    ip rule add pref $((100 + i)) from "$addr" iif lo lookup $((100 + i)) &&
    rdma link add "$dev" type "$SWEEP_LINK_TYPE" netdev "$h" || { sweep_log "host $i: setup failed"; return 1; }
  gid=$(sweep_wait_gid "$dev" "$addr") || return 1
  SWEEP_ADDRS+=("$addr") SWEEP_DEVS+=("$dev") SWEEP_GIDS+=("$gid")
  SWEEP_HOSTS="${SWEEP_HOSTS:+$SWEEP_HOSTS }$addr:$dev:$gid"
  echo "$addr $dev $gid"
}

# sweep_add_hosts N: hosts 1..N; prints "ADDR DEVICE GID_INDEX" per host and
# fills SWEEP_ADDRS, SWEEP_DEVS, SWEEP_GIDS and SWEEP_HOSTS (exported).
sweep_add_hosts() {
  local n=${1:-} i
  [[ $n =~ ^[1-9][0-9]*$ ]] && [ "$n" -le 99 ] ||
    { sweep_log "sweep_add_hosts N: N must be 1 to 99, not '$n'"; return 1; }
  case $SWEEP_LINK_TYPE in rxe|siw) ;;
    *) sweep_log "SWEEP_LINK_TYPE must be rxe or siw, not '$SWEEP_LINK_TYPE'"; return 1 ;;
  esac
  echo 0 > /proc/sys/net/ipv4/conf/all/rp_filter   # the stricter of all/dev wins
  # arp off: the bridge is an interface of this host too, and would answer
  # ARP for every host's address with its own MAC, taking all their frames.
  ip link add "$SWEEP_BRIDGE" type bridge && ip link set "$SWEEP_BRIDGE" arp off up &&
    sweep_move_local_rule || { sweep_log "bridge or rule setup failed"; return 1; }
  for i in $(seq "$n"); do sweep_add_host "$i" || return 1; done
  export SWEEP_HOSTS
}

# Host number of an address made by sweep_add_hosts (it names the veths).
sweep_host_of() {
  local i
  for i in "${!SWEEP_ADDRS[@]}"; do
    [ "${SWEEP_ADDRS[$i]}" = "$1" ] && { echo $((i + 1)); return 0; }
  done
  sweep_log "$1 is not a host address (${SWEEP_ADDRS[*]:-none yet; run sweep_add_hosts})"
  return 1
}

# A prio root whose every band-less packet goes to band 1:1, so a netem can
# hang under 1:1 (slow) while u32 filters on the root drop (broken link): one
# device may be both. Made once per device, kept until sweep_clear_faults.
sweep_fault_root() {
  tc qdisc show dev "$1" | grep -q '^qdisc prio 1: root' && return 0
  tc qdisc add dev "$1" root handle 1: prio bands 3 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
}

# sweep_slow_node ADDR: a netem delay on the host's veth (what it sends) and
# on its bridge-side peer (what it receives), so every pair touching it has a
# round trip of twice SWEEP_SLOW_DELAY, in either direction, and no other pair
# has. Its bandwidth is then at most what a pair keeps in flight per round
# trip: with -t 8 writes of 16 KiB and 30 ms, 4.4 MB/s (0.035 Gb/s), where
# the unslowed pairs made 0.09-0.3 Gb/s. Delay rather than netem's rate: under
# the lab's emulated CPU a rate did not hold (5 and 50 Mbit/s set, about
# 40-47 Mbit/s measured either way), so whether the node came out below half
# the median depended on how busy the machine was. The round trip must stay
# well under the RC ack timeout (-u 14: 67 ms), or the delay would read as
# loss. The queue limit holds a whole window: drops would make it lossy.
sweep_slow_node() {
  local i d
  i=$(sweep_host_of "${1:-}") || return 1
  for d in "swh$i" "swp$i"; do
    sweep_fault_root "$d" &&
      tc qdisc replace dev "$d" parent 1:1 handle 10: netem delay "$SWEEP_SLOW_DELAY" limit 100000 ||
      { sweep_log "slowing $d failed"; return 1; }
  done
}

# sweep_break_link A B: drop IPv4 packets from A to B on A's veth and from B
# to A on B's veth (egress: both ends are sources there). Pairs of A or B
# with anyone else, and ARP between them, are untouched.
sweep_break_link() {
  local a b
  a=$(sweep_host_of "${1:-}") && b=$(sweep_host_of "${2:-}") || return 1
  [ "$a" != "$b" ] || { sweep_log "sweep_break_link needs two different hosts, not $1 twice"; return 1; }
  sweep_drop_to "swh$a" "$2" && sweep_drop_to "swh$b" "$1"
}

sweep_drop_to() {
  sweep_fault_root "$1" &&
    tc filter add dev "$1" parent 1: protocol ip prio 1 u32 match ip dst "$2/32" action drop ||
    { sweep_log "dropping $1 -> $2 failed"; return 1; }
}

# sweep_lossy_link A B LOSS: netem loss on the packets from A to B (on A's
# veth) and from B to A (on B's), in a band of their own, so that only that
# pair's path loses packets: a link that still carries its bandwidth while
# its ends resend, the silent degrader rdma_sweep names by its counters.
sweep_lossy_link() {
  local a b
  a=$(sweep_host_of "${1:-}") && b=$(sweep_host_of "${2:-}") || return 1
  [ "$a" != "$b" ] || { sweep_log "sweep_lossy_link needs two different hosts, not $1 twice"; return 1; }
  sweep_lose_to "swh$a" "$2" "${3:-0.5%}" && sweep_lose_to "swh$b" "$1" "${3:-0.5%}"
}

sweep_lose_to() {
  sweep_fault_root "$1" &&
    tc filter add dev "$1" parent 1: protocol ip prio 2 u32 match ip dst "$2/32" flowid 1:2 &&
    tc qdisc replace dev "$1" parent 1:2 handle 20: netem loss "$3" limit 100000 ||
    { sweep_log "losing $3 of $1 -> $2 failed"; return 1; }
}

# sweep_clear_faults: every host's veth and peer back to the default qdisc.
sweep_clear_faults() {
  local d
  for d in /sys/class/net/swh* /sys/class/net/swp*; do
    [ -e "$d" ] || continue
    d=${d##*/}
    tc qdisc show dev "$d" | grep -q '^qdisc prio 1: root' && tc qdisc del dev "$d" root
  done
  return 0
}

# sweep_remove_hosts: the rxe devices, veths, bridge, rules and tables gone,
# and the local rule back at 0.
sweep_remove_hosts() {
  local i
  for i in "${!SWEEP_ADDRS[@]}"; do
    rdma link delete "${SWEEP_DEVS[$i]}" 2>/dev/null
    ip rule del pref $((101 + i)) 2>/dev/null
    ip route flush table $((101 + i)) 2>/dev/null
    ip link del "swh$((i + 1))" 2>/dev/null
  done
  ip link del "$SWEEP_BRIDGE" 2>/dev/null
  if ! ip rule show pref 0 | grep -q 'lookup local'; then
    ip rule add pref 0 lookup local && ip rule del pref 1000 lookup local
  fi
  SWEEP_ADDRS=() SWEEP_DEVS=() SWEEP_GIDS=() SWEEP_HOSTS=""
}
