#!/usr/bin/env python3
"""Checks an rdma_sweep output folder (tests/lab/rdma_sweep_test.sh).

complete DIR RANKS TESTS: every ordered pair of RANKS ranks is in
  results.jsonl once per test with a figure, and every output file exists.
pattern DIR RANKS PATTERN: the pattern's pairs (root 2 for incast), each
  with a figure.
partial DIR RANKS TESTS: results.jsonl holds only well-formed records of
  those tests, report.md exists and says the sweep is incomplete.
"""
import itertools
import json
import os
import sys


def fail(message):
    sys.exit(f"FAIL: {message}")


def records(folder):
    path = os.path.join(folder, "results.jsonl")
    if not os.path.exists(path):
        fail(f"no {path}")
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def figure(record):
    figures = record.get("figures", {})
    return figures.get("bw_average_Gbps") if record["test"].endswith("_bw") else figures.get("lat_p99_us")


def check_complete(folder, ranks, tests):
    seen = {}
    for r in records(folder):
        if r.get("pass", "sweep") != "sweep":
            continue
        key = (r["test"], r["client"]["rank"], r["server"]["rank"])
        # A pair that failed may be measured again (--resume); a measured
        # one never is.
        if key in seen and figure(seen[key]):
            fail(f"{key} was measured twice in results.jsonl")
        seen[key] = r
    expected = {(t, c, s) for t in tests for c, s in itertools.permutations(range(ranks), 2)}
    missing, extra = sorted(expected - set(seen)), sorted(set(seen) - expected)
    if missing or extra:
        fail(f"results.jsonl: missing {missing}, unexpected {extra}")
    bad = {k: r.get("error") for k, r in seen.items() if not (figure(r) or 0) > 0}
    if bad:
        fail(f"pairs without a figure: {bad}")
    for name in ["report.md", "report.html", "failures.txt"]:
        if not os.path.exists(os.path.join(folder, name)):
            fail(f"no {name}")
    csvs = [f for f in os.listdir(folder) if f.endswith(".csv")]
    for test in tests:
        if not any(f.startswith(test + "-") for f in csvs):
            fail(f"no CSV of {test} (have {csvs})")
    pngs = [f for f in os.listdir(folder) if f.endswith(".png")]
    if os.environ.get("EXPECT_PNGS") and len(pngs) < len(csvs):
        fail(f"{len(csvs)} CSVs but only {len(pngs)} PNG heatmaps")
    print(f"ok: {len(seen)} ordered pairs of {ranks} ranks, each with a figure; {len(csvs)} CSVs, {len(pngs)} PNGs")
    with open(os.path.join(folder, "report.md")) as f:
        print(f.read())


def check_partial(folder, ranks, tests):
    got = records(folder)
    for r in got:
        if r["test"] not in tests or not (0 <= r["client"]["rank"] < ranks):
            fail(f"unexpected record {r}")
    report = os.path.join(folder, "report.md")
    if not os.path.exists(report):
        fail("no report.md after the sweep lost a rank")
    with open(report) as f:
        text = f.read()
    if "ncomplete" not in text:
        fail("report.md does not say the sweep is incomplete")
    print(f"ok: partial sweep with {len(got)} records; report.md says it is incomplete")


def check_pattern(folder, ranks, pattern):
    got = [r for r in records(folder) if r.get("pass", "sweep") == "sweep"]
    pairs = [(r["client"]["rank"], r["server"]["rank"]) for r in got]
    bad = [p for p, r in zip(pairs, got) if not (figure(r) or 0) > 0]
    if bad:
        fail(f"{pattern}: pairs without a figure: {bad}")
    others = [r for r in range(ranks) if r != 2]
    expected = {
        "ring": {(r, (r + 1) % ranks) for r in range(ranks)} | {((r + 1) % ranks, r) for r in range(ranks)},
        "incast": {(r, 2) for r in others},
        "all-to-all": set(itertools.permutations(range(ranks), 2)),
    }.get(pattern)
    if expected is not None and set(pairs) != expected:
        fail(f"{pattern}: pairs {sorted(pairs)}, expected {sorted(expected)}")
    if pattern == "bisection" and (len(pairs) != ranks or any(c == s for c, s in pairs)):
        fail(f"bisection: {len(pairs)} pairs {pairs}, expected {ranks // 2} per split x 2 splits")
    rounds = {r["round"] for r in got}
    print(f"ok: {pattern}: {len(pairs)} pairs in {len(rounds)} rounds, each with a figure")


def main():
    mode, folder, ranks, tests = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].split(",")
    if mode == "pattern":
        check_pattern(folder, ranks, sys.argv[4])
        return
    {"complete": check_complete, "partial": check_partial}[mode](folder, ranks, tests)


if __name__ == "__main__":
    main()
