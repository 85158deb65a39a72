"""gdr-affinity-study - what buffer placement and CPU affinity cost on one NIC:
write and read bandwidth and write latency for every placement of the two
buffers (H->H, H->D, D->H, D->D; H host memory, D a GPU's memory), each with
the benchmark threads pinned to the NIC's NUMA node (--numa auto) and left
to the scheduler (--numa off), labelled with each GPU's PCIe relationship to
the NIC (PIX, PXB, PHB, NODE, SYS, from rdma_topo --json). Every GPU row is
measured with PCIe relaxed ordering on and off (--relaxed-ordering, both
sides): with the GPU-NIC relationship, the first two knobs to try when
device-to-host and host-to-device differ on one box.

Usage: tools/gdr-affinity-study [--devices DEV[:ADDR]] [--gpus 0,1] [--out DIR]
                                [--quick] [--bw-size BYTES] [-n N | -D S] [--no-lab]
                                [--tests write_bw,read_bw,write_lat] [--standin]
                                [--repeats N]

Each cell is one pair run measuring its size --repeats times over one
connection (the binaries' --repeat; 3 by default): the tables and the plot
give the median and the min-max range, and where --numa auto and off are
within noise of each other (their ranges overlap) the table says so, so
that no single run reads as a finding. With --repeats 1 a cell has no range
and the table says "1 run: no range".

"A->B" names where the data starts and where it lands: for writes the
client's buffer is A and the server's B; for reads the server's is A and the
client's B; write latency ping-pongs, with the client's buffer A. D is GPU N
as rdma_topo numbers them (PCI order), passed as --mem cuda:K where K counts
NVIDIA GPUs in PCI order (CUDA_DEVICE_ORDER=PCI_BUS_ID is set for the runs).
GPU rows on a machine without GPU say "no GPU"; host rows are measured anyway.
In the soft-RDMA lab (or with --standin) the GPU rows run on the test
stand-in CUDA driver instead, labelled so: host memory the CPU cannot touch
once registered, which exercises the whole GPU path but measures no GPU.
Write latency on GPU memory uses --write-with-imm (its target cannot be
polled by the CPU). Runs that a binary refuses (--mem cuda:K before CUDA
support is built) are reported with the binary's message, never silently
dropped.

Writes DIR/affinity.md (tables), DIR/affinity.json (every figure and its
context) and DIR/affinity.png (default DIR: ./gdr-affinity-study-YYYYmmdd-HHMMSS,
a new folder in the current one). With
no RDMA device here it measures inside tools/rdma-lab on rxe0 and renders on
this machine. Figures in the lab are emulated: compare rows, not machines.
Env: RDMABENCH_BUILD (default: build/ in the repository).
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

from . import common_options, lab, pair, paths, records, spread, version

PROG = "gdr-affinity-study"
PLACEMENTS = ["H->H", "H->D", "D->H", "D->D"]
NUMA_MODES = ["auto", "off"]
RELAXED_ORDERING = ["on", "off"]  # GPU rows are measured with each
# The stand-in GPU (tests/gpu_standin, the CUDA one): one device at PCI 0000:10:00.0.
STANDIN_GPU = {"index": 0, "pci_address": "0000:10:00.0", "vendor": "NVIDIA", "numa_node": None,
               "standin": True}
# name: (binary, figure key in our JSON Lines, label, unit, True when the
# client's buffer holds the source)
TESTS = {
    "write_bw": ("rdma_write_bw", ("bandwidth", "average_MBps"), "write BW", "MB/s", True),
    "read_bw": ("rdma_read_bw", ("bandwidth", "average_MBps"), "read BW", "MB/s", False),
    "write_lat": ("rdma_write_lat", ("latency", "median_us"), "write lat median", "usec", True),
}


def die(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def binaries():
    """{name: path} of rdma_topo and the benchmarks, built if need be."""
    try:
        return paths.binaries(["rdma_topo"] + sorted({t[0] for t in TESTS.values()}),
                              log=lambda m: print(f"{PROG}: {m}", file=sys.stderr, flush=True))
    except paths.MissingBinary as e:
        die(str(e))


def topology(bins):
    """rdma_topo --json of this machine: the only source of NIC and GPU facts."""
    return json.loads(subprocess.run([bins["rdma_topo"], "--json"], check=True, capture_output=True,
                                     text=True).stdout)


def nic_address(nic, given):
    """The IPv4 address clients connect to: --address, the lab's, or the netdev's."""
    if given:
        return given
    for dev_var, ip_var in (("RXE_DEV", "RXE_IP"), ("SIW_DEV", "SIW_IP")):
        if os.environ.get(dev_var) == nic["name"] and os.environ.get(ip_var):
            return os.environ[ip_var]
    if nic["netdev"]:
        out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", nic["netdev"]],
                             capture_output=True, text=True).stdout.split()
        if "inet" in out:
            return out[out.index("inet") + 1].split("/")[0]
    die(f"no IPv4 address found for {nic['name']} (netdev '{nic['netdev'] or 'unknown'}'): "
        f"give it as --devices {nic['name']}:ADDR")


def first_error(text, fallback):
    """A binary's error line (the first that says error:), else its first line."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    return ([x for x in lines if "error:" in x] or lines or [fallback])[0]


