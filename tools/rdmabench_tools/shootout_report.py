"""The report of tools/transport-shootout: report.md, a self-contained
report.html and PNG plots, drawn only from DIR/results.json and the raw
sample files it names. Every number shown is one of results.json's."""
import base64
import html
import json
import os
import sys

import matplotlib
import matplotlib.patches

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend must be chosen first)

from . import spread  # noqa: E402

COLORS = {"InfiniBand": "#2ca02c", "RoCEv2": "#1f77b4", "RoCEv1": "#17becf", "iWARP": "#ff7f0e"}
TCP_STYLES = [("#555555", "--"), ("#999999", ":"), ("#333333", "-.")]
STAT_NAMES = {"median_us": "median", "p99_us": "P99", "p99_9_us": "P99.9"}


def fmt(v):
    """The one way a number is written in the report (tests re-format with it)."""
    if v is None:
        return "n/a"
    a = abs(v)
    return f"{v:.0f}" if a >= 100 else f"{v:.1f}" if a >= 10 else f"{v:.2f}" if a >= 0.1 else f"{v:.3g}"


def size_name(n):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def column_title(c):
    if c["kind"] == "absent":
        return c["transport"]
    if c["kind"] == "tcp":
        return f"TCP (via {c['via']})"
    if c["transport"] == "unknown":
        return f"{c['id']} (not found)" if not c.get("port_info") else f"{c['id']} (failed)"
    return f"{c['transport']} ({c['id']})"


def column_color(c, tcp_index):
    if c["kind"] == "tcp":
        return TCP_STYLES[tcp_index % len(TCP_STYLES)]
    return COLORS.get(c["transport"], "#d62728"), "-"


class Results:
    def __init__(self, out):
        self.out = out
        with open(os.path.join(out, "results.json")) as f:
            self.r = json.load(f)
        self.columns = self.r["columns"]

    def find(self, column, test, **match):
        for m in self.r["measurements"]:
            if m["column"] == column and m["test"] == test and all(m.get(k) == v for k, v in match.items()):
                return m
        return None

    def plotted(self):
        """Columns with measurements, and each one's colour and line style."""
        out, tcp = [], 0
        for c in self.columns:
            if any(m["column"] == c["id"] for m in self.r["measurements"]):
                out.append((c, *column_color(c, tcp)))
                tcp += c["kind"] == "tcp"
        return out


# --- the comparison table --------------------------------------------------------

def missing_cell(c, why_not_run="not run"):
    if c["kind"] == "absent":
        return "not present on this machine"
    if c["status"] == "failed":
        return "failed"
    return why_not_run


def figure_cell(m, key):
    """A figure of a measurement: the median of its repeats with their
    min-max range, or the one value where it has no range."""
    s = (m.get("spread") or {}).get(key)
    if s and s["runs"] > 1:
        return f"{fmt(s['median'])} ({fmt(s['min'])}-{fmt(s['max'])})"
    return fmt(m["figures"][key])


def spread_of(m, key):
    """The figure's spread over its repeats; None where it has none."""
    return None if m is None else (m.get("spread") or {}).get(key)


def noise_verdict(res, spreads, lower_is_better):
    """Whether a row's transports differ by more than their noise (spread.best_of)."""
    return spread.best_of([(column_title(c), s) for c, s in spreads], lower_is_better)


