"""trace-half-trip - where a send ping-pong's half trip goes in the kernel,
ours beside perftest's, step by step.

Usage: tools/dev/trace-half-trip [--device DEV] [--address IP] [--size BYTES]
                             [--iters N] [--rounds N]

Runs our rdma_send_lat and perftest's ib_send_lat alternately on one soft
device under ftrace's function tracer: the doorbell `write` and a few of the
driver's functions (siw and TCP, or rxe's requester, responder and
completer). A half trip runs from one side's doorbell to the other side's
next one; on a soft device the delivery, up to the receive completion, runs
in the sender's system call, and the rest is the receiver noticing it and
posting its answer. For each step the table gives the median per round
(usec, from the TSC) for both tools, their ratio, and in how many rounds
ours had the shorter half trip. Tracing slows every step, the same for both
tools; compare the two, not the absolute figures. The lab's speed drifts,
every step alike: perftest traced against itself came out 0.89 and 1.19 in
two 6-round runs, so a few rounds tell only large differences.

Needs root (tracefs) and x86. The device defaults to siw0 at the lab's
address; where it is absent the tool re-runs itself inside tools/rdma-lab.
"""
import argparse
import contextlib
import os
import re
import statistics
import subprocess
import sys
import time

from . import lab, pair, paths, version

TRACEFS = "/sys/kernel/tracing"

# The functions that mark a half trip's steps, in the order they run; the
# last one is the receive completion, where the receiver's part begins.
STEPS = {
    "siw": ["siw_qp_sq_process", "tcp_sendmsg_locked", "__tcp_transmit_skb", "tcp_v4_rcv",
            "tcp_ack", "siw_tcp_rx_data", "siw_proc_send", "siw_rqe_complete"],
    "rxe": ["rxe_post_send", "rxe_requester", "rxe_xmit_packet", "rxe_rcv", "rxe_responder",
            "rxe_cq_post"],
}
TOOLS = ("rdma_send_lat", "ib_send_lat")

EVENT = re.compile(r"\s*(?P<comm>\S+)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+(?P<ts>\d+): "
                   r"(?P<what>sys_write\(fd: \w+, buf: \w+, count: (?P<count>\w+)\)|\w+)")
MARKER = re.compile(r"\s*\S+-\d+\s+\[\d+\]\s+\S+\s+(?P<ts>\d+): tracing_mark_write: mono_ns=(?P<ns>\d+)")


def parse(lines):
    """(ticks, pid, what) for the benchmark processes' events, and the
    ticks per usec from the two clock markers (None without them). A
    doorbell is the benchmark's most frequent write size: 'doorbell'."""
    events, marks, writes = [], [], {}
    for line in lines:
        m = MARKER.match(line)
        if m:
            marks.append((int(m["ts"]), int(m["ns"])))
            continue
        m = EVENT.match(line)
        if not m or m["comm"] not in TOOLS:
            continue
        what = m["what"]
        if m["count"] is not None:
            writes[m["count"]] = writes.get(m["count"], 0) + 1
            what = "write:" + m["count"]
        events.append((int(m["ts"]), int(m["pid"]), what))
    doorbell = "write:" + max(writes, key=writes.get) if writes else None
    events = [(t, p, "doorbell" if w == doorbell else w)
              for t, p, w in events if not w.startswith("write:") or w == doorbell]
    rate = None
    if len(marks) >= 2 and marks[-1][1] > marks[0][1]:
        rate = (marks[-1][0] - marks[0][0]) / ((marks[-1][1] - marks[0][1]) / 1000)
    return events, rate


def half_trips(events, steps, skip=0.1):
    """{step name: [ticks, ...]} over the half trips after the first `skip`
    share of them: each step is the time since the one before it (the first
    since the doorbell), 'receiver' from the receive completion to the other
    side's doorbell, 'half trip' the whole."""
    done = steps[-1]
    trips = []
    trip = None
    for ts, pid, what in events:
        if what == "doorbell":
            if trip and trip["done"] is not None and pid != trip["pid"]:
                trip["steps"]["receiver"] = ts - trip["done"]
                trip["steps"]["half trip"] = ts - trip["start"]
                trips.append(trip["steps"])
            trip = {"pid": pid, "start": ts, "last": ts, "at": 0, "done": None, "steps": {}}
        elif trip and pid == trip["pid"] and trip["done"] is None and what in steps[trip["at"]:]:
            # The first call of each later step, in the sender's context.
            trip["at"] = steps.index(what) + 1
            trip["steps"][what] = ts - trip["last"]
            trip["last"] = ts
            if what == done:
                trip["done"] = ts
    kept = trips[int(len(trips) * skip):]
    out = {}
    for t in kept:
        for name, ticks in t.items():
            out.setdefault(name, []).append(ticks)
    return out


def table(results, steps):
    """Lines of the step table: per tool the median over rounds of each
    round's median, in usec, and ours / perftest."""
    order = steps + ["receiver", "half trip"]
    lines = [f"{'step (time since the one before)':34s} {'ours':>9s} {'perftest':>9s} {'ratio':>6s}"]
    for name in order:
        med = {}
        for tool in TOOLS:
            per_round = [statistics.median(r[name]) for r in results.get(tool, []) if r.get(name)]
            med[tool] = statistics.median(per_round) if per_round else None
        ours, theirs = med["rdma_send_lat"], med["ib_send_lat"]
        ratio = f"{ours / theirs:6.2f}" if ours and theirs else "     -"
        show = lambda v: f"{v:9.2f}" if v is not None else "        -"
        lines.append(f"{name:34s} {show(ours)} {show(theirs)} {ratio}")
    # The whole guest runs faster or slower for stretches of time, every step
    # alike; the rounds in which ours led the perftest run beside it say how
    # far to trust the ratio (perftest against itself: 0.89-1.19 at 6 rounds).
    pairs = list(zip(results.get("rdma_send_lat", []), results.get("ib_send_lat", [])))
    ahead = sum(statistics.median(o["half trip"]) < statistics.median(t["half trip"]) for o, t in pairs)
    lines.append(f"half trip: ours shorter in {ahead} of {len(pairs)} rounds")
    return lines


