"""compare-perftest - our write latency and bandwidth beside perftest's, on
the same device in the same boot, alternating runs, medians and ratios.

Usage: tools/compare-perftest [--rounds N] [-d|--devices DEV[:ADDR],...] [--tests write_lat,...]
                              [-n N | --lat-iters N --bw-iters N] [--size BYTES] [--lat-sizes 2,64,4096]
                              [--control] [--shuffle [--seed N]] [--out DIR]

Without --devices it uses this machine's rxe0/siw0 if present (RXE_DEV/RXE_IP,
SIW_DEV/SIW_IP), else re-runs itself inside tools/rdma-lab; a device given
without its ADDR is reached by its netdev's IPv4 address. Each round runs,
for each test, latency at the --lat-sizes, bandwidth at --size and
message rate at 64 B with -t 128, ours and perftest's alternately (who goes
first swaps every round); the table shows per-figure medians, ranges
(min-max), sample counts, ours/perftest, and in how many rounds ours was
ahead of the perftest run beside it (the two ran back to back, so they
shared the machine's mood: 5 of 5 or 0 of 5 is the only clear verdict at
5 rounds, a sign test's p = 0.06). A perftest run that fails or prints
0.00 (it does under emulation) gives no figure and is reported.

The lab's speed drifts over whole runs, so a gap of a few percent needs a
yardstick. --control runs perftest a second time beside each pair and
reports that run against the first: a ratio of ours outside the range the
control gives, with ours ahead in few rounds while the control is ahead in
about half, is a real gap. --shuffle runs each round's steps and tools in a
fresh random order (--seed makes it repeatable), so that no run always
follows the same other run and shares its after-effects.
Units: latency in usec; bandwidth in MB/s = 10^6 B/s (perftest's MiB/s
figures are converted). The table goes to stdout and, with every round's
figures, to --out DIR (default ./compare-perftest-YYYYmmdd-HHMMSS):
comparison.txt, comparison.md and comparison.json.
"""
import argparse
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time

from . import common_options, devices as device_info, lab, pair, paths, records, version

TESTS = ("write_lat", "write_bw", "read_lat", "read_bw", "send_lat", "send_bw")

MIB = 1048576 / 1e6
BINARIES = [f"rdma_{op}_{kind}" for op in ("write", "read", "send") for kind in ("lat", "bw")]
BIN = {}  # name: path, filled in main()


def run_pair(server_cmd, client_cmd, ready="file", timeout=300):
    """Runs server then client (ready="listen" for perftest's, which print
    nothing useful before the client comes); returns the client's stdout."""
    try:
        result = pair.run_pair(server_cmd, client_cmd, ready=ready, timeout=timeout)
    except pair.PairError as e:
        raise RuntimeError(f"{' '.join(server_cmd)}: {e}") from e
    if result.client_status != 0:
        raise RuntimeError(f"{' '.join(client_cmd)} failed:\n{result.client_out}{result.client_err}")
    return result.client_out


def perftest_row(text):
    """The numeric result row of a perftest report."""
    rows = []
    for line in text.splitlines():
        fields = line.split()
        try:
            rows.append([float(f) for f in fields])
        except ValueError:
            continue
    rows = [r for r in rows if len(r) >= 4]
    if not rows:
        raise RuntimeError("no result row in perftest output:\n" + text)
    return rows[-1]


