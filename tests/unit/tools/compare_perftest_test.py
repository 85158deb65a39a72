#!/usr/bin/python3
"""Unit test of tools/compare-perftest's arithmetic, without any device:
which rounds count as ours ahead (lower latency and wall time, higher
bandwidth and message rate), that a round where one tool gave no figure
pairs with nothing, and that the derived post-list row, the printed and
Markdown tables and the JSON file carry those counts."""
import argparse
import collections
import contextlib
import io
import json
import re
import os
import random
import tempfile

from tool_test_helpers import check, finish, load_tool

cp = load_tool("compare_perftest")


lat = {"ours": {0: 10.0, 1: 12.0, 2: 9.0}, "perftest": {0: 11.0, 1: 11.0, 2: 9.5}}
check(cp.rounds_ahead("write_lat 64B p99", lat) == (2, 3), "latency: lower is ahead (2 of 3)")
check(cp.rounds_ahead("write_lat 64B median", lat) == (2, 3), "a median too")
check(cp.rounds_ahead("write_bw -a -n 200 wall s", lat) == (2, 3), "wall time: lower is ahead")
bw = {"ours": {0: 90.0, 1: 80.0, 2: 85.0}, "perftest": {0: 85.0, 1: 85.0, 2: 85.0}}
check(cp.rounds_ahead("write_bw 65536B MB/s", bw) == (1, 3), "bandwidth: higher is ahead, a tie is not")
gap = {"ours": {0: 1.0, 1: 1.0, 3: 1.0}, "perftest": {1: 2.0, 2: 2.0, 3: 0.5}}
check(cp.rounds_ahead("send_bw 64B Mpps", gap) == (1, 2), "only rounds where both gave a figure pair")
check(cp.rounds_ahead("send_bw 64B Mpps", {"ours": {0: 1.0}}) == (0, 0), "no perftest figure: nothing paired")
check(cp.values(gap, "perftest") == [2.0, 2.0, 0.5], "values come in round order")

results = {
    ("rxe0", "write_bw 64B Mpps"): {"ours": {0: 0.04, 1: 0.05}, "perftest": {0: 0.03, 1: 0.06}},
    ("rxe0", "write_bw 64B -l 16 Mpps"): {"ours": {0: 0.07, 1: 0.07}, "perftest": {0: 0.06, 1: 0.08}},
}
cp.add_post_list_gain(results)
derived = results.get(("rxe0", "write_bw 64B Mpps: ours -l 16 / perftest without -l"))
check(derived is not None, "the post-list row is derived")
if derived:
    check(cp.rounds_ahead("write_bw 64B Mpps: ours -l 16 / perftest without -l", derived) == (2, 2),
          "it pairs ours -l 16 with perftest without -l, round by round")
table = cp.markdown_table(results)
check("rxe0 ahead" in table.splitlines()[0], "the Markdown table has an ahead column")
check("| 0.045 | 0.045 | 1.00 | 1/2 |" in table, "and a row says 1 of 2 rounds: " + table.splitlines()[2])

# What a run measures: --tests chooses the steps.
plan_args = argparse.Namespace(tests=["send_lat"], lat_sizes=[4096], size=65536, sweep_iters=200)
check(cp.plan(plan_args) == [("send", "lat", 4096, [])], "--tests send_lat: latency steps only, no sweep")
plan_args.tests = ["write_lat", "write_bw", "read_lat", "read_bw"]
steps = cp.plan(plan_args)
check(("read", "bw", 64, ["-t", "128", "-l", "16"]) not in steps and ("write", "bw", 64, ["-t", "128", "-l", "16"]) in steps,
      "post lists for write, not for read")
check(steps[-1] == ("write", "bw", None, ["-a", "-n", "200"]), "the write sweep comes last")
plan_args.tests = ["write_bw", "read_bw"]
check(all(kind == "bw" for _, kind, _, _ in cp.plan(plan_args)), "--tests write_bw,read_bw: no latency steps")

# --control: perftest's second run against its first, beside ours.
ctl = {"ours": {0: 12.0, 1: 12.0, 2: 12.0}, "perftest": {0: 10.0, 1: 10.0, 2: 10.0},
       "control": {0: 9.0, 1: 11.0, 2: 10.5}}
check(cp.rounds_ahead("send_lat 4096B median", ctl, "control") == (1, 3), "the control's rounds ahead")
check(cp.ratio_and_ahead("send_lat 4096B median", ctl, "control") == ("1.05", "1/3"), "and its ratio")
check(cp.ratio_and_ahead("send_lat 4096B median", ctl) == ("1.20", "0/3"), "ours beside it")
with_control = cp.markdown_table({("siw0", "send_lat 4096B median"): ctl})
check(with_control.splitlines()[0].count("control") == 2 and "| 1.20 | 0/3 | 1.05 | 1/3 |" in with_control,
      "the Markdown table gains the control's columns: " + with_control)
