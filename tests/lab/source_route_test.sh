#!/usr/bin/env bash
# --source-ip and the GID by route, on two rxe "hosts" in ONE subnet, as
# multi-rail hosts have their rails: tests/lab/sweep_faults.sh makes them
# (a veth, an address and an rxe device each; traffic between two local
# addresses leaves by its source's veth). Host 2's veth holds a second
# address after its first, so that the old rule ("the first RoCEv2 GID of
# the family") and a route from that second address name different GIDs.
#
#  1. --source-ip: a client bound to host 2's address, no -d, writes to
#     host 1. Its device is then swrxe2 and its GID 10.0.7.2's; the server's
#     peer is 10.0.7.2 (the control connection left from it) and its GID is
#     the address the client connected to. The client's --flow-label is on
#     the wire, and so is the hop limit of its route to host 1 (set to 9:
#     on RoCE the kernel takes the route's): every RoCEv2 packet leaving
#     swh2 has IPv4 TTL 9 and the UDP source port rxe makes of the flow
#     label (tc u32 filters count them), and the JSON context says both.
#  2. -d off the route: a client on swrxe2 to host 1, whose route leaves
#     from host 1's own address, warns before it connects; its --hop-limit
#     is then refused, naming the route's hop limit (nobody listens).
#  3. the route: a policy rule routes host 1's address from host 2's
#     second address, 10.0.7.4 (as a multi-rail host's rules pick a rail).
#     A client on swrxe2, no --source-ip, no -x: its GID is the source `ip
#     route get` names, 10.0.7.4's, not the first (10.0.7.2's).
#
# usage: source_route_test.sh BIN_DIR. Exits 77 (skipped) outside the lab guest.
set -uo pipefail
BIN=${1:?usage: source_route_test.sh BIN_DIR}
HERE=$(cd "$(dirname "$0")" && pwd)
[ -e /sys/class/infiniband/rxe0 ] || { echo "SKIPPED: needs the lab guest (run inside tools/rdma-lab)"; exit 77; }
command -v tc >/dev/null || { echo "SKIPPED: no tc (iproute2)"; exit 77; }
export SWEEP_SUBNET=10.0.7   # not the sweep's 10.0.9; the names are its, so this runs alone
RULE=50 TABLE=250            # case 3's rule and table, outside sweep_faults.sh's 101-199
# shellcheck source=sweep_faults.sh
source "$HERE/sweep_faults.sh"
tmp=$(mktemp -d)
trap 'ip rule del pref $RULE 2>/dev/null; ip route flush table $TABLE 2>/dev/null;
      sweep_remove_hosts >/dev/null 2>&1; rm -rf "$tmp"' EXIT
started=$(date +%s.%N)
sweep_add_hosts 2 >/dev/null || { echo "FAIL: could not make 2 hosts"; exit 1; }
A1=$SWEEP_SUBNET.1 A2=$SWEEP_SUBNET.2 A4=$SWEEP_SUBNET.4
if ! { ip addr add "$A4/24" dev swh2 && sweep_wait_gid swrxe2 "$A4" >/dev/null; }; then
  echo "FAIL: no GID for $A4 on swrxe2"; exit 1
fi
FLOW_LABEL=74565 HOP_LIMIT=9   # 0x12345
# rdma_flow_label_to_udp_sport: the low 14 bits xor the high 6, in 0xC000-0xFFFF.
SPORT=$(( ((FLOW_LABEL & 0x3fff) ^ ((FLOW_LABEL & 0xfc000) >> 14)) | 0xc000 ))
# Host 2's route to host 1 with a hop limit of its own (table 102 is host
# 2's, sweep_faults.sh), and what leaves its veth: every RoCEv2 packet (UDP
# to 4791), those with the flow label's source port and those with TTL 9
# ("continue": counted, then classified on, by the next filter).
if ! { ip route add "$A1/32" dev swh2 src "$A2" hoplimit $HOP_LIMIT table 102 && sweep_fault_root swh2 &&
       tc filter add dev swh2 parent 1: protocol ip prio 1 u32 match u8 17 0xff at 9 \
         match u16 4791 0xffff at 22 match u16 $SPORT 0xffff at 20 action continue &&
       tc filter add dev swh2 parent 1: protocol ip prio 2 u32 match u8 17 0xff at 9 \
         match u16 4791 0xffff at 22 match u8 $HOP_LIMIT 0xff at 8 action continue &&
       tc filter add dev swh2 parent 1: protocol ip prio 3 u32 match u8 17 0xff at 9 \
         match u16 4791 0xffff at 22 flowid 1:1 action pass; }; then
  echo "FAIL: could not route or count swh2's packets"; exit 1
