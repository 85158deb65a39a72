#!/usr/bin/python3
"""Unit test of the options the study tools share (common_options.py):
-d and --devices are one option, as in the pair binaries, in every study."""
import argparse

from tool_test_helpers import check, finish, load_tool

common_options = load_tool("common_options")

for one in (False, True):
    p = argparse.ArgumentParser()
    common_options.add_devices(p, "x", one=one)
    check(p.parse_args(["-d", "rxe0"]).devices == [("rxe0", None)], f"-d DEV (one={one})")
    check(p.parse_args(["--devices", "siw0:10.0.3.15"]).devices == [("siw0", "10.0.3.15")],
          f"--devices DEV:ADDR (one={one})")
p = argparse.ArgumentParser()
common_options.add_devices(p, "x")
check(p.parse_args(["-d", "rxe0,siw0:10.0.3.15"]).devices == [("rxe0", None), ("siw0", "10.0.3.15")],
      "-d takes the list as --devices does")
p = argparse.ArgumentParser()
common_options.add_run_length(p, "5000")
check(common_options.run_length_args(p.parse_args([]), 5000) == ["-n", "5000"], "the tool's own count by default")
check(common_options.run_length_args(p.parse_args(["-n", "300"]), p.parse_args(["-n", "300"]).iters) == ["-n", "300"],
      "-n N, as the binaries")
check(common_options.run_length_args(p.parse_args(["-D", "4"]), 5000) == ["-D", "4"], "-D S, as the binaries")
for wrong in (["-n", "0"], ["-n", "x"], ["-n", "5", "-D", "2"]):
    try:
        p.parse_args(wrong)
        check(False, f"{wrong} refused")
    except SystemExit as e:
        check(e.code == 2, f"{wrong} is a usage error (exit 2)")
shootout = load_tool("shootout")
check(shootout.with_iterations({"lat_iters": 5, "bw_bytes": 1 << 20}, 300)["bw_iters"] == 300 and
      shootout.bw_iterations(shootout.with_iterations({"bw_bytes": 1 << 20}, 300), 65536) == 300,
      "the shootout's -n sets every run's count")
check(shootout.bw_iterations({"bw_bytes": 1 << 20}, 65536) == 16, "without -n, the plan's bytes decide")
check(common_options.time_left(0, 10, 0.2) == "0 s in", "before a step ends: the time so far alone")
check(common_options.time_left(3, 10, 30) == "30 s in, about 70 s left", "then the time left at the pace so far")
check(common_options.time_left(2, 40, 200) == "3 min in, about 63 min left", "minutes past 90 s")
check(common_options.time_left(10, 10, 400) == "7 min in", "at the end: the time it took")
for tool in ("shootout", "compare_perftest", "affinity_study"):
    check("add_devices" in open(load_tool(tool).__file__).read(), f"{tool} takes its devices through add_devices")
finish()
