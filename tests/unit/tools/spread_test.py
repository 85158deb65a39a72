#!/usr/bin/python3
"""Unit test of the studies' repeats (tools/rdmabench_tools/spread.py and
their use in gdr-affinity-study's table): the median and min-max range of a
cell, "within noise" where two ranges overlap, "1 run: no range" where a
cell has one run, and a direction only where the ranges are apart."""
from tool_test_helpers import check, finish, load_tool

spread = load_tool("spread")
study = load_tool("affinity_study")

s = spread.summarize([85.2, 52.6, 70.0])
check((s["median"], s["min"], s["max"], s["runs"]) == (70.0, 52.6, 85.2, 3), f"median and range of 3: {s}")
check(spread.summarize([1, 2, 3, 4])["median"] == 2.5, "an even count's median is the middle two's mean")
check(spread.cell_text(s) == "70.00 (52.60-85.20)", f"a cell reads median (min-max): {spread.cell_text(s)}")
check(spread.cell_text(spread.summarize([52.6])) == "52.60", "one run: the value alone")
try:
    spread.summarize([])
    check(False, "no values is refused")
except ValueError:
    check(True, "no values is refused")

low, high = spread.summarize([50, 52, 55]), spread.summarize([80, 85, 86])
touching = spread.summarize([55, 60, 61])
check(spread.compare(low, touching, "auto", "off") == "within noise", "ranges that share an end are within noise")
check(spread.compare(high, low, "auto", "off") == "auto better by 63%",
      f"apart: the better by its median's gain: {spread.compare(high, low, 'auto', 'off')}")
check(spread.compare(low, high, "auto", "off") == "off better by 63%", "...either way round")
check(spread.compare(low, high, "auto", "off", higher_is_better=False) == "auto better by 39%",
      f"latency: lower is better: {spread.compare(low, high, 'auto', 'off', higher_is_better=False)}")
one = spread.summarize([52.6])
check(spread.compare(one, spread.summarize([85.2]), "auto", "off") == "1 run: no range",
      "one run on each side names no winner, however far apart")
check(spread.compare(one, high, "auto", "off") == "1 run: no range", "...nor with one run on one side")
check(spread.error_bars([low, None]) == [[2.0, 0.0], [3.0, 0.0]], "error bars: below and above the median")

# A row of transports (the shootout's noise column): best against runner-up.
check(spread.best_of([("RoCEv2", high), ("iWARP", low)]) == "RoCEv2 ahead, ranges apart",
      "bandwidth: the highest median ahead when apart")
check(spread.best_of([("RoCEv2", high), ("iWARP", low)], lower_is_better=True) == "iWARP ahead, ranges apart",
      "latency: the lowest median ahead")
check(spread.best_of([("RoCEv2", low), ("iWARP", touching), ("IB", None)]) == "within noise",
      "best and runner-up overlapping: within noise; a missing cell is left out")
check(spread.best_of([("RoCEv2", low), ("iWARP", touching), ("x", high)]) == "x ahead, ranges apart",
      "only the runner-up counts against the best")
check(spread.best_of([("RoCEv2", one), ("iWARP", high)]) == "1 run: no range", "a one-run cell: no verdict")
check(spread.best_of([("RoCEv2", high), ("iWARP", None)]) == "-", "one cell: nothing to compare")

# The study's table: the lab's 'D->H RO on' case, auto 52.6 vs off 85.2 in
# one run each, and the same medians whose repeats overlap.
def row(placement, auto_values, off_values, relaxed="on"):
    results = {"write_bw": {n: {"value": spread.summarize(v)["median"], "spread": spread.summarize(v)}
                            for n, v in (("auto", auto_values), ("off", off_values))}}
    return {"placement": placement, "gpu": study.STANDIN_GPU, "relationship": "stand-in",
            "relaxed_ordering": relaxed, "status": "measured", "results": results}


def fake_study(rows, repeats):
    return {"nic": {"name": "rxe0", "numa_node": 0, "virtual": True, "netdev": "eth0"}, "address": "10.0.2.15",
            "host": "guest", "started_utc": "2026-12-06T00:00:00Z",
            "topology": {"legend": {k: k.lower() for k in ("PIX", "PXB", "PHB", "NODE", "SYS")}},
            "settings": {"bw_size": 65536, "lat_size": 8, "iters": 100, "duration_s": None, "quick": True,
                         "tests": ["write_bw"], "standin": True, "lab": True, "repeats": repeats},
            "rows": rows}


noisy = fake_study([row("H->D", [60, 80, 90], [70, 85, 88]), row("D->H", [52.6, 70, 90], [60, 85.2, 87])], 3)
text = study.markdown(noisy)
check("| D->H | stand-in GPU (host memory, no GPU) | stand-in | on | 70.00 (52.60-90.00) | 85.20 (60.00-87.00) "
      "| within noise |" in text, "overlapping repeats: the row says within noise")
check("median of 3 repeats" in text, "the table says how many repeats each cell is")
check("| GPU0 | on | within noise | within noise |" in text, "D->H against H->D: within noise on both --numa")

apart = study.markdown(fake_study([row("D->H", [50, 52, 53], [84, 85, 86])], 3))
check("| off better by 63% |" in apart, "apart ranges name the better mode")
single = study.markdown(fake_study([row("D->H", [52.6], [85.2])], 1))
check("| 52.60 | 85.20 | 1 run: no range |" in single, "one run: no range, no winner")
check("one run (1 run: no range)" in single, "...and the header says so")

# Results from before --repeats (a value, no spread) still render.
old = fake_study([row("D->H", [52.6], [85.2])], 1)
for n in ("auto", "off"):
    del old["rows"][0]["results"]["write_bw"][n]["spread"]
check("| 52.60 | 85.20 | 1 run: no range |" in study.markdown(old), "old results without a spread render")
check(study.bar_label(noisy["rows"][1]) == "D->H\nGPU0 stand-in\nRO on", "bar labels are short lines")
finish()