class Runner:
    def __init__(self, args, port):
        self.args = args
        self.port = port

    def next_port(self):
        self.port += 2
        return str(self.port)

    def ours(self, binary, dev, ip, extra):
        port = self.next_port()
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            common = [BIN[binary], "-d", dev, "-p", port] + self.args.ours_args.split()
            run_pair(common, common + extra + ["--json", out.name, ip])
            return json.loads(open(out.name).readline())

    def theirs(self, tool, dev, ip, is_iwarp, extra):
        common = [tool, "-d", dev, "-p", self.next_port(), "-F"]
        common += ["-R"] if is_iwarp else ["-x", os.environ.get("RDMABENCH_GID_INDEX", "1")]
        return perftest_row(run_pair(common + extra, common + extra + [ip], ready="listen"))

    def round(self, dev, ip, ours_first, rng=None, on_step=None):
        """One pass over the plan with both tools (and the control run of
        perftest, with --control); returns {tool: {figure: value}}. With rng,
        the steps and the tools within each step come in a random order."""
        is_iwarp = dev.startswith("siw")
        figures = {"ours": {}, "perftest": {}, "control": {}}
        steps = plan(self.args)
        if rng:
            rng.shuffle(steps)
        for k, (op, kind, size, extra) in enumerate(steps):
            sweep = size is None
            args = (["-s", str(size)] if not sweep else []) + extra
            iters = self.args.lat_iters if kind == "lat" else self.args.bw_iters
            if "-l" in extra:  # perftest wants a whole number of post lists
                iters -= iters % int(extra[extra.index("-l") + 1])
            n = [] if sweep else ["-n", str(iters)]
            label = step_label(op, kind, size, extra)
            if on_step:
                on_step(k, len(steps), label)

            def ours():
                start = time.monotonic()
                try:
                    j = self.ours(f"rdma_{op}_{kind}", dev, ip, args + n)
                except RuntimeError as e:
                    print(f"compare-perftest: ours failed ({label}): {' | '.join(str(e).splitlines()[-2:])}",
                          file=sys.stderr)
                    return
                if sweep:
                    figures["ours"][label + " wall s"] = time.monotonic() - start
                elif kind == "lat":
                    figures["ours"][label + " median"] = j["latency"]["median_us"]
                    figures["ours"][label + " p99"] = j["latency"]["p99_us"]
                elif size >= 65536:
                    figures["ours"][label + " MB/s"] = j["bandwidth"]["average_MBps"]
                else:
                    figures["ours"][label + " Mpps"] = j["bandwidth"]["message_rate_Mpps"]

            def theirs(tool="perftest"):
                start = time.monotonic()
                try:
                    row = self.theirs(f"ib_{op}_{kind}", dev, ip, is_iwarp, args + n)
                except RuntimeError as e:
                    print(f"compare-perftest: {tool} failed ({label}): {' | '.join(str(e).splitlines()[-3:])}",
                          file=sys.stderr)
                    return
                # lat: #bytes #iter t_min t_max t_typical t_avg t_stdev 99% 99.9%
                # bw:  #bytes #iter BW-peak BW-average(MiB/s) MsgRate
                if sweep:
                    figures[tool][label + " wall s"] = time.monotonic() - start
                elif kind == "lat":
                    # Its clock calibration can fail under emulation (inf, 0.00).
                    if all(0 < v < math.inf for v in (row[4], row[7])):
                        figures[tool][label + " median"] = row[4]
                        figures[tool][label + " p99"] = row[7]
                elif size >= 65536:
                    # perftest under emulation sometimes prints 0.00: no figure, said so.
                    if row[3] > 0:
                        figures[tool][label + " MB/s"] = row[3] * MIB
                elif row[4] > 0:
                    figures[tool][label + " Mpps"] = row[4]

            runs = [ours, theirs] if ours_first else [theirs, ours]
            if self.args.control:
                runs.append(lambda: theirs("control"))
            if rng:
                rng.shuffle(runs)
            for run in runs:
                run()
        return figures


def plan(a):
    """(operation, lat|bw, size, extra options) for every comparison."""
    steps = []
    for op in ("write", "read", "send"):
        if f"{op}_lat" in a.tests:
            for size in a.lat_sizes:
                steps.append((op, "lat", size, []))
        if f"{op}_bw" in a.tests:
            steps.append((op, "bw", a.size, []))
            steps.append((op, "bw", 64, ["-t", "128"]))  # message rate
            if op != "read":  # post lists with selective signaling; perftest has -l for these
                steps.append((op, "bw", 64, ["-t", "128", "-l", "16"]))
    if "write_bw" in a.tests and a.sweep_iters:
        # The wall time of a whole -a sweep, connection set-up included.
        steps.append(("write", "bw", None, ["-a", "-n", str(a.sweep_iters)]))
    return steps