def table_rows(res):
    """[(metric, unit, {column id: cell text}, noise verdict)], each number from results.json."""
    plan, rows = res.r["plan"], []

    def row(metric, unit, cell, spread_for=None):
        cells = {c["id"]: cell(c) for c in res.columns}
        if any(v not in ("not run", "not present on this machine", "failed", "n/a")
               for v in cells.values()):
            verdict = "-" if spread_for is None else noise_verdict(
                res, [(c, spread_for(c)) for c in res.columns if c["kind"] == "rdma"], unit == "usec")
            rows.append((metric, unit, cells, verdict))

    for op in plan["lat_ops"]:
        for size in plan["lat_sizes"]:
            for stat, name in STAT_NAMES.items():
                def cell(c, op=op, size=size, stat=stat):
                    if c["kind"] == "tcp":
                        if op != "send":
                            return "n/a"
                        m = res.find(c["id"], "pingpong_lat", bytes=size)
                    else:
                        m = res.find(c["id"], f"{op}_lat", bytes=size)
                    return figure_cell(m, stat) if m else missing_cell(c)
                row(f"{op} latency {size_name(size)}, {name}", "usec", cell,
                    lambda c, op=op, size=size, stat=stat: spread_of(res.find(c["id"], f"{op}_lat", bytes=size), stat))
    for size in plan["bw_sizes"]:
        def cell(c, size=size):
            m = (res.find(c["id"], "stream_bw", bytes=size, streams=1) if c["kind"] == "tcp"
                 else res.find(c["id"], "write_bw", bytes=size))
            return figure_cell(m, "average_MBps") if m else missing_cell(c)
        row(f"write bandwidth {size_name(size)}", "MB/s", cell,
            lambda c, size=size: spread_of(res.find(c["id"], "write_bw", bytes=size), "average_MBps"))
    for n in sorted({m["streams"] for m in res.r["measurements"] if "streams" in m}):
        def cell(c, n=n):
            m = res.find(c["id"], "stream_bw" if c["kind"] == "tcp" else "write_bw_streams",
                         bytes=plan["cpu_size"], streams=n)
            if not m:
                return missing_cell(c)
            return f"{fmt(m['figures']['mean_MBps'])} ± {fmt(m['figures']['stdev_MBps'])}"
        row(f"write bandwidth, {n} stream{'s' if n > 1 else ''} of {size_name(plan['cpu_size'])} "
            f"(mean ± stdev over intervals)", "MB/s", cell)
    add_load_rows(res, row)
    for side in ("client", "server"):
        def cell(c, side=side):
            m = (res.find(c["id"], "stream_bw", bytes=plan["cpu_size"], streams=1) if c["kind"] == "tcp"
                 else res.find(c["id"], "write_bw", bytes=plan["cpu_size"]))
            return figure_cell(m, f"cpu_{side}_s_per_GB") if m else missing_cell(c)
        row(f"CPU per GB, {side} ({size_name(plan['cpu_size'])} write bandwidth)", "CPU-s/GB", cell)
    return rows


def add_load_rows(res, row):
    """Write latency idle and under each N-stream load, then the loads' own
    bandwidth: the "P99 under 16 streams" rows (row() adds each)."""
    plan = res.r["plan"]
    loads = sorted({m["load_streams"] for m in res.r["measurements"] if m["test"] == "write_lat_load"})
    size = plan.get("load_lat_size")
    for n in loads:
        what = f"under {n}-stream load ({size_name(plan['cpu_size'])} writes)" if n else "idle"
        for stat, name in STAT_NAMES.items():
            def cell(c, n=n, stat=stat):
                if c["kind"] == "tcp":
                    return "n/a"
                m = res.find(c["id"], "write_lat_load", bytes=size, load_streams=n)
                return figure_cell(m, stat) if m else missing_cell(c)
            row(f"write latency {size_name(size)} {what}, {name}", "usec", cell,
                lambda c, n=n, stat=stat: spread_of(res.find(c["id"], "write_lat_load", bytes=size, load_streams=n), stat))
    for n in (n for n in loads if n):
        def cell(c, n=n):
            if c["kind"] == "tcp":
                return "n/a"
            m = res.find(c["id"], "write_lat_load", bytes=size, load_streams=n)
            if not m:
                return missing_cell(c)
            return f"{fmt(m['figures']['load_mean_Gbps'])} ± {fmt(m['figures']['load_stdev_Gbps'])}"
        row(f"the {n}-stream load's own bandwidth (mean ± stdev over intervals)", "Gb/s", cell)


# --- plots ---------------------------------------------------------------------

def new_axes(title, xlabel, ylabel):
    fig, ax = plt.subplots(figsize=(7.5, 4.2), dpi=110)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    return fig, ax


def save(fig, ax, res, name):
    if not ax.has_data():
        plt.close(fig)
        return None
    if not ax.get_legend():
        ax.legend(fontsize=8)
    if res.r["context"].get("lab"):
        fig.text(0.99, 0.01, "soft-RDMA lab (emulated)", ha="right", va="bottom", fontsize=7, color="#888")
    fig.tight_layout()
    fig.savefig(os.path.join(res.out, name))
    plt.close(fig)
    return name