def run_pair(server_cmd, client_cmd, timeout):
    """Our server, then our client; returns None or the reason the pair failed."""
    env = dict(os.environ, CUDA_DEVICE_ORDER="PCI_BUS_ID")
    try:
        result = pair.run_pair(server_cmd, client_cmd, timeout=timeout, env=env)
    except pair.PairError as e:  # it exited before listening: its error line says why
        return "server: " + first_error(e.server_log or str(e), "exited")
    if result.client_status != 0:
        return "client: " + first_error(result.client_err, "failed")
    if result.server_status != 0:
        return "server: " + first_error(result.server_log, "failed")
    return None


class Study:
    def __init__(self, args, nic, address, bins):
        self.args, self.nic, self.address, self.bins = args, nic, address, bins
        self.port = 20000 + 2 * random.randrange(10000)

    def measure(self, test, client_mem, server_mem, numa, relaxed):
        """One server/client pair measuring --repeats times; the client's JSON
        Lines records (one per repeat), or {'error': ...}."""
        binary, _, _, _, _ = TESTS[test]
        self.port += 2
        common = [self.bins[binary], "-d", self.nic["name"], "-p", str(self.port), "--numa", numa,
                  "--relaxed-ordering", relaxed]
        if test == "write_lat" and "cuda" in client_mem + server_mem:
            common.append("--write-with-imm")  # a GPU target cannot be polled by the CPU
        size = ["-s", str(self.args.lat_size if test == "write_lat" else self.args.bw_size)]
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            error = run_pair(common + ["--mem", server_mem],
                             common + ["--mem", client_mem] + size +
                             common_options.run_length_args(self.args, self.args.iters) +
                             ["--repeat", str(self.args.repeats), "--json", out.name, self.address],
                             timeout=self.args.timeout * self.args.repeats)
            if error:
                return {"error": error}
            records = [json.loads(line) for line in open(out.name) if line.strip()]
            if len(records) != self.args.repeats:
                return {"error": f"client: {len(records)} records for --repeat {self.args.repeats}"}
            return records

    def row(self, placement, gpu, cuda_index, relaxed):
        source, destination = placement.split("->")
        mem = {"H": "host", "D": f"cuda:{cuda_index}"}
        results = {}
        for test, (_, (block, key), _, unit, client_is_source) in TESTS.items():
            if test not in self.args.tests:
                continue
            client_mem = mem[source if client_is_source else destination]
            server_mem = mem[destination if client_is_source else source]
            for numa in NUMA_MODES:
                records = self.measure(test, client_mem, server_mem, numa, relaxed)
                if "error" in records:
                    results.setdefault(test, {})[numa] = {"error": records["error"]}
                    continue
                context = records[0]["context"]
                cell = spread.summarize([r[block][key] for r in records])
                results.setdefault(test, {})[numa] = {
                    # "value" is the median of the repeats (the one figure
                    # of earlier results); "spread" has the range.
                    "figure": f"{block}.{key}", "value": cell["median"], "spread": cell, "unit": unit,
                    "run_id": records[0]["run_id"],
                    "client_memory": client_mem, "server_memory": server_mem,
                    "pinned_cpus": context["numa"]["pinned_cpus"],
                    "cpu_placement": context["numa"]["placement"],
                    "device_numa_node": context["numa"]["device_node"],
                    "relaxed_ordering": context["memory"].get("relaxed_ordering"),
                }
            self.done += 1
            left = common_options.time_left(self.done, self.total, time.monotonic() - self.started)
            print(f"gdr-affinity-study: [{self.done}/{self.total}, {left}] {placement} "
                  f"{gpu_label(gpu)} relaxed ordering {relaxed} {test} done", file=sys.stderr, flush=True)
        return results


