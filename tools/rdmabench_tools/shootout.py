"""transport-shootout - RoCEv2 vs InfiniBand vs iWARP (and TCP) in one command.

Usage: tools/transport-shootout [--quick] [-n N] [--out DIR] [-d|--devices DEV[:ADDR],...]
                                [--peer HOST] [--tests lat,bw,streams,load,tcp] [--lab] [--repeats N]
       tools/transport-shootout --render DIR

Finds this machine's RDMA devices (or takes --devices), classifies each with
the library's own rules (rdma_devices: InfiniBand, RoCEv2, iWARP),
and runs the same plan on every one: write/read/send latency (median, P99,
P99.9) at a small and a medium size, write bandwidth over a size sweep,
multi-stream write bandwidth (mean and stdev over repeated intervals), CPU
per GB on both sides, and write latency idle and under N streams of 64 KiB
writes on the same device (--load-qps: P50, P99, P99.9 and the load's own
bandwidth; the "P99 under 16 streams" figure); then a TCP baseline (tcp_baseline: ping-pong and 1, 2
and 4 streams) to each device's own IP address. Writes DIR/results.json
(every figure and the context), DIR/report.md, DIR/report.html and PNG plots.

A transport the machine lacks is a column that says so. A device that fails
(or does not exist) is reported, the others still are, and the exit status
is 1 naming it. On a machine with no RDMA device at all the command runs
itself inside the soft-RDMA lab (tools/rdma-lab: rxe0 RoCEv2, siw0 iWARP) and
says so; figures from there are emulated and only comparable side by side.

With --peer HOST the servers run on HOST over ssh (same repository path and
device names there; ADDR in --devices is the peer's address for that
device, default HOST). Without it, server and client share this machine and
talk through the device's own IP (the kernel loops local TCP through lo).

Each RDMA latency and bandwidth cell is one pair measuring --repeats times
over one connection (the binaries' --repeat; 3 by default): the table gives
the median with its min-max range, the plots error bars, and each row says
whether its transports are within noise of each other (ranges overlap).
With --repeats 1 a cell has no range and the row says "1 run: no range".

--quick takes about a minute in the lab; the default full plan is longer,
with more sizes, iterations and streams. --render DIR redraws the report of
an earlier run from its results.json.
"""
import argparse
import glob
import json
import os
import platform
import statistics
import subprocess
import sys
import time

from . import lab as lab_helper
from . import common_options, pair, paths, records, spread, version
from .devices import command_output, ipv4_of, netdev_of, read_text

PROG = "transport-shootout"
# Every binary a run may use: built (or named) before anything else happens.
BINARIES = ["rdma_devices", "rdma_write_lat", "rdma_read_lat", "rdma_send_lat", "rdma_write_bw", "tcp_baseline"]
BIN = {}  # name: path, filled by need_binaries()
TRANSPORTS = ["InfiniBand", "RoCEv2", "iWARP"]  # the columns every report has
TESTS = ("lat", "bw", "streams", "load", "tcp")

PLANS = {
    "quick": dict(lat_ops=["write", "read", "send"], lat_sizes=[64, 4096], lat_iters=200,
                  bw_sizes=[4096, 65536, 1 << 20], bw_bytes=16 << 20, cpu_size=65536,
                  rdma_streams=[2], repeats=3, load_streams=[2], load_lat_size=64, load_lat_iters=2000,
                  tcp_streams=[1, 2, 4], tcp_seconds=0.6,
                  tcp_interval=0.05, tcp_sweep_seconds=0.3, run_timeout=120),
    "full": dict(lat_ops=["write", "read", "send"], lat_sizes=[2, 64, 1024, 4096, 65536],
                 lat_iters=5000, bw_sizes=[1 << s for s in range(10, 23, 2)], bw_bytes=1 << 30,
                 cpu_size=65536, rdma_streams=[1, 2, 4, 16], repeats=5, load_streams=[4, 16],
                 load_lat_size=64, load_lat_iters=20000, tcp_streams=[1, 2, 4, 16],
                 tcp_seconds=5.0, tcp_interval=0.5, tcp_sweep_seconds=2.0, run_timeout=600),
}


