#!/usr/bin/python3
"""Unit test of tools/dev/trace-half-trip's reading of a trace, without any
device: the doorbell is the benchmark's most frequent write size, other
processes and writes are ignored, the clock markers give ticks per usec,
each step is timed from the one before in the sender's context, the
receiver's part runs to the other side's next doorbell, and the table
compares the two tools' medians."""
from tool_test_helpers import check, finish, load_tool

th = load_tool("trace_half_trip")


def line(comm, pid, ts, what):
    return f"   {comm}-{pid}     [000] ...1.  {ts}: {what}"


def doorbell(comm, pid, ts, count="20"):
    return line(comm, pid, ts, f"sys_write(fd: 7, buf: 55d0c0de, count: {count})")


STEPS = ["siw_qp_sq_process", "tcp_v4_rcv", "siw_rqe_complete"]


def ping_pong(comm, trips, sender_ticks, receiver_ticks):
    """A trace of `trips` half trips between pids 10 and 11, 1000 ticks per
    usec, with the given step times (ticks) and a few distractions."""
    lines = [line("python3", 5, 0, "tracing_mark_write: mono_ns=1000000"),
             doorbell(comm, 10, 50, count="3c"),  # an ordinary write, not a doorbell
             line("kworker/0:1", 99, 60, "siw_qp_sq_process <-siw_sq_resume")]  # not ours
    ts, pid = 100, 10
    for _ in range(trips):
        lines.append(doorbell(comm, pid, ts))
        for name, ticks in zip(STEPS, sender_ticks):
            ts += ticks
            lines.append(line(comm, pid, ts, f"{name} <-caller"))
            if name == "tcp_v4_rcv":  # a second call of a step (an ack) before the next one
                lines.append(line(comm, pid, ts + 1, "tcp_v4_rcv <-ip_protocol_deliver_rcu"))
        ts += receiver_ticks
        pid = 21 - pid
    lines.append(doorbell(comm, pid, ts))
    lines.append(line("python3", 5, 2000000, "tracing_mark_write: mono_ns=3000000"))
    return lines


events, rate = th.parse(ping_pong("rdma_send_lat", 20, [3000, 5000, 2000], 4000))
check(abs(rate - 1000) < 1e-9, f"two markers 2 ms apart over 2e6 ticks give 1000 ticks per usec (got {rate})")
check(all(p in (10, 11) for _, p, _ in events), "only the benchmark's processes are kept")
check(sum(w == "doorbell" for _, _, w in events) == 21, "the most frequent write size is the doorbell; others dropped")

steps = th.half_trips(events, STEPS, skip=0.1)
check(len(steps["half trip"]) == 18, f"20 half trips less the first tenth: 18 (got {len(steps['half trip'])})")
check(set(steps["siw_qp_sq_process"]) == {3000}, "the first step is timed from the doorbell")
check(set(steps["tcp_v4_rcv"]) == {5000}, "a step's first call counts, a later call of it does not")
check(set(steps["siw_rqe_complete"]) == {2000}, "the receive completion is timed from the step before")
check(set(steps["receiver"]) == {4000}, "the receiver's part runs to the other side's doorbell")
check(set(steps["half trip"]) == {14000}, "a half trip is doorbell to doorbell")

# A sender's own second doorbell is not a half trip: no answer came.
lonely = [doorbell("ib_send_lat", 10, 100), line("ib_send_lat", 10, 200, "siw_rqe_complete <-x"),
          doorbell("ib_send_lat", 10, 300)]
events, _ = th.parse(lonely)
check(th.half_trips(events, STEPS, skip=0) == {}, "a doorbell followed by the same side's is no half trip")

# The table: per tool the median of per-round medians, and ours / perftest.
ours = {k: [v / 1000 for v in t] for k, t in
        th.half_trips(th.parse(ping_pong("rdma_send_lat", 20, [3300, 5000, 2000], 4000))[0], STEPS).items()}
theirs = {k: [v / 1000 for v in t] for k, t in
          th.half_trips(th.parse(ping_pong("ib_send_lat", 20, [3000, 5000, 2000], 4000))[0], STEPS).items()}
rows = {r.split()[0]: r.split() for r in th.table({"rdma_send_lat": [ours], "ib_send_lat": [theirs]}, STEPS)[1:-1]}
check(rows["siw_qp_sq_process"][1:] == ["3.30", "3.00", "1.10"], f"step row: {rows['siw_qp_sq_process']}")
check(rows["half"][2:] == ["14.30", "14.00", "1.02"], f"half trip row: {rows['half']}")
rows = th.table({"rdma_send_lat": [ours]}, STEPS)
check(rows[1].split()[-2:] == ["-", "-"], "a tool without figures shows '-' and no ratio")
rows = th.table({"rdma_send_lat": [ours, theirs, ours], "ib_send_lat": [theirs, ours, ours]}, STEPS)
check(rows[-1] == "half trip: ours shorter in 1 of 3 rounds",
      f"rounds ahead count only a strictly shorter half trip of the same round: {rows[-1]!r}")

finish()