def step_label(op, kind, size, extra):
    """A step's name, which its figures' names start with."""
    sweep = size is None
    return f"{op}_{kind} " + (" ".join(extra) if sweep else f"{size}B" + (" -l 16" if "-l" in extra else ""))


def figure_names(a):
    """Every figure a run can give, in the plan's order: the report keeps
    this order whatever order --shuffle ran the steps in."""
    names = []
    for op, kind, size, extra in plan(a):
        label = step_label(op, kind, size, extra)
        if size is None:
            names.append(label + " wall s")
        elif kind == "lat":
            names += [label + " median", label + " p99"]
        else:
            names.append(label + (" MB/s" if size >= 65536 else " Mpps"))
    return names


def in_plan_order(results, a):
    """results with its figures in the plan's order, devices as they came."""
    rank = {name: i for i, name in enumerate(figure_names(a))}
    devices = list(dict.fromkeys(dev for dev, _ in results))
    return dict(sorted(results.items(), key=lambda kv: (devices.index(kv[0][0]), rank.get(kv[0][1], len(rank)))))


# results: {(device, figure): {tool: {round: value}}}; a run that gave no
# figure leaves its round out, so rounds pair ours with the perftest run
# beside it.

def values(by_tool, tool):
    """One tool's figures in round order."""
    return [v for _, v in sorted(by_tool.get(tool, {}).items())]


def rounds_ahead(metric, by_tool, tool="ours"):
    """(rounds where `tool` (ours, or the control) beat the perftest run of
    the same round, rounds where both gave a figure). Latency and wall time:
    lower is better."""
    ours, theirs = by_tool.get(tool, {}), by_tool.get("perftest", {})
    both = sorted(set(ours) & set(theirs))
    lower_is_better = metric.endswith((" median", " p99", " wall s"))
    ahead = sum((ours[r] < theirs[r]) if lower_is_better else (ours[r] > theirs[r]) for r in both)
    return ahead, len(both)


def add_post_list_gain(results):
    """The issue's reading of message rate with post lists: ours with -l 16
    and selective signaling against perftest as users run it, without -l.
    Derived from the rounds already run (no extra runs); the -l 16 row beside
    it keeps the like-for-like ratio."""
    for (dev, metric) in list(results):
        if not metric.endswith("64B -l 16 Mpps"):
            continue
        plain = results.get((dev, metric.replace(" -l 16", "")), {})
        ours = results[(dev, metric)].get("ours", {})
        if ours and plain.get("perftest"):
            label = metric.replace(" -l 16 Mpps", " Mpps: ours -l 16 / perftest without -l")
            results[(dev, label)] = {"ours": ours, "perftest": plain["perftest"]}


def ratio_and_ahead(metric, by_tool, tool="ours"):
    """`tool`'s median over perftest's, and its rounds ahead, as table cells."""
    o, t = values(by_tool, tool), values(by_tool, "perftest")
    ahead, paired = rounds_ahead(metric, by_tool, tool)
    return (f"{statistics.median(o) / statistics.median(t):.2f}" if o and t else "-",
            f"{ahead}/{paired}" if paired else "-")


def has_control(results):
    return any(by_tool.get("control") for by_tool in results.values())