def log(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def die(message, status=2):
    log("error: " + message)
    sys.exit(status)


# --- devices ------------------------------------------------------------------

def need_binaries():
    """Finds (building if need be) every binary the plan uses, or dies saying how to get them."""
    try:
        BIN.update(paths.binaries(BINARIES, log=log))
    except paths.MissingBinary as e:
        die(str(e))


def list_devices():
    """rdma_devices' JSON: the library's classification of every port."""
    out = subprocess.run([BIN["rdma_devices"], "--json"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        die(f"rdma_devices failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["devices"]


def choose_columns(found, wanted, peer):
    """One column per device (with its transport), failures for the rest."""
    by_name = {d["device"]: d for d in found}
    if wanted is None:
        wanted = [(d["device"], None) for d in found]
    columns = []
    for name, addr in wanted:
        col = {"id": name, "kind": "rdma", "device": name, "status": "ok", "errors": []}
        columns.append(col)
        d = by_name.get(name)
        if d is None:
            col.update(transport="unknown", status="failed")
            present = ", ".join(sorted(by_name)) or "none"
            col["errors"].append(f"{name}: no such RDMA device on this machine (present: {present})")
            continue
        ports = [p for p in d.get("ports", []) if "transport" in p]
        if not ports:
            col.update(transport="unknown", status="failed")
            why = d.get("error") or "; ".join(p.get("error", "") for p in d.get("ports", []))
            col["errors"].append(f"{name}: no ACTIVE port ({why})")
            continue
        p = ports[0]
        col.update(transport=p["transport"], port=p["port"], port_info=p,
                   attributes=d.get("attributes"), node_type=d.get("node_type"))
        col["netdev"] = netdev_of(name, p["port"])
        if peer:
            col["address"] = addr or peer
        else:
            col["address"] = addr or (ipv4_of(col["netdev"]) if col["netdev"] else None)
        if not col["address"]:
            col["status"] = "failed"
            col["errors"].append(f"{name}: no IPv4 address on its interface {col['netdev']}; "
                                 f"give one with --devices {name}:ADDR")
        if col["netdev"]:
            col["netdev_mtu"] = read_text(f"/sys/class/net/{col['netdev']}/mtu")
    return columns


# --- running pairs ----------------------------------------------------------------

class Runner:
    """Runs server/client pairs (pair.run_pairs), each on fresh ports, logs under DIR/logs."""

    def __init__(self, out, peer, timeout, repeats=1):
        self.out, self.peer, self.timeout, self.repeats = out, peer, timeout, repeats
        self.ports = pair.Ports()
        os.makedirs(os.path.join(out, "logs"), exist_ok=True)
        os.makedirs(os.path.join(out, "raw"), exist_ok=True)

    def pairs(self, binary, device, address, options, names, json_paths, extra_client=None):
        """len(names) pairs at once (one per stream); returns their client JSON lines."""
        # --force: raw/ is this study's own, and a rerun into the same --out
        # measures its cells afresh.
        runs = [pair.same_options_pair(BIN[binary], device, self.ports.next(), options, address,
                                       ["--force", "--json", json_paths[i]] + (extra_client or []))
                for i in range(len(names))]
        logs = [os.path.join(self.out, "logs", name) for name in names]
        for result in pair.run_pairs(runs, timeout=self.timeout, logs=logs, ssh=self.peer):
            result.check()
        return [read_json_line(p) for p in json_paths]

    def one(self, binary, device, address, options, name, extra_client=None):
        """One pair; its client's JSON line, kept as raw/NAME.json."""
        return self.pairs(binary, device, address, options, [name],
                          [os.path.join(self.out, "raw", name + ".json")], extra_client)[0]

    def repeated(self, binary, device, address, options, name, extra_client=None):
        """One pair measuring self.repeats times over its connection (--repeat);
        its client's JSON lines, one per repeat, kept as raw/NAME.json."""
        path = os.path.join(self.out, "raw", name + ".json")
        extra = (["--repeat", str(self.repeats)] if self.repeats > 1 else []) + (extra_client or [])
        self.pairs(binary, device, address, options, [name], [path], extra)
        records = read_json_lines(path)
        if len(records) != self.repeats:
            raise RuntimeError(f"{path}: {len(records)} records for --repeat {self.repeats}")
        return records

    def latency(self, binary, device, address, options, name, test, size, extra_client=None):
        """One latency pair with every sample kept (every repeat's); its
        measurement: each figure the median of the repeats, with its spread."""
        samples = os.path.join("raw", name + ".samples.txt")
        js = self.repeated(binary, device, address, options + ["-s", str(size)], name,
                           ["--dump-samples", os.path.join(self.out, samples)] + (extra_client or []))
        spreads = {k: spread.summarize([j["latency"][k] for j in js])
                   for k in ("median_us", "p99_us", "p99_9_us", "mean_us", "min_us", "max_us")}
        return [{"test": test, "bytes": size, "samples_file": samples, "iterations": js[0]["iterations"],
                 "repeats": len(js), "figures": {k: s["median"] for k, s in spreads.items()},
                 "spread": spreads, "result": js[-1]}]


def read_json_lines(path):
    with open(path) as f:
        lines = [json.loads(l) for l in f if l.strip()]
    if not lines:
        raise RuntimeError(f"{path}: the client wrote no result")
    return lines


def read_json_line(path):
    return read_json_lines(path)[-1]


def cpu_figures(j):
    """Both sides' process CPU-seconds per GB from a --cpu-util JSON line."""
    cpu = j.get("cpu", {})
    return {f"cpu_{side}_s_per_GB": cpu.get(side, {}).get("process", {}).get("cpu_s_per_GB")
            for side in ("client", "server")}


def bw_iterations(plan, size):
    """-n's count where given; else about plan["bw_bytes"] per run, within
    sane bounds on the count."""
    if plan.get("bw_iters"):
        return plan["bw_iters"]
    return max(16, min(5000, plan["bw_bytes"] // size))


def with_iterations(plan, iters):
    """The plan with every run's count set to -n's `iters` (None: as planned)."""
    if not iters:
        return plan
    return {**plan, "lat_iters": iters, "load_lat_iters": iters, "bw_iters": iters}


def has_qp_option():
    """Whether rdma_write_bw takes -q N (several QPs in one run)."""
    text = command_output([BIN["rdma_write_bw"], "--help"]) or ""
    return "--qp" in text or "-q [" in text or "-q N" in text or "--num-qps" in text


# --- the plan -------------------------------------------------------------------

def rdma_steps(col, plan, tests, qp_option):
    """(label, function returning measurement dicts) for one RDMA column."""
    dev, addr = col["device"], col["address"]
    steps = []

    def lat(op, size):
        return lambda r: r.latency(f"rdma_{op}_lat", dev, addr, ["-n", str(plan["lat_iters"])],
                                   f"{dev}-{op}_lat-{size}", f"{op}_lat", size)

    def bw(size):
        def run(r):
            name = f"{dev}-write_bw-{size}"
            iters = bw_iterations(plan, size)
            js = r.repeated("rdma_write_bw", dev, addr, ["-s", str(size), "-n", str(iters), "--cpu-util"], name)
            spreads = {"average_MBps": spread.summarize([j["bandwidth"]["average_MBps"] for j in js])}
            for key in cpu_figures(js[0]):
                values = [cpu_figures(j)[key] for j in js if cpu_figures(j)[key] is not None]
                if values:
                    spreads[key] = spread.summarize(values)
            figures = {**cpu_figures(js[0]), **{k: s["median"] for k, s in spreads.items()}}
            return [{"test": "write_bw", "bytes": size, "iterations": iters, "repeats": len(js),
                     "figures": figures, "spread": spreads, "result": js[-1]}]
        return run

    def streams(n):
        def run(r):
            size = plan["cpu_size"]
            iters = bw_iterations(plan, size) // n  # the same bytes in all
            intervals, results = [], []
            for rep in range(plan["repeats"]):
                if qp_option:  # one run with N QPs: the binary aggregates them
                    name = f"{dev}-write_bw-q{n}-r{rep}"
                    js = [r.one("rdma_write_bw", dev, addr, ["-s", str(size), "-n", str(iters), "-q", str(n)], name)]
                else:  # N single-QP pairs at once, their rates summed
                    names = [f"{dev}-write_bw-x{n}-r{rep}-s{i}" for i in range(n)]
                    js = r.pairs("rdma_write_bw", dev, addr, ["-s", str(size), "-n", str(iters)], names,
                                 [os.path.join(r.out, "raw", x + ".json") for x in names])
                intervals.append(sum(j["bandwidth"]["average_MBps"] for j in js))
                results.append(js)
            return [{"test": "write_bw_streams", "bytes": size, "streams": n, "iterations": iters,
                     "method": (f"rdma_write_bw -q {n}, one run per interval" if qp_option else
                                f"{n} concurrent single-QP rdma_write_bw pairs, rates summed; one round "
                                f"per interval"),
                     "figures": {"mean_MBps": statistics.mean(intervals),
                                 "stdev_MBps": statistics.stdev(intervals) if len(intervals) > 1 else 0.0,
                                 "intervals_MBps": intervals},
                     "result": results}]
        return run

    def under_load(n):
        """write latency while n queue pairs of cpu_size writes run between the same ends
        (n = 0: idle, the same run without them)."""
        def run(r):
            size, load = plan["load_lat_size"], plan["cpu_size"]
            extra = ["--load-qps", str(n), "--load-size", str(load), "--load-op", "write"] if n else []
            (m,) = r.latency("rdma_write_lat", dev, addr, ["-n", str(plan["load_lat_iters"])],
                             f"{dev}-write_lat-{size}-load{n}", "write_lat_load", size, extra)
            m["load_streams"] = n
            if n:
                load_figures = m["result"]["load"]
                m["figures"].update(load_mean_Gbps=load_figures["mean_Gbps"],
                                    load_stdev_Gbps=load_figures["stdev_Gbps"],
                                    load_intervals=load_figures["intervals"])
            return [m]
        return run

    if "lat" in tests:
        steps += [(f"{op}_lat {size} B", lat(op, size)) for op in plan["lat_ops"] for size in plan["lat_sizes"]]
    if "load" in tests:
        steps += [(f"write_lat {plan['load_lat_size']} B " + (f"under {n}-stream load" if n else "idle"),
                   under_load(n)) for n in [0] + plan["load_streams"]]
    if "bw" in tests:
        steps += [(f"write_bw {size} B", bw(size)) for size in plan["bw_sizes"]]
    if "streams" in tests:
        steps += [(f"write_bw {n} stream(s) x{plan['repeats']}", streams(n)) for n in plan["rdma_streams"]]
    return steps


def tcp_steps(col, plan, tests):
    addr, tag = col["address"], col["id"]
    steps = []

    def pingpong(size):
        return lambda r: r.latency("tcp_baseline", None, addr, ["--test", "pingpong", "-n", str(plan["lat_iters"])],
                                   f"{tag}-pingpong-{size}", "pingpong_lat", size)

    def stream(size, n, seconds, interval):
        def run(r):
            name = f"{tag}-stream-{size}-x{n}"
            j = r.one("tcp_baseline", None, addr, ["--test", "stream", "-s", str(size), "--streams", str(n),
                                                   "--duration", str(seconds), "--interval", str(interval)], name)
            ivs = [i["MBps"] for i in j["intervals"]]
            figures = {"average_MBps": j["bandwidth"]["average_MBps"], "mean_MBps": statistics.mean(ivs),
                       "stdev_MBps": statistics.stdev(ivs) if len(ivs) > 1 else 0.0, **cpu_figures(j)}
            return [{"test": "stream_bw", "bytes": size, "streams": n, "figures": figures,
                     "method": f"tcp_baseline --streams {n}, {len(ivs)} intervals of {interval} s",
                     "result": j}]
        return run

    if "lat" in tests:
        steps += [(f"pingpong {size} B", pingpong(size)) for size in plan["lat_sizes"]]
    if "bw" in tests:
        steps += [(f"stream {size} B", stream(size, 1, plan["tcp_sweep_seconds"], plan["tcp_sweep_seconds"] / 5))
                  for size in plan["bw_sizes"] if size != plan["cpu_size"]]
    if "bw" in tests or "streams" in tests:
        steps += [(f"stream {plan['cpu_size']} B x{n}", stream(plan["cpu_size"], n, plan["tcp_seconds"],
                                                              plan["tcp_interval"]))
                  for n in plan["tcp_streams"]]
    return steps


def route_to(address):
    """('local 10.0.2.15 dev lo ...', 'lo'): how the kernel sends to address."""
    text = " ".join((command_output(["ip", "route", "get", address]) or "").split())
    words = text.split()
    return text or None, words[words.index("dev") + 1] if "dev" in words[:-1] else None


def tcp_columns(rdma_columns):
    """One TCP column per interface the RDMA devices' addresses are reached
    through: two addresses whose traffic takes the same interface (local ones
    all go through lo) would measure the same path twice."""
    columns, seen = [], set()
    for c in rdma_columns:
        if not c.get("address"):
            continue
        route, via = route_to(c["address"])
        key = via or c["address"]
        if key in seen:
            next(t for t in columns if t["via"] == key)["beside"].append(c["id"])
            continue
        seen.add(key)
        columns.append({"id": f"tcp-{key}", "kind": "tcp", "transport": "TCP", "netdev": c.get("netdev"),
                        "via": key, "address": c["address"], "beside": [c["id"]], "route": route,
                        "status": "ok", "errors": []})
    return columns


# --- context ----------------------------------------------------------------------

def git_commit():
    root = paths.source_root()
    return command_output(["git", "-c", "safe.directory=*", "-C", root, "rev-parse", "HEAD"]) if root else None


def context(args, lab):
    # libibverbs.so.1.14.44.0 is rdma-core 44.0: true wherever the library
    # is, even in the lab guest, which has no package database.
    # (Named folders only: a recursive glob of /usr/lib crawls over 9p in the lab.)
    libs = glob.glob("/usr/lib/*/libibverbs.so.1.*.*") + glob.glob("/usr/lib64/libibverbs.so.1.*.*")
    rdma_core = ".".join(os.path.basename(libs[0]).split(".")[4:]) if libs else None
    cpu = next((l.split(":", 1)[1].strip() for l in (read_text("/proc/cpuinfo") or "").splitlines()
                if l.startswith("model name")), None)
    return {
        "where": ("soft-RDMA lab: qemu guest under TCG emulation (tools/rdma-lab); figures are "
                  "emulated, compare transports only side by side in this run") if lab else "this machine",
        "lab": lab, "host": platform.node(), "kernel": platform.release(),
        "kernel_version": platform.version(), "rdma_core": rdma_core, "cpu_model": cpu,
        "cpus": os.cpu_count(), "clocksource": read_text(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "rdmabench_commit": git_commit(), "python": platform.python_version(), "peer": args.peer,
        "placement": f"servers on {args.peer} over ssh" if args.peer else
        "server and client on this machine, through each device's own address",
        "command": [PROG] + sys.argv[1:],
    }


# --- main ------------------------------------------------------------------------

def run_in_lab(args, out):
    why = ("asked for the lab" if args.lab else "no RDMA device on this machine") + \
        "; InfiniBand is not present there"
    argv = sys.argv[1:] + (["--out", out] if args.out is None else []) + ["--no-render"]
    status = lab_helper.rerun_self(PROG, why, argv, dirs=[out], limit=900 if args.quick else 3600)
    if not os.path.exists(os.path.join(out, "results.json")):
        die(f"the lab run wrote no results (status {status}); see the output above", 1)
    # The guest cannot see the git metadata of a worktree; the host can.
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    if not results["context"].get("rdmabench_commit"):
        results["context"]["rdmabench_commit"] = git_commit()
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(results, f, indent=1)
    render(out)  # plotting is much faster on the host than under emulation
    log(f"report: {out}/report.html (measured in the soft-RDMA lab)")
    return status


def measure(args, out, lab):
    plan = with_iterations(dict(PLANS["quick" if args.quick else "full"]), args.iters)
    tests = args.tests
    found = list_devices()
    rdma = choose_columns(found, args.devices, args.peer)
    tcp = tcp_columns([c for c in rdma if c["status"] == "ok"]) if "tcp" in tests else []
    present = {c["transport"] for c in rdma}
    absent = [{"id": t, "kind": "absent", "transport": t, "status": "absent",
               "errors": [], "reason": "not present on this machine"} for t in TRANSPORTS if t not in present]
    qp_option = has_qp_option()
    plan["cell_repeats"] = args.repeats  # each latency and bandwidth pair's --repeat
    results = {**records.header(), "tool": PROG, "mode": "quick" if args.quick else "full", "plan": plan,
               "tests": sorted(tests),
               "context": context(args, lab), "devices_found": found,
               "columns": rdma + tcp + absent, "measurements": [],
               "multi_stream_method": "-q N (queue pairs in one run)" if qp_option else
               "N concurrent single-QP pairs (this build's rdma_write_bw has no -q)"}
    for c in rdma:
        if c["status"] != "ok":
            log(c["errors"][0])
    work = [(c, s) for c in rdma if c["status"] == "ok" for s in rdma_steps(c, plan, tests, qp_option)]
    work += [(c, s) for c in tcp for s in tcp_steps(c, plan, tests)]
    runner = Runner(out, args.peer, plan["run_timeout"] * args.repeats, args.repeats)
    t0 = time.monotonic()
    for i, (col, (label, step)) in enumerate(work, 1):
        start = time.monotonic()
        left = common_options.time_left(i - 1, len(work), start - t0)
        print(f"{PROG}: [{i}/{len(work)}, {left}] {col['transport']} {col['id']}: "
              f"{label} ...", end="", file=sys.stderr, flush=True)
        try:
            for m in step(runner):
                results["measurements"].append({"column": col["id"], **m})
            print(f" {time.monotonic() - start:.1f} s", file=sys.stderr, flush=True)
        except (RuntimeError, OSError, KeyError, ValueError, subprocess.SubprocessError) as e:
            print(" FAILED", file=sys.stderr, flush=True)
            col["status"] = "failed"
            col["errors"].append(f"{col['id']} {label}: {e}")
            log(col["errors"][-1])
    results["finished_utc"] = records.utc_now()
    results["seconds"] = round(time.monotonic() - t0, 1)
    results["failures"] = [e for c in rdma + tcp for e in c["errors"]]
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    return results


def main():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    version.add_argument(p)
    common_options.add_out(p, "shootout")
    p.add_argument("--quick", action="store_true", help="short plan: about a minute in the lab")
    # -n only: the plan's runs hold one another's bytes equal, which -D would not.
    common_options.add_run_length(p, "the plan's: --quick or full", duration=False)
    common_options.add_devices(p, "every RDMA device found")
    p.add_argument("--peer", help="run the servers on this host over ssh")
    common_options.add_tests(p, TESTS)
    p.add_argument("--lab", action="store_true", help="use the soft-RDMA lab even if devices exist")
    p.add_argument("--repeats", type=common_options.positive_int, default=3,
                   help="measurements of each RDMA latency and bandwidth cell over one connection (the "
                        "binaries' --repeat; default 3): the report gives the median, its min-max range, "
                        "and which differences are within noise")
    p.add_argument("--render", metavar="DIR", help="only redraw the report of DIR/results.json")
    p.add_argument("--no-render", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.repeats > 1000:
        p.error(f"--repeats {args.repeats}: expected 1 to 1000 (the binaries' --repeat)")
    if args.render:
        sys.exit(0 if render(args.render) else 1)
    args.tests = set(args.tests)
    need_binaries()
    out = common_options.out_folder(args, "shootout")
    try:
        folder = paths.OutputFolder(out)
    except OSError as e:
        die(f"--out {out}: cannot create it ({e.strerror})")
    with folder:  # a run that wrote nothing leaves no folder behind
        run(args, out)


def run(args, out):
    lab = lab_helper.inside()
    if not lab and (args.lab or not list_devices()):
        sys.exit(run_in_lab(args, out))
    if lab:
        log("inside the soft-RDMA lab: figures are emulated (qemu TCG)")
    results = measure(args, out, lab)
    if not args.no_render:
        render(out)
    for failure in results["failures"]:
        log("FAILED: " + failure)
    if results["failures"]:
        bad = sorted({c["id"] for c in results["columns"] if c["status"] == "failed"})
        log(f"{len(bad)} transport column(s) failed: {', '.join(bad)}; the report covers the others")
        sys.exit(1)
    log(f"done: {out}/results.json" if args.no_render else f"done: {out}/report.html")


def render(out):
    from . import shootout_report  # matplotlib is only needed here
    return shootout_report.render(out)
