#!/usr/bin/python3
"""Lab test of tools/transport-shootout: one --quick run of the latency,
latency-under-load and TCP parts (the bandwidth parts are the same code path, and the lab batch has
a time budget) on rxe0, siw0 and a device that does not exist. It must write all three files for the two real
ones, name each column by the library's classification, take every table
number from results.json, reference only files that exist, and exit 1
naming the missing device. Exits 77 (skipped) without rxe0 and siw0."""
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.realpath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

RXE = os.environ.get("RXE_DEV", "rxe0")
SIW = os.environ.get("SIW_DEV", "siw0")
failures = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def numbers(value):
    """Every number anywhere in a JSON value."""
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from numbers(v)


class References(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        self.refs += [v for k, v in attrs if k in ("src", "href") and v]


def main():
    if not all(os.path.exists(f"/sys/class/infiniband/{d}") for d in (RXE, SIW)):
        print(f"SKIPPED: needs {RXE} and {SIW} (run inside tools/rdma-lab)")
        return 77
    out = tempfile.mkdtemp(prefix="shootout-test-")
    env = dict(os.environ)
    build = os.environ.get("RDMABENCH_BUILD")
    if build and os.access(build, os.W_OK):  # matplotlib's font cache, kept between boots
        env.setdefault("MPLCONFIGDIR", os.path.join(build, "mplconfig"))
    tool = subprocess.Popen([os.path.join(REPO, "tools", "transport-shootout"), "--quick", "--out", out,
                             "--devices", f"{RXE},{SIW},nosuch0", "--tests", "lat,load,tcp",
                             # one repeat: the CI's time (tests/unit/tools/spread_test.py checks the rest)
                             "--repeats", "1"], stderr=subprocess.PIPE, text=True, env=env)
    messages = []
    for line in tool.stderr:  # progress as it comes, for a reader of the test log
        sys.stderr.write(line)
        messages.append(line.strip())
    status = tool.wait()
    check(status == 1, f"exit status 1 with a device missing (got {status})")
    check("nosuch0" in messages[-1], "the last message names nosuch0")
    for name in ("results.json", "report.md", "report.html"):
        check(os.path.getsize(os.path.join(out, name)) > 0, f"{name} written")
    with open(os.path.join(out, "results.json")) as f:
        results = json.load(f)
    cols = {c["id"]: c for c in results["columns"]}
    check(cols[RXE]["transport"] == "RoCEv2" and cols[RXE]["status"] == "ok", f"{RXE} is RoCEv2 and ok")
    check(cols[SIW]["transport"] == "iWARP" and cols[SIW]["status"] == "ok", f"{SIW} is iWARP and ok")
    check(cols["nosuch0"]["status"] == "failed", "nosuch0 failed")
    check(cols["InfiniBand"]["status"] == "absent", "InfiniBand is an absent column")
    check(any(c["kind"] == "tcp" for c in cols.values()), "a TCP column")
    check(results["schema_version"] == 2 and results["started_utc"].endswith("Z") and results["host"]
          and re.fullmatch(r"[0-9a-f]{14}", results.get("run_id", "")),
          "results lead with schema_version, run_id, started_utc (ISO 8601 UTC) and host, as the pair JSON")
    for key in ("kernel", "rdma_core"):
        check(bool(results["context"].get(key)), f"context has {key}")
    check(all("gid" in cols[d]["port_info"] and cols[d]["port_info"]["active_mtu_bytes"] > 0 for d in (RXE, SIW)),
          "context has each device's GID type and MTU")

    md = open(os.path.join(out, "report.md")).read()
    table = [l for l in md.splitlines() if l.startswith("| ")]
    header = [h.strip() for h in table[0].strip("|").split("|")]
    check(f"RoCEv2 ({RXE})" in header and f"iWARP ({SIW})" in header and "InfiniBand" in header,
          f"table columns named by the classification: {header}")
    sys.path.insert(0, os.path.join(REPO, "tools"))
    from rdmabench_tools.shootout_report import fmt  # the report's own number format
    known = {fmt(v) for v in numbers(results)}
    check(header[-1] == "noise", f"the last column says which differences are within noise: {header}")
    # The noise column is words ("1 run: no range" here), the rest figures.
    cells = [c.strip() for row in table[2:] for c in row.strip("|").split("|")[2:-1]]
    check(all(row.strip("|").split("|")[-1].strip() in ("1 run: no range", "-") for row in table[2:]),
          "with --repeats 1 no row names a winner")
    shown = [t for c in cells for t in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?:e[-+]\d+)?(?![\w.])", c)
             if not c.startswith("n/a")]
    check(len(shown) > 10, f"the table shows numbers ({len(shown)})")
    stray = [t for t in shown if t not in known]
    check(not stray, f"every table number comes from results.json (stray: {stray[:5]})")
    check(any("not present on this machine" in c for c in cells), "InfiniBand cells say not present")
    # Latency under load: idle and loaded rows, and the load's own bandwidth on both devices.
    metrics = [row.strip("|").split("|")[0].strip() for row in table[2:]]
    n = results["plan"]["load_streams"][0]
    for what in ("idle, P99", f"under {n}-stream load (64 KiB writes), P99.9"):
        check(any(what in m for m in metrics), f"a latency row '{what}'")
    load = [m for m in results["measurements"] if m["test"] == "write_lat_load" and m["load_streams"] == n]
    check(sorted(m["column"] for m in load) == sorted([RXE, SIW]), f"a {n}-stream loaded run on both devices")
    check(all(m["figures"]["load_mean_Gbps"] > 0 and m["figures"]["load_intervals"] > 0 for m in load),
          "each load moved data in measured intervals")

    parser = References()
    parser.feed(open(os.path.join(out, "report.html")).read())
    files = [r for r in parser.refs if not r.startswith("data:")]
    check(all(os.path.exists(os.path.join(out, r)) for r in files), f"HTML references exist: {files}")
    check(sum(r.startswith("data:image/png") for r in parser.refs) >= 2, "HTML embeds the plots")
    pngs = re.findall(r"!\[[^]]*\]\(([^)]+)\)", md)
    check(len(pngs) >= 2 and all(os.path.exists(os.path.join(out, p)) for p in pngs), f"markdown plots exist: {pngs}")
    print(f"{len(failures)} failure(s); output in {out}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