def plot_series(res, name, title, ylabel, points, log_y=False):
    """One line per column; points(c) -> [(x, y)]."""
    fig, ax = new_axes(title, "message size (bytes)", ylabel)
    ax.set_xscale("log", base=2)
    if log_y:  # latencies of the transports differ by decades
        ax.set_yscale("log")
    for c, color, style in res.plotted():
        xy = points(c)  # (x, y) or (x, y, spread over the repeats or None)
        if xy:
            xs, ys = [p[0] for p in xy], [p[1] for p in xy]
            cells = [p[2] if len(p) > 2 else None for p in xy]
            if any(s is not None and s["runs"] > 1 for s in cells):  # medians, bars min-max
                cells = [s if s is not None and s["runs"] > 1 else None for s in cells]
                ax.errorbar(xs, ys, yerr=spread.error_bars(cells), fmt=style, marker="o", color=color,
                            capsize=3, label=column_title(c))
            else:
                ax.plot(xs, ys, style, marker="o", color=color, label=column_title(c))
    return save(fig, ax, res, name)


def plot_latency(res):
    def points(c):
        test = "pingpong_lat" if c["kind"] == "tcp" else "write_lat"
        return sorted(((m["bytes"], m["figures"]["median_us"], spread_of(m, "median_us"))
                       for m in res.r["measurements"] if m["column"] == c["id"] and m["test"] == test),
                      key=lambda p: p[0])
    return plot_series(res, "latency_vs_size.png", "Median one-way latency (RDMA write; TCP ping-pong)"
                       + repeats_title(res),
                       "usec (log)", points, log_y=True)


def plot_bandwidth(res):
    def points(c):
        return sorted(((m["bytes"], m["figures"]["average_MBps"], spread_of(m, "average_MBps"))
                       for m in res.r["measurements"]
                       if m["column"] == c["id"] and (m["test"] == "write_bw" or
                                                      (m["test"] == "stream_bw" and m["streams"] == 1))),
                      key=lambda p: p[0])
    return plot_series(res, "bandwidth_vs_size.png", "Bandwidth, one stream (RDMA write; TCP stream)"
                       + repeats_title(res),
                       "MB/s (10^6 B/s)", points)


def read_samples(path):
    with open(path) as f:
        return sorted(float(l) for l in f if l.strip() and not l.startswith("#"))


def plot_cdf(res):
    size = min(res.r["plan"]["lat_sizes"])
    fig, ax = new_axes(f"Latency CDF, {size_name(size)} (every sample)", "one-way latency, usec (log)",
                       "fraction of samples")
    ax.set_xscale("log")
    for c, color, style in res.plotted():
        m = res.find(c["id"], "pingpong_lat" if c["kind"] == "tcp" else "write_lat", bytes=size)
        if m and os.path.exists(os.path.join(res.out, m["samples_file"])):
            xs = read_samples(os.path.join(res.out, m["samples_file"]))
            ax.plot(xs, [(i + 1) / len(xs) for i in range(len(xs))], style, color=color,
                    label=f"{column_title(c)}, n={len(xs)}")
    return save(fig, ax, res, "latency_cdf.png")


def plot_load_cdf(res):
    """Each RDMA column's write latency CDF idle (solid) and under each load."""
    size = res.r["plan"].get("load_lat_size")
    fig, ax = new_axes(f"Write latency CDF, {size_name(size) if size else ''}: idle vs under N-stream load",
                       "one-way latency, usec (log)", "fraction of samples")
    ax.set_xscale("log")
    styles = ["-", "--", ":", "-."]
    for c, color, _ in res.plotted():
        ms = sorted((m for m in res.r["measurements"] if m["column"] == c["id"] and m["test"] == "write_lat_load"),
                    key=lambda m: m["load_streams"])
        for i, m in enumerate(ms):
            path = os.path.join(res.out, m["samples_file"])
            if not os.path.exists(path):
                continue
            xs = read_samples(path)
            n = m["load_streams"]
            ax.plot(xs, [(k + 1) / len(xs) for k in range(len(xs))], styles[i % len(styles)], color=color,
                    label=f"{column_title(c)}, {f'{n} streams' if n else 'idle'}")
    return save(fig, ax, res, "latency_under_load_cdf.png")