check("control" not in cp.markdown_table({("siw0", "x median"): lat}), "and only with --control")

# --shuffle: a round runs every step, in an order that changes from round to round.
class FakeRunner(cp.Runner):
    def __init__(self, args):
        super().__init__(args, 30000)
        self.log = []

    def ours(self, binary, dev, ip, extra):
        self.log.append(("ours", binary, extra[1]))
        return {"latency": {"median_us": 1.0, "p99_us": 2.0}}

    def theirs(self, tool, dev, ip, is_iwarp, extra):
        self.log.append(("perftest", tool, extra[1]))
        return [extra[1], 100, 1, 3, 1.1, 1.2, 0.1, 2.2, 2.5]


shuffle_args = argparse.Namespace(tests=["write_lat", "send_lat"], lat_sizes=[2, 64, 4096], size=65536,
                                  sweep_iters=0, lat_iters=100, bw_iters=100, ours_args="", control=True)
runner = FakeRunner(shuffle_args)
rng = random.Random(1)
figs = runner.round("siw0", "10.0.3.15", True, rng)
first = list(runner.log)
counts = collections.Counter(first)
check(len(counts) == 12 and all(counts[run] == (2 if run[0] == "perftest" else 1) for run in counts),
      "every step runs ours once and perftest twice: " + str(counts))
check(len(figs["control"]) == 12 and figs["control"] == figs["perftest"], "the control run keeps its own figures")
runner.log.clear()
runner.round("siw0", "10.0.3.15", True, rng)
check(sorted(runner.log) == sorted(first) and runner.log != first, "the next round, another order")
runner.log.clear()
shuffle_args.control = False
runner.round("siw0", "10.0.3.15", True, None)
check([t for t, _, _ in runner.log] == ["ours", "perftest"] * 6, "without --shuffle, the fixed order and no control")

# The report keeps the plan's order of figures whatever order the rounds ran in.
order_args = argparse.Namespace(tests=["write_lat", "write_bw", "send_lat", "send_bw"], lat_sizes=[64], size=65536, sweep_iters=200)
names = cp.figure_names(order_args)
check(names[:2] == ["write_lat 64B median", "write_lat 64B p99"] and names[-1] == "write_bw -a -n 200 wall s"
      and "send_bw 64B -l 16 Mpps" in names and "write_bw 65536B MB/s" in names,
      "figure_names follows the plan: " + str(names))
shuffled = {("siw0", "send_lat 64B median"): {}, ("rxe0", "write_bw -a -n 200 wall s"): {},
            ("rxe0", "write_lat 64B p99"): {}, ("siw0", "write_lat 64B median"): {}}
check(list(cp.in_plan_order(shuffled, order_args)) ==
      [("siw0", "write_lat 64B median"), ("siw0", "send_lat 64B median"),
       ("rxe0", "write_lat 64B p99"), ("rxe0", "write_bw -a -n 200 wall s")],
      "in_plan_order sorts figures by the plan within each device")

# The whole report, as main() gives it after the rounds.
with tempfile.TemporaryDirectory() as tmp:
    args = argparse.Namespace(rounds=2, lat_iters=5000, bw_iters=5000, ours_args="", tests=["send_lat"],
                              out=os.path.join(tmp, "out"))
    printed = io.StringIO()
    results = {("siw0", "send_lat 64B p99"): {"ours": {0: 10.0, 2: 30.0}, "perftest": {0: 12.0, 1: 20.0}}}
    with contextlib.redirect_stdout(printed):
        cp.report(args, results)
    row = next((line for line in printed.getvalue().splitlines() if line.startswith("siw0")), "")
    check(row.split()[-2:] == ["1.250", "1/1"], "the printed row has the ratio and the rounds ahead: " + row)
    check("| 20 | 16 | 1.25 | 1/1 |" in open(os.path.join(args.out, "comparison.md")).read(), "the Markdown file too")
    check(row in open(os.path.join(args.out, "comparison.txt")).read(), "and the table as printed")
    document = json.load(open(os.path.join(args.out, "comparison.json")))
    check(document["schema_version"] == 2 and document["started_utc"].endswith("Z") and document["host"]
          and re.fullmatch(r"[0-9a-f]{14}", document.get("run_id", "")),
          "the JSON leads with schema_version, run_id, started_utc and host")
    saved = document["figures"][0]
    check(saved["ours"] == [10.0, 30.0] and saved["ours_rounds"] == [0, 2] and saved["perftest_rounds"] == [0, 1],
          "the JSON keeps each figure's rounds: " + json.dumps(saved))

finish()