def markdown_table(results):
    """One row per figure, for each device: ours, perftest (medians), ours/perftest
    and the rounds ours was ahead in; with --control, also perftest's second
    run over its first and the rounds that run was ahead in."""
    devices = list(dict.fromkeys(dev for dev, _ in results))
    figures = list(dict.fromkeys(metric for _, metric in results))
    control = has_control(results)
    num = lambda x: f"{x:.3g}"
    cols = ["ours", "perftest", "ratio", "ahead"] + (["control ratio", "control ahead"] if control else [])
    head = "| figure | " + " | ".join(f"{d} {c}" for d in devices for c in cols) + " |"
    lines = [head, "|---" * (1 + len(cols) * len(devices)) + "|"]
    for metric in figures:
        cells = []
        for dev in devices:
            by_tool = results.get((dev, metric), {})
            o, t = values(by_tool, "ours"), values(by_tool, "perftest")
            cells += [num(statistics.median(o)) if o else "no figure",
                      num(statistics.median(t)) if t else "no figure", *ratio_and_ahead(metric, by_tool)]
            if control:
                cells += ratio_and_ahead(metric, by_tool, "control")
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    version.add_argument(p)
    p.add_argument("--rounds", type=int, default=5)
    common_options.add_devices(p, "rxe0 and siw0 of the lab")
    p.add_argument("--lat-iters", type=int, default=5000)
    p.add_argument("--bw-iters", type=int, default=5000)
    # -n only: perftest's latency tests under -D drop the percentiles compared here.
    common_options.add_run_length(p, "--lat-iters and --bw-iters", duration=False)
    p.add_argument("--size", type=int, default=65536, help="bandwidth message size")
    p.add_argument("--lat-sizes", type=lambda t: [int(x) for x in t.split(",")], default=[2, 64, 4096])
    common_options.add_tests(p, TESTS)
    p.add_argument("--sweep-iters", type=int, default=200,
                   help="iterations per size of the timed write_bw -a sweep (0: no sweep)")
    p.add_argument("--ours-args", default="", help="extra options for our binaries (both sides), e.g. '--clock tsc'")
    common_options.add_out(p, "compare-perftest")
    p.add_argument("--control", action="store_true",
                   help="also run perftest a second time in every step, as a yardstick for the noise")
    p.add_argument("--shuffle", action="store_true",
                   help="run each round's steps and tools in a random order (default: fixed steps, "
                        "who goes first swaps every round)")
    p.add_argument("--seed", type=int, help="the --shuffle order's seed (default: a random one, printed)")
    a = p.parse_args()
    if a.iters:
        a.lat_iters = a.bw_iters = a.iters
    # Usage errors exit 2, as argparse's own (p.error).
    if a.rounds < 1:
        p.error(f"--rounds wants 1 or more, not {a.rounds}")
    if a.seed is not None and not a.shuffle:
        p.error("--seed sets the --shuffle order; add --shuffle")
    a.out = common_options.out_folder(a, "compare-perftest")
    lab_devices = [(os.environ.get("RXE_DEV", "rxe0"), os.environ.get("RXE_IP", "10.0.2.15")),
                   (os.environ.get("SIW_DEV", "siw0"), os.environ.get("SIW_IP", "10.0.3.15"))]
    devices = a.devices or lab_devices
    try:
        BIN.update(paths.binaries(BINARIES, log=lambda m: print(f"compare-perftest: {m}", file=sys.stderr)))
    except paths.MissingBinary as e:
        sys.exit(f"compare-perftest: {e}")
    missing = lab.missing([dev for dev, _ in devices])
    if missing and not lab.inside():
        # The guest sees only shared folders: the tools' tree, the current
        # folder and the folders the --json and --markdown files go to.
        # The same --out inside: a default one would be named anew there.
        os.makedirs(a.out, exist_ok=True)
        sys.exit(lab.rerun_self("compare-perftest", f"no {', '.join(missing)} here",
                                sys.argv[1:] + ["--out", a.out], dirs=[a.out], limit=3000))
    if missing:
        sys.exit(f"compare-perftest: no RDMA device {', '.join(missing)} here "
                 f"(devices: {', '.join(lab.devices()) or 'none'})")

    runner = Runner(a, 30000)
    rng = None
    if a.shuffle:
        if a.seed is None:
            a.seed = random.SystemRandom().randrange(1 << 31)
        print(f"compare-perftest: shuffled with --seed {a.seed}", file=sys.stderr)
        rng = random.Random(a.seed)
    devices = [(dev, ip or address_of(dev)) for dev, ip in devices]
    results = {}
    started, t0 = records.utc_now(), time.monotonic()
    for d, (dev, ip) in enumerate(devices):
        for r in range(a.rounds):
            def step_started(k, steps, label, d=d, r=r, dev=dev):
                # A round takes minutes: a line per step, with the whole run's time.
                done = (d * a.rounds + r) * steps + k
                print(f"compare-perftest: [{done + 1}/{len(devices) * a.rounds * steps}, "
                      f"{common_options.time_left(done, len(devices) * a.rounds * steps, time.monotonic() - t0)}] "
                      f"{dev} round {r + 1}/{a.rounds}: {label}", file=sys.stderr, flush=True)
            fig = runner.round(dev, ip, ours_first=(r % 2 == 0), rng=rng, on_step=step_started)
            for tool, by_metric in fig.items():
                for metric, v in by_metric.items():
                    results.setdefault((dev, metric), {}).setdefault(tool, {})[r] = v
            print(f"compare-perftest: {dev} round {r + 1}/{a.rounds} done", file=sys.stderr, flush=True)
    report(a, in_plan_order(results, a), started)


