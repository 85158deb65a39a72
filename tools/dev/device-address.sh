# Sourced by the dev scripts that run pairs in the lab guest.
# addr_of DEV: the IPv4 address of RDMA device DEV's network interface (its
# device/net link, or rdma link's netdev for soft devices such as siw).
addr_of() {
  local net
  net=$(ls "/sys/class/infiniband/$1/device/net" 2>/dev/null | head -1)
  [ -n "$net" ] || net=$(rdma link show "$1/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
  ip -4 -o addr show dev "$net" | awk '{print $4}' | cut -d/ -f1 | head -1
}
