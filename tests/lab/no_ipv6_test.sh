#!/usr/bin/env bash
# A host booted with ipv6.disable=1 (common in HPC): the server must start
# and serve over the TCP exchange and over rdma_cm, on RoCEv2 and iWARP.
# Run inside a lab guest booted that way (ctest lab.no-ipv6); exits 77
# (skipped) elsewhere, and fails if the guest has IPv6 after all.
set -uo pipefail
BIN=${1:?usage: no_ipv6_test.sh BIN_DIR}
RXE=${RXE_DEV:-rxe0} RXE_IP=${RXE_IP:-10.0.2.15} SIW=${SIW_DEV:-siw0} SIW_IP=${SIW_IP:-10.0.3.15}
if [ ! -e /sys/class/infiniband/$RXE ] || [ ! -e /sys/class/infiniband/$SIW ]; then
  echo "SKIPPED: needs $RXE and $SIW (run through ctest's lab.no-ipv6, in tools/rdma-lab)"; exit 77
fi
if [ -e /proc/net/if_inet6 ]; then
  echo "FAIL: this guest has IPv6 (boot it with RDMABENCH_LAB_KERNEL_ARGS=ipv6.disable=1)"; exit 1
fi
failures=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# pair BINARY DEVICE ADDRESS [OPTIONS...]: one server and one client, both must exit 0.
pair() {
  local binary=$1 dev=$2 addr=$3; shift 3
  local port=$((20000 + RANDOM % 20000 * 2)) ready=$tmp/ready.$RANDOM
  "$BIN/$binary" -d "$dev" -p "$port" --timeout 10 --ready-file "$ready" "$@" > "$tmp/server" 2>&1 &
  local server=$!
  for _ in $(seq 100); do [ -e "$ready" ] || ! kill -0 $server 2>/dev/null && break; sleep 0.1; done
  timeout 60 "$BIN/$binary" -d "$dev" -p "$port" --timeout 10 -n 100 "$@" "$addr" > "$tmp/client" 2>&1
  local client_rc=$?
  timeout 20 tail --pid=$server -f /dev/null; wait $server; local server_rc=$?
  if [ $client_rc = 0 ] && [ $server_rc = 0 ]; then
    echo "ok:   $binary on $dev $*"
  else
    echo "FAIL: $binary on $dev $* (client $client_rc, server $server_rc)"
    sed 's/^/  client: /' "$tmp/client"; sed 's/^/  server: /' "$tmp/server"
    failures=$((failures + 1))
  fi
}

pair rdma_write_bw "$RXE" "$RXE_IP"
pair rdma_write_bw "$RXE" "$RXE_IP" -R
pair rdma_write_lat "$RXE" "$RXE_IP"
pair rdma_read_lat "$SIW" "$SIW_IP"
pair rdma_send_bw "$SIW" "$SIW_IP"
echo "$failures failure(s)"
[ $failures = 0 ]