fi
DEFAULT_TTL=$(cat /proc/sys/net/ipv4/ip_default_ttl)
echo "== hosts ready after $(echo "$(date +%s.%N) - $started" | bc) s"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# pair NAME SERVER_ARGS -- CLIENT_ARGS: rdma_write_bw, both must exit 0;
# JSON in $tmp/NAME.{server,client}.json, consoles in .out.
pair() {
  local name=$1 port=$((20000 + RANDOM % 20000 * 2)) ready=$tmp/$1.ready server_args=() server
  shift
  while [ "$1" != -- ]; do server_args+=("$1"); shift; done
  shift
  "$BIN/rdma_write_bw" -p $port --timeout 5 --ready-file "$ready" --json "$tmp/$name.server.json" \
    "${server_args[@]}" > "$tmp/$name.server.out" 2>&1 &
  server=$!
  for _ in $(seq 300); do [ -e "$ready" ] || ! kill -0 $server 2>/dev/null && break; sleep 0.1; done
  timeout 30 "$BIN/rdma_write_bw" -p $port --timeout 5 -n 200 -s 4096 --json "$tmp/$name.client.json" "$@" \
    > "$tmp/$name.client.out" 2>&1
  local client_rc=$?
  timeout 15 tail --pid=$server -f /dev/null; wait $server; local server_rc=$?
  grep -h '^# GID' "$tmp/$name.client.out" | sed "s/^/$name client: /"
  grep -h '^# GID' "$tmp/$name.server.out" | sed "s/^/$name server: /"
  if [ $client_rc != 0 ] || [ $server_rc != 0 ]; then
    fail "$name: client exit $client_rc, server exit $server_rc"
    sed 's/^/  client: /' "$tmp/$name.client.out"; sed 's/^/  server: /' "$tmp/$name.server.out"
    return 1
  fi
}

# check NAME CHECKS: python expressions, one a line, on the pair's JSON
# contexts (c: the client's, s: the server's).
check() {
  python3 - "$tmp/$1.client.json" "$tmp/$1.server.json" "$2" <<'PY' || failures=$((failures + 1))
import json, sys
c = json.loads(open(sys.argv[1]).readline())["context"]
s = json.loads(open(sys.argv[2]).readline())["context"]
for line in sys.argv[3].strip().splitlines():
    if not eval(line):
        sys.exit(f"FAIL: {line.strip()}\n  client: {c['gid']}, {c['grh']}, {c['peer']}, {c['device']}\n"
                 f"  server: {s['gid']}, {s['grh']}, {s['peer']}")
print("ok: " + "; ".join(line.strip() for line in sys.argv[3].strip().splitlines()))
PY
}

# client_alone NAME ARGS: a client with nobody listening (what it says before connecting).
client_alone() {
  local name=$1; shift
  timeout 20 "$BIN/rdma_write_bw" -p 9 --timeout 1 "$@" > "$tmp/$name.out" 2>&1
  grep -h 'rdma_write_bw: ' "$tmp/$name.out" | grep -v 'frequency governor' | sed "s/^/$name client: /"
}

# 1. --source-ip, the flow label and the route's hop limit on the wire
if pair source-ip -d swrxe1 -- --source-ip "$A2" --flow-label $FLOW_LABEL "$A1"; then
  check source-ip "
    c['device'] == 'swrxe2'
    c['gid']['value'] == '::ffff:$A2' and c['gid']['reason'] == 'RoCEv2 GID of $A2, given with --source-ip'
    s['peer'].startswith('client $A2:')
    s['gid']['value'] == '::ffff:$A1' and s['gid']['reason'] == 'RoCEv2 GID of $A1, the address the client connected to'
    c['grh'] == {'hop_limit': $HOP_LIMIT, 'flow_label': $FLOW_LABEL, 'traffic_class': 0}
    s['grh'] == {'hop_limit': $DEFAULT_TTL, 'flow_label': 0, 'traffic_class': 0}"
  sent() { tc -s filter show dev swh2 parent 1: prio "$1" | awk '/Sent/ {print $4; exit}'; }
  ported=$(sent 1) limited=$(sent 2) all=$(sent 3)
  echo "swh2: $all RoCEv2 packets; UDP source port $SPORT: $ported; TTL $HOP_LIMIT: $limited"
  if [ "${all:-0}" = 0 ] || [ "${ported:-0}" != "$all" ] || [ "${limited:-0}" != "$all" ]; then
    fail "every RoCEv2 packet from $A2 should carry source port $SPORT and TTL $HOP_LIMIT"
    tc -s filter show dev swh2
  fi
fi

# 2. -d names a device off the route; --hop-limit on RoCE
client_alone off-route -d swrxe2 --hop-limit 7 "$A1"
grep -q "$A1, the source of the kernel's route to $A1, an address of swh1, is no address of swrxe2 port 1: the GID falls back to the rule by family (RoCEv2 IPv4 GID), ::ffff:$A2 " \
  "$tmp/off-route.out" || { fail "no warning that the route leaves from swh1, off swrxe2"; cat "$tmp/off-route.out"; }
grep -q "hop-limit 7 cannot be set on RoCE: the kernel gives every RoCE queue pair the hop limit (the IPv4 TTL) of its IP route" \
  "$tmp/off-route.out" || { fail "--hop-limit on RoCE was not refused"; cat "$tmp/off-route.out"; }

# 3. a rule routes host 1 from host 2's second address: that one's GID
if ip route add "$A1/32" dev swh2 src "$A4" table $TABLE && ip rule add pref $RULE to "$A1/32" iif lo lookup $TABLE; then
  routed=$(ip -4 route get "$A1" | sed -n 's/.* src \([0-9.]*\).*/\1/p')
  echo "ip route get $A1: source $routed"
  if pair route -d swrxe1 -- -d swrxe2 "$A1"; then
    check route "
      '$routed' == '$A4'
      c['gid']['value'] == '::ffff:$routed'
      c['gid']['reason'] == 'RoCEv2 GID of $routed, the source of the kernel\\'s route to $A1, an address of swh2'
      s['gid']['value'] == '::ffff:$A1'"
  fi
else
  fail "could not route $A1 from $A4"
fi

echo "== $failures failure(s) after $(echo "$(date +%s.%N) - $started" | bc) s"
[ $failures = 0 ]