def write(path, text):
    with open(os.path.join(TRACEFS, path), "w") as f:
        f.write(text)


def clock_mark():
    write("trace_marker", f"mono_ns={time.clock_gettime_ns(time.CLOCK_MONOTONIC)}\n")


@contextlib.contextmanager
def tracing():
    """Tracing on, from a clean trace, between two clock markers."""
    write("trace", "")
    write("tracing_on", "1")
    clock_mark()
    try:
        yield
    finally:
        clock_mark()
        write("tracing_on", "0")


def traced_pair(cmd, address, port, ours):
    """Runs one server/client pair with tracing on around the client; returns the trace lines."""
    server = cmd + ["-p", str(port)]
    # perftest's server says nothing when it listens: wait for its port.
    pair.run_pair(server, server + [address], ready="file" if ours else "listen", timeout=300,
                  around_clients=tracing()).check()
    with open(os.path.join(TRACEFS, "trace")) as f:
        return f.read().splitlines()


def setup_tracing(steps):
    if not os.path.isdir(os.path.join(TRACEFS, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACEFS], check=True)
    write("tracing_on", "0")
    write("buffer_size_kb", "60000")
    write("trace_clock", "x86-tsc")
    try:
        write("set_ftrace_filter", "\n".join(steps) + "\n")
    except OSError as e:
        sys.exit(f"trace-half-trip: cannot trace {', '.join(steps)} ({e}); is the driver loaded?")
    write("current_tracer", "function")
    write("events/syscalls/sys_enter_write/enable", "1")


def reset_tracing():
    write("tracing_on", "0")
    write("events/syscalls/sys_enter_write/enable", "0")
    write("current_tracer", "nop")
    write("set_ftrace_filter", "")
    write("trace_clock", "local")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    version.add_argument(p)
    p.add_argument("--device", default=os.environ.get("SIW_DEV", "siw0"),
                   help="a soft device, siw or rxe (default siw0)")
    p.add_argument("--address", help="its IP address (default: the lab's, SIW_IP or RXE_IP)")
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--iters", type=int, default=4000)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    kind = "siw" if a.device.startswith("siw") else "rxe" if a.device.startswith("rxe") else None
    if kind is None:
        sys.exit(f"trace-half-trip: {a.device} is not a soft device; this traces siw or rxe only")
    for name in ("size", "iters", "rounds"):
        if getattr(a, name) < 1:
            sys.exit(f"trace-half-trip: --{name} wants a positive number, not {getattr(a, name)}")
    lab_address = {"siw": os.environ.get("SIW_IP", "10.0.3.15"),
                   "rxe": os.environ.get("RXE_IP", "10.0.2.15")}
    address = a.address or lab_address[kind]
    try:
        ours = paths.binary("rdma_send_lat")
    except paths.MissingBinary as e:
        sys.exit(f"trace-half-trip: {e}")
    if lab.missing([a.device]):
        if lab.inside():
            sys.exit(f"trace-half-trip: no RDMA device {a.device} here (devices: {', '.join(lab.devices()) or 'none'})")
        sys.exit(lab.rerun_self("trace-half-trip", f"no {a.device} here", limit=1200))
    if os.geteuid() != 0:
        sys.exit("trace-half-trip: tracing needs root")
    steps = STEPS[kind]
    common = ["-d", a.device, "-s", str(a.size), "-n", str(a.iters)]
    # perftest needs rdma_cm on iWARP and a GID index on RoCE (as in compare-perftest).
    connect = ["-R"] if kind == "siw" else ["-x", os.environ.get("RDMABENCH_GID_INDEX", "1")]
    commands = {
        "rdma_send_lat": [ours] + common,
        "ib_send_lat": ["ib_send_lat", "-F"] + connect + common,
    }
    setup_tracing(steps)
    results = {}
    port = 20000 + os.getpid() % 20000
    try:
        for r in range(a.rounds):
            for tool in (TOOLS if r % 2 == 0 else TOOLS[::-1]):
                port += 2
                try:
                    events, rate = parse(traced_pair(commands[tool], address, port, tool == "rdma_send_lat"))
                except RuntimeError as e:
                    sys.exit(f"trace-half-trip: {tool} round {r + 1} failed: {e}")
                if not rate:
                    sys.exit("trace-half-trip: the trace lost its clock markers")
                steps_ticks = half_trips(events, steps)
                if not steps_ticks.get("half trip"):
                    sys.exit(f"trace-half-trip: no complete half trip in {tool}'s trace")
                results.setdefault(tool, []).append(
                    {k: [t / rate for t in v] for k, v in steps_ticks.items()})
                print(f"trace-half-trip: {tool} round {r + 1}/{a.rounds}: "
                      f"{len(steps_ticks['half trip'])} half trips", file=sys.stderr, flush=True)
    finally:
        reset_tracing()
    print(f"{a.device}, send_lat {a.size} B, {a.iters} messages, {a.rounds} rounds each, "
          f"median usec under tracing")
    print("\n".join(table(results, steps)))

