#!/usr/bin/python3
"""Unit test of tools/run-pair's option handling: the output files both
sides are given carry each side's role, so one never overwrites the other."""
from tool_test_helpers import check, finish, load_tool

run_pair = load_tool("run_pair")

check(run_pair.with_role("out/r.json", "server") == "out/r.server.json", "an extension stays last")
check(run_pair.with_role("samples", "client") == "samples.client", "no extension: the role is one")
check(run_pair.with_role("-", "client") == "-", "stdout stays stdout")
check(run_pair.with_role(".hidden", "server") == ".hidden.server", "a dot file is a name, not an extension")
options = ["-n", "5000", "--json", "r.json", "--csv=r.csv", "--dump-samples", "s.txt", "-s", "64"]
check(run_pair.for_side(options, "server") ==
      ["-n", "5000", "--json", "r.server.json", "--csv=r.server.csv", "--dump-samples", "s.server.txt", "-s", "64"],
      f"server's options: {run_pair.for_side(options, 'server')}")
check(run_pair.for_side(options, "client")[3] == "r.client.json", "the client's file is its own")
check(run_pair.for_side(["--json"], "server") == ["--json"], "a dangling option is left for the binary to refuse")
check(run_pair.for_side(["--out_json_file=r.json"], "client") == ["--out_json_file=r.client.json"],
      "perftest's --out_json_file too")
check(run_pair.for_side(["--out_json"], "server") == ["--out_json", "--out_json_file=perftest_out.server.json"],
      "perftest's --out_json alone: each side its own perftest_out file")
check(run_pair.for_side(["--out_json", "--out_json_file", "x.json"], "server") ==
      ["--out_json", "--out_json_file", "x.server.json"], "--out_json beside a named file adds none")
finish()