def gpu_label(gpu):
    if gpu is None:
        return "host only"
    if gpu.get("standin"):
        return "stand-in GPU (host memory, no GPU)"
    return f"GPU{gpu['index']} {gpu['pci_address']}"


def plan(topo, nic, wanted, standin):
    """Rows to measure: H->H once, then every GPU placement per chosen GPU,
    with relaxed ordering on and off (the stand-in's one GPU when `standin`)."""
    rows = [{"placement": "H->H", "gpu": None, "relationship": None, "relaxed_ordering": "on",
             "status": "measure"}]
    gpus = [g for g in topo["gpus"] if wanted is None or g["index"] in wanted]
    if wanted is not None and len(gpus) != len(wanted):
        die(f"--gpus {','.join(map(str, sorted(wanted)))}: this machine has GPUs "
            f"{[g['index'] for g in topo['gpus']] or 'none'} (rdma_topo)")
    nvidia = [g["index"] for g in topo["gpus"] if g["vendor"] == "NVIDIA"]
    for placement in PLACEMENTS[1:]:
        if standin:
            rows += [{"placement": placement, "gpu": STANDIN_GPU, "relationship": "stand-in", "cuda_index": 0,
                      "relaxed_ordering": ro, "status": "measure"} for ro in RELAXED_ORDERING]
            continue
        if not gpus:
            rows.append({"placement": placement, "gpu": None, "relationship": None, "status": "no GPU"})
        for g in gpus:
            pair = next(m for m in topo["matrix"] if m["gpu"] == g["index"] and m["nic"] == nic["name"])
            cuda = nvidia.index(g["index"]) if g["index"] in nvidia else None
            for ro in RELAXED_ORDERING:
                rows.append({"placement": placement, "gpu": g, "relationship": pair["relationship"],
                             "cuda_index": cuda, "relaxed_ordering": ro,
                             "status": "measure" if cuda is not None
                             else f"{g['vendor']} GPU: --mem takes CUDA GPUs only"})
    return rows