def address_of(device):
    """The IPv4 address of the device's netdev, to reach it by."""
    address = device_info.ipv4_of(device_info.netdev_of(device, 1) or "")
    if not address:
        sys.exit(f"compare-perftest: --devices {device}: its netdev has no IPv4 address; "
                 f"give one as {device}:ADDR")
    return address


def report(a, results, started_utc=None):
    """The table on stdout, and in --out: comparison.txt (the same table),
    comparison.md and comparison.json (every round's figures)."""
    add_post_list_gain(results)
    control = has_control(results)
    lines = [f"{'device':8} {'figure':34} {'ours median [range]':>30} {'perftest median [range]':>30} "
             f"{'ours/perftest':>14} {'ahead':>6}" + (f" {'control/perftest':>17} {'ahead':>6}" if control else "")]
    fmt = lambda xs: f"{statistics.median(xs):9.3f} [{min(xs):.3f}-{max(xs):.3f}] n={len(xs)}" if xs else "no figure"
    for (dev, metric), by_tool in results.items():
        o, t = values(by_tool, "ours"), values(by_tool, "perftest")
        ratio = f"{statistics.median(o) / statistics.median(t):14.3f}" if o and t else f"{'-':>14}"
        ahead, paired = rounds_ahead(metric, by_tool)
        line = f"{dev:8} {metric:34} {fmt(o):>30} {fmt(t):>30} {ratio} {f'{ahead}/{paired}':>6}"
        if control:
            line += " {:>17} {:>6}".format(*ratio_and_ahead(metric, by_tool, "control"))
        lines.append(line)
    order = "shuffled" if getattr(a, "shuffle", False) else "alternating"
    lines.append(f"({a.rounds} {order} rounds in one boot; latency in usec, lower is better; MB/s = 10^6 B/s "
          f"and Mpps, higher is better; sweep wall time in s, lower is better; {a.lat_iters} latency and {a.bw_iters} bandwidth iterations; "
          f"ours with {('options ' + repr(a.ours_args)) if a.ours_args else 'its defaults'}; "
          f"ahead: the rounds in which ours beat the perftest run beside it"
          + ("; control: perftest run a second time, against its first run" if control else "")
          + (f"; --seed {a.seed}" if order == "shuffled" else "") + ")")
    print("\n".join(lines))
    if not a.out:
        return
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "comparison.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "comparison.md"), "w") as f:
        f.write(markdown_table(results))
    with open(os.path.join(a.out, "comparison.json"), "w") as f:
        json.dump({**records.header(), "started_utc": started_utc or records.utc_now(),
                   "rounds": a.rounds, "tests": list(a.tests),
                   "figures": [{"device": d, "figure": m, **{tool: values(v, tool) for tool in v},
                                **{f"{tool}_rounds": sorted(v[tool]) for tool in v}}
                               for (d, m), v in results.items()]}, f, indent=1)
    print(f"compare-perftest: wrote comparison.txt, comparison.md and comparison.json in {a.out}", file=sys.stderr)

