#!/usr/bin/python3
"""Unit test of tools/compare-perftest's arithmetic, without any device:
which rounds count as ours ahead (lower latency and wall time, higher
bandwidth and message rate), that a round where one tool gave no figure
pairs with nothing, and that the derived post-list row, the printed and
Markdown tables and the JSON file carry those counts."""
import argparse
import contextlib
import io
import json
import os
import tempfile

from tool_test_helpers import check, finish, load_tool

cp = load_tool("compare-perftest")


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

# What a run measures: --ops and --kinds choose the steps.
plan_args = argparse.Namespace(ops="send", kinds="lat", lat_sizes=[4096], size=65536, sweep_iters=200)
check(cp.plan(plan_args) == [("send", "lat", 4096, [])], "--kinds lat: latency steps only, no sweep")
plan_args.ops, plan_args.kinds = "write,read", "lat,bw"
steps = cp.plan(plan_args)
check(("read", "bw", 64, ["-t", "128", "-l", "16"]) not in steps and ("write", "bw", 64, ["-t", "128", "-l", "16"]) in steps,
      "post lists for write, not for read")
check(steps[-1] == ("write", "bw", None, ["-a", "-n", "200"]), "the write sweep comes last")
plan_args.kinds = "bw"
check(all(kind == "bw" for _, kind, _, _ in cp.plan(plan_args)), "--kinds bw: no latency steps")

# The whole report, as main() gives it after the rounds.
with tempfile.TemporaryDirectory() as tmp:
    args = argparse.Namespace(rounds=2, lat_iters=5000, bw_iters=5000, ours_args="",
                              markdown=os.path.join(tmp, "t.md"), json=os.path.join(tmp, "t.json"))
    printed = io.StringIO()
    results = {("siw0", "send_lat 64B p99"): {"ours": {0: 10.0, 2: 30.0}, "perftest": {0: 12.0, 1: 20.0}}}
    with contextlib.redirect_stdout(printed):
        cp.report(args, results)
    row = next((line for line in printed.getvalue().splitlines() if line.startswith("siw0")), "")
    check(row.split()[-2:] == ["1.250", "1/1"], "the printed row has the ratio and the rounds ahead: " + row)
    check("| 20 | 16 | 1.25 | 1/1 |" in open(args.markdown).read(), "the Markdown file too")
    saved = json.load(open(args.json))[0]
    check(saved["ours"] == [10.0, 30.0] and saved["ours_rounds"] == [0, 2] and saved["perftest_rounds"] == [0, 1],
          "the JSON keeps each figure's rounds: " + json.dumps(saved))

finish()