def plot_bars(res, name, title, ylabel, groups, value):
    """Grouped bars: one group per column, one bar per entry of `groups`."""
    fig, ax = new_axes(title, "", ylabel)
    cols = [(c, color) for c, color, _ in res.plotted()]
    width = 0.8 / max(1, len(groups))
    for gi, (label, hatch) in enumerate(groups):
        for ci, (c, color) in enumerate(cols):
            v = value(c, label)
            if v is None:
                continue
            mean, err = v
            ax.bar(ci + gi * width, mean, width, yerr=err, color=color, hatch=hatch, edgecolor="black", capsize=3)
    # Colours are the columns'; the legend explains only the hatching.
    ax.legend(handles=[matplotlib.patches.Patch(facecolor="white", edgecolor="black", hatch=h, label=label)
                       for label, h in groups], fontsize=8)
    ax.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(cols))])
    ax.set_xticklabels([column_title(c) for c, _ in cols], fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)
    ax.grid(False, axis="x")
    return save(fig, ax, res, name)


def plot_cpu(res):
    size = res.r["plan"]["cpu_size"]

    def value(c, label):
        m = (res.find(c["id"], "stream_bw", bytes=size, streams=1) if c["kind"] == "tcp"
             else res.find(c["id"], "write_bw", bytes=size))
        v = m and m["figures"].get(f"cpu_{label}_s_per_GB")
        return (v, 0) if v is not None else None
    return plot_bars(res, "cpu_per_gb.png", f"CPU per GB moved ({size_name(size)} messages, process CPU)",
                     "CPU-seconds per 10^9 bytes", [("client", ""), ("server", "//")], value)


def plot_streams(res):
    size = res.r["plan"]["cpu_size"]
    ns = sorted({m["streams"] for m in res.r["measurements"] if "streams" in m})

    def value(c, label):
        m = res.find(c["id"], "stream_bw" if c["kind"] == "tcp" else "write_bw_streams", bytes=size,
                     streams=int(label.split()[0]))
        return (m["figures"]["mean_MBps"], m["figures"]["stdev_MBps"]) if m else None
    hatches = ["", "//", "xx", ".."]
    return plot_bars(res, "streams.png", f"Multi-stream bandwidth, {size_name(size)} (mean ± stdev over intervals)",
                     "MB/s", [(f"{n} stream{'s' if n > 1 else ''}", hatches[i % 4]) for i, n in enumerate(ns)], value)


# --- documents -----------------------------------------------------------------

def context_lines(res):
    ctx = res.r["context"]
    lines = [f"Where: {ctx['where']}", f"Placement: {ctx['placement']}",
             f"Host {ctx['host']}, kernel {ctx['kernel']}, rdma-core {ctx['rdma_core'] or 'unknown'}, "
             f"CPU {ctx['cpu_model']} x{ctx['cpus']}, clocksource {ctx['clocksource']}",
             f"rdmabench {ctx['rdmabench_commit'] or 'unknown commit'}; plan {res.r['mode']}, "
             f"{res.r['seconds']} s; multi-stream RDMA: {res.r['multi_stream_method']}"]
    for c in res.columns:
        if c["kind"] == "rdma" and c.get("port_info"):
            p, a = c["port_info"], c.get("attributes") or {}
            lines.append(f"{column_title(c)}: port {p['port']}, link layer {p['link_layer']}, "
                         f"active MTU {p['active_mtu_bytes']} B, GID {p['gid']['index']} type {p['gid']['type']} "
                         f"({p['gid']['reason']}), netdev {c.get('netdev')} MTU {c.get('netdev_mtu')}, "
                         f"address {c.get('address')}, fw {a.get('fw_ver') or '-'}, atomics {a.get('atomic_cap')}")
        elif c["kind"] == "tcp":
            lines.append(f"{column_title(c)}: tcp_baseline to {c['address']} (the address of "
                         f"{', '.join(c['beside'])}); route: {c['route']}")
    return lines


def repeats_title(res):
    n = res.r["plan"].get("cell_repeats", 1)
    return f"\nRDMA: median of {n} repeats, bars min-max" if n > 1 else ""


def repeats_line(res):
    """How many repeats each RDMA latency and bandwidth cell is, and the rule."""
    n = res.r["plan"].get("cell_repeats", 1)
    if n < 2:
        return (f"Each RDMA latency and bandwidth cell is one run ({spread.NO_RANGE}); --repeats 3 or "
                "more gives each a range and says which differences are within noise.")
    return (f"Each RDMA latency and bandwidth cell is the median of {n} repeats over one connection, "
            f"its min-max range in parentheses; the noise column compares each row's best transport with "
            f"the runner-up ({spread.RULE}).")