def use_standin(a, topo):
    """--standin, or the lab with no GPU: the test stand-in driver for GPU rows."""
    if not (a.standin or (os.environ.get("RDMABENCH_LAB") and not topo["gpus"])):
        return False
    library = os.path.join(paths.build_dir(), "tests", "libcuda-standin.so")
    if not os.path.exists(library):
        if a.standin:
            die(f"--standin: {library} is not built (the CUDA Toolkit is needed to build it)")
        return False
    # Preloaded too, so that its memory leaves the CPU's reach once registered.
    os.environ.update(RDMABENCH_CUDA_DRIVER=library, LD_PRELOAD=library, CUDA_STANDIN_CPU_ACCESS="none",
                      CUDA_STANDIN_DEVICES="1")
    # In a sanitizer build its runtime must come first, and a preload is before it.
    os.environ["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
    return True


def measure_all(a, bins):
    topo = topology(bins)
    if not topo["rdma_devices"]:
        die("no RDMA device here (rdma_topo lists none); the lab runs this on rxe0 unless --no-lab is given")
    names = [d["name"] for d in topo["rdma_devices"]]
    given, address = a.devices[0] if a.devices else (None, None)
    name = given or (os.environ["RXE_DEV"] if os.environ.get("RXE_DEV") in names else names[0])
    nic = next((d for d in topo["rdma_devices"] if d["name"] == name), None)
    if nic is None:
        die(f"--devices {given}: no such RDMA device; this machine has {', '.join(names)}")
    study = Study(a, nic, nic_address(nic, address), bins)
    standin = use_standin(a, topo)
    rows = plan(topo, nic, a.gpus, standin)
    # Progress: cells done of all, and the time left at this pace.
    study.done, study.started = 0, time.monotonic()
    study.total = sum(r["status"] == "measure" for r in rows) * len(a.tests)
    for r in rows:
        if r["status"] == "measure":
            r["results"] = study.row(r["placement"], r["gpu"], r.get("cuda_index"), r["relaxed_ordering"])
            r["status"] = "measured"
    return {**records.header(), "nic": nic, "address": study.address, "topology": topo, "rows": rows,
            "settings": {"bw_size": a.bw_size, "lat_size": a.lat_size, "iters": a.iters, "repeats": a.repeats,
                         "duration_s": a.duration, "quick": a.quick,
                         "tests": [t for t in TESTS if t in a.tests], "standin": standin,
                         "lab": bool(os.environ.get("RDMABENCH_LAB"))}}


def cell_spread(r):
    """A result's median and range ({'runs': 1, ...} for one from before --repeats)."""
    return r.get("spread") or spread.summarize([r["value"]])


def cell(row, test, numa):
    if row["status"] != "measured":
        return row["status"]
    r = row["results"][test][numa]
    return spread.cell_text(cell_spread(r)) if "value" in r else "failed: " + r["error"].replace("|", "/")


def numa_verdict(row, test):
    """--numa auto against off in one row: within noise, or which is better."""
    if row["status"] != "measured":
        return "-"
    auto, off = (row["results"][test][n] for n in NUMA_MODES)
    if "value" not in auto or "value" not in off:
        return "-"
    return spread.compare(cell_spread(auto), cell_spread(off), "auto", "off",
                          higher_is_better=TESTS[test][3] != "usec")


def direction_table(study, tests):
    """D->H against H->D for each GPU and relaxed ordering, per --numa: the
    question this study answers most, with differences inside the noise
    marked as such."""
    measured = {(r["placement"], r["gpu"]["index"] if r["gpu"] else None, r.get("relaxed_ordering")): r
                for r in study["rows"] if r["status"] == "measured"}
    lines = []
    for (placement, gpu, relaxed), to_host in measured.items():
        to_device = measured.get(("H->D", gpu, relaxed))
        if placement != "D->H" or to_device is None:
            continue
        if not lines:
            lines = ["", "D->H against H->D (" + spread.RULE + "):", "",
                     "| GPU | relaxed ordering | " + " | ".join(f"{TESTS[t][2]} numa {n}" for t in tests
                                                             for n in NUMA_MODES) + " |",
                     "|" + "---|" * (2 + len(tests) * len(NUMA_MODES))]
        verdicts = []
        for t in tests:
            for n in NUMA_MODES:
                a, b = to_host["results"][t][n], to_device["results"][t][n]
                verdicts.append("-" if "value" not in a or "value" not in b else
                                spread.compare(cell_spread(a), cell_spread(b), "D->H", "H->D",
                                               higher_is_better=TESTS[t][3] != "usec"))
        lines.append(f"| GPU{gpu} | {relaxed} | " + " | ".join(verdicts) + " |")
    return lines


def markdown(study):
    nic, s = study["nic"], study["settings"]
    node = "unknown" if nic["numa_node"] is None else nic["numa_node"]
    pinned = next((r["results"]["write_bw"]["auto"].get("cpu_placement") for r in study["rows"]
                   if r["status"] == "measured"), "not measured")
    lines = [f"# GPUDirect placement and CPU affinity on {nic['name']}", "",
             f"- NIC: {nic['name']} ({'virtual, netdev ' + (nic['netdev'] or '?') if nic['virtual'] else nic['pci_address']}),"
             f" NUMA node {node}; clients connect to {study['address']}",
             f"- --numa auto pinned to: {pinned}",
             f"- bandwidth {s['bw_size']} B, latency {s['lat_size']} B, "
             f"{str(s['duration_s']) + ' s' if s.get('duration_s') else str(s['iters']) + ' iterations'} per run"
             f"{' (--quick)' if s['quick'] else ''}; host {study['host']}, {study['started_utc']}"
             f"{'; soft-RDMA lab (emulated: compare rows only)' if s['lab'] else ''}",
             "- A->B: data from A to B (write: client A, server B; read: server A, client B); H host, D GPU", ""]
    tests = s.get("tests", list(TESTS))
    if s.get("standin"):
        lines += ["- GPU rows: the test stand-in CUDA driver (host memory the CPU cannot touch once registered): "
                  "the GPU path is exercised, no GPU is measured", ""]
    repeats = s.get("repeats", 1)
    lines += [f"- each cell: the median of {repeats} repeats over one connection (--repeat {repeats}), "
              f"with the min-max range in parentheses; auto vs off says {spread.RULE}"
              if repeats > 1 else f"- each cell: one run ({spread.NO_RANGE}); --repeats 3 or more gives a "
              "range and says which differences are within noise", ""]
    header = ["placement", "GPU", "GPU-NIC", "relaxed ordering"]
    for t in tests:
        header += [f"{TESTS[t][2]} [{TESTS[t][3]}] numa {n}" for n in NUMA_MODES] + [f"{TESTS[t][2]}: auto vs off"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in study["rows"]:
        gpu = "-" if r["placement"] == "H->H" else ("no GPU" if r["gpu"] is None else gpu_label(r["gpu"]))
        cells = []
        for t in tests:
            cells += [cell(r, t, n) for n in NUMA_MODES] + [numa_verdict(r, t)]
        lines.append("| " + " | ".join([r["placement"], gpu, r["relationship"] or "-", r.get("relaxed_ordering") or "-"] +
                                       cells) + " |")
    lines += direction_table(study, tests)
    legend = study["topology"]["legend"]
    lines += ["", "GPU-NIC: " + "; ".join(f"{k} {legend[k]}" for k in ("PIX", "PXB", "PHB", "NODE", "SYS")), ""]
    return "\n".join(lines)


def plot(study, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = study["rows"]
    tests = study["settings"].get("tests", list(TESTS))
    labels = [bar_label(r) for r in rows]
    repeats = study["settings"].get("repeats", 1)
    # Width by bar count, one panel a row: each group of bars gets room for
    # its label, which is short lines rotated a little.
    width = max(6.0, 0.9 * len(rows) + 1.5)
    fig, axes = plt.subplots(len(tests), 1, figsize=(width, 3.8 * len(tests) + 0.6), squeeze=False)
    for ax, test in zip(axes[:, 0], tests):
        _, _, label, unit, _ = TESTS[test]
        for k, numa in enumerate(NUMA_MODES):
            xs = [i + (k - 0.5) * 0.38 for i in range(len(rows))]
            cells = [cell_spread(r["results"][test][numa])
                     if r["status"] == "measured" and "value" in r["results"][test][numa] else None for r in rows]
            values = [0 if c is None else c["median"] for c in cells]
            ax.bar(xs, values, width=0.38, label=f"--numa {numa}",
                   yerr=spread.error_bars(cells) if repeats > 1 else None, capsize=3)
        for i, r in enumerate(rows):
            if r["status"] != "measured":
                ax.text(i, 0, r["status"], rotation=90, ha="center", va="bottom", fontsize=8)
            elif repeats > 1 and numa_verdict(r, test) == "within noise":
                ax.text(i, 0, "within\nnoise", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(rows)), labels, fontsize=8, rotation=30, ha="right", rotation_mode="anchor")
        ax.set_title(label + (f": median of {repeats}, bars min-max" if repeats > 1 else ": 1 run, no range"))
        ax.set_ylabel(unit)
        ax.legend(fontsize=8)
    fig.suptitle(f"{study['nic']['name']}: placement and CPU affinity"
                 + (" (soft-RDMA lab, emulated)" if study["settings"]["lab"] else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def bar_label(row):
    """Short lines for one group of bars: 'D->H', 'GPU0 stand-in', 'RO on'."""
    if row["gpu"] is None:
        return row["placement"]
    return f"{row['placement']}\nGPU{row['gpu']['index']} {row['relationship'] or ''}\nRO {row.get('relaxed_ordering')}"


def render(study, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "affinity.json"), "w") as f:
        json.dump(study, f, indent=1)
    with open(os.path.join(out, "affinity.md"), "w") as f:
        f.write(markdown(study))
    plot(study, os.path.join(out, "affinity.png"))
    print(markdown(study))
    print(f"gdr-affinity-study: wrote {out}/affinity.md, affinity.json, affinity.png", file=sys.stderr)


def run_in_lab(a):
    """No device here: measure in the lab guest, render here (matplotlib under TCG is slow)."""
    raw = os.path.join(a.out, "measurements.json")
    status = lab.rerun_self(PROG, "no RDMA device here; measuring on rxe0",
                            ["--no-lab", "--measure-only", raw] + sys.argv[1:] + ["--out", a.out], dirs=[a.out],
                            limit=1800)
    if status != 0:
        return status
    with open(raw) as f:
        render(json.load(f), a.out)
    return 0


def main():
    p = argparse.ArgumentParser(prog=PROG, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    version.add_argument(p)
    common_options.add_devices(p, "the lab's rxe0, else the first", one=True)
    p.add_argument("--gpus", type=lambda t: {int(x) for x in t.split(",")}, help="GPU indices (rdma_topo's; default all)")
    common_options.add_out(p, PROG)
    p.add_argument("--quick", action="store_true", help="200 iterations per run, for a smoke test")
    common_options.add_run_length(p, "5000; 200 with --quick")
    p.add_argument("--bw-size", type=int, default=65536, help="bandwidth message size in bytes")
    p.add_argument("--lat-size", type=int, default=8, help="latency message size in bytes")
    p.add_argument("--timeout", type=int, default=300, help="seconds one client run may take, per repeat")
    p.add_argument("--repeats", type=common_options.positive_int, default=3,
                   help="measurements of each cell, over one connection (the binaries' --repeat; default 3): "
                        "the report gives the median and min-max range, and marks differences within noise")
    p.add_argument("--no-lab", action="store_true", help="never use tools/rdma-lab; fail without a device")
    common_options.add_tests(p, list(TESTS))
    p.add_argument("--standin", action="store_true",
                   help="GPU rows on the test stand-in CUDA driver (no GPU; automatic in the lab)")
    p.add_argument("--measure-only", metavar="FILE", help=argparse.SUPPRESS)  # the lab's half of a lab run
    a = p.parse_args()
    a.iters = a.iters or (200 if a.quick else 5000)
    if a.repeats > 1000:
        p.error(f"--repeats {a.repeats}: expected 1 to 1000 (the binaries' --repeat)")
    if a.devices and len(a.devices) != 1:
        p.error(f"--devices: one device for the study, not {len(a.devices)}")
    a.out = os.path.realpath(common_options.out_folder(a, PROG))
    bins = binaries()
    try:
        folder = paths.OutputFolder(a.out)
    except OSError as e:
        die(f"--out {a.out}: cannot create it ({e.strerror})")
    with folder:  # a run that wrote nothing leaves no folder behind
        if not a.no_lab and not topology(bins)["rdma_devices"]:
            return run_in_lab(a)
        study = measure_all(a, bins)
        if a.measure_only:
            with open(a.measure_only, "w") as f:
                json.dump(study, f, indent=1)
        else:
            render(study, a.out)
    return 0