def write_markdown(res, rows, plots):
    cols = res.columns
    out = [f"# Transport shootout ({res.r['mode']}, {res.r['started_utc']})", ""]
    out += [f"- {l}" for l in context_lines(res)] + [""]
    if res.r["failures"]:
        out += ["**Failures:**", ""] + [f"- {f}" for f in res.r["failures"]] + [""]
    out += [repeats_line(res), ""]
    out += ["| metric | unit | " + " | ".join(column_title(c) for c in cols) + " | noise |",
            "|---|---|" + "---|" * (len(cols) + 1)]
    for metric, unit, cells, verdict in rows:
        out.append(f"| {metric} | {unit} | " + " | ".join(cells[c["id"]] for c in cols) + f" | {verdict} |")
    out += ["", "Latency is one-way (round trip / 2) except read (a full round trip); TCP's latency is a "
            "ping-pong, shown in the send rows (n/a: TCP has no one-sided operations). MB/s = 10^6 B/s. CPU is the benchmark process's own, "
            "on each side. Every figure is in results.json.", ""]
    out += [f"![{name}]({name})" for name in plots]
    with open(os.path.join(res.out, "report.md"), "w") as f:
        f.write("\n".join(out) + "\n")


def write_html(res, rows, plots):
    e = html.escape
    cols = res.columns
    css = ("body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;color:#222}"
           "table{border-collapse:collapse;font-size:14px}td,th{border:1px solid #ccc;padding:4px 8px}"
           "td.n{text-align:right;font-variant-numeric:tabular-nums}td.x{color:#999;font-style:italic}"
           "th{background:#f3f3f3}.fail{color:#b00}img{max-width:100%;margin:1em 0}.ctx{font-size:13px;color:#555}")
    body = [f"<h1>Transport shootout</h1><p>{e(res.r['mode'])} plan, {e(res.r['started_utc'])}</p>",
            "<ul class=ctx>" + "".join(f"<li>{e(l)}</li>" for l in context_lines(res)) + "</ul>"]
    if res.r["failures"]:
        body.append("<ul class=fail>" + "".join(f"<li>{e(f)}</li>" for f in res.r["failures"]) + "</ul>")
    body.append(f"<p>{e(repeats_line(res))}</p>")
    body.append("<table><tr><th>metric</th><th>unit</th>" +
                "".join(f"<th>{e(column_title(c))}</th>" for c in cols) + "<th>noise</th></tr>")
    for metric, unit, cells, verdict in rows:
        tds = "".join(f"<td class={'n' if cells[c['id']][:1].isdigit() else 'x'}>{e(cells[c['id']])}</td>"
                      for c in cols)
        body.append(f"<tr><td>{e(metric)}</td><td>{e(unit)}</td>{tds}<td>{e(verdict)}</td></tr>")
    body.append("</table><p class=ctx>Latency is one-way (round trip / 2) except read (a full round trip); "
                "TCP's latency is a ping-pong, shown in the send rows (n/a: TCP has no one-sided operations). MB/s = 10^6 B/s. Every figure is in "
                "<a href=\"results.json\">results.json</a>.</p>")
    for name in plots:
        with open(os.path.join(res.out, name), "rb") as f:
            data = base64.b64encode(f.read()).decode()
        body.append(f"<img alt=\"{e(name)}\" src=\"data:image/png;base64,{data}\">")
    with open(os.path.join(res.out, "report.html"), "w") as f:
        f.write(f"<!DOCTYPE html><html><head><meta charset=utf-8><title>Transport shootout</title>"
                f"<style>{css}</style></head><body>{''.join(body)}</body></html>\n")


def render(out):
    try:
        res = Results(out)
    except (OSError, ValueError) as e:
        print(f"transport-shootout: error: cannot read {out}/results.json: {e}", file=sys.stderr)
        return False
    rows = table_rows(res)
    plots = [p for p in (plot_latency(res), plot_bandwidth(res), plot_cdf(res), plot_load_cdf(res),
                                               plot_streams(res), plot_cpu(res)) if p]
    write_markdown(res, rows, plots)
    write_html(res, rows, plots)
    return True
