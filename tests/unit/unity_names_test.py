#!/usr/bin/python3
"""unity_names_test - every source of a target compiled as one translation
unit, syntax only, so that two files' file-local names (a constant, a helper
in an anonymous namespace) never collide in some unity batch.

The unity build compiles a target's sources in batches of eight; which files
share a batch shifts whenever a file is added, removed or left out of one
build (the arm64 lane leaves out what it cannot link). A collision therefore
surfaces in an unrelated change, on another lane. Checking the whole target
as one batch (what -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 would build) covers every
batching at once, for the price of a syntax-only pass.

Usage: tests/unit/unity_names_test.py BUILD_DIR [-j JOBS]   (.ci/background-builds runs it)
Needs BUILD_DIR configured with the unity build (the default) and
CMAKE_EXPORT_COMPILE_COMMANDS (the top-level CMakeLists.txt sets it).
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile

UNITY_SOURCE = re.compile(r"/Unity/unity_(\d+)_cxx\.cxx$")


def targets_with_batches(build_dir):
    """{unity dir: (compile command words, [batch files in order])}, for
    targets whose sources span more than one batch."""
    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)
    batches = collections.defaultdict(list)
    commands = {}
    for entry in entries:
        match = UNITY_SOURCE.search(entry["file"])
        if not match:
            continue
        unity_dir = os.path.dirname(entry["file"])
        batches[unity_dir].append((int(match.group(1)), entry["file"]))
        words = entry.get("arguments") or shlex.split(entry["command"])
        commands[unity_dir] = (entry["directory"], words)
    return {d: (commands[d], [f for _, f in sorted(b)]) for d, b in batches.items() if len(b) > 1}


def syntax_only(words, source):
    """The compile command for SOURCE, without its output or input file."""
    out, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in ("-o", "-c", "-MF", "-MT", "-MQ"):
            skip = True
        elif word in ("-MD", "-MMD") or word.endswith(".cxx"):
            continue
        else:
            out.append(word)
    return out + ["-fsyntax-only", source]


def check(unity_dir, command, batch_files):
    directory, words = command
    with tempfile.NamedTemporaryFile("w", suffix=".cxx", delete=False) as whole:
        for batch in batch_files:
            whole.write(f'#include "{batch}"\n')
    try:
        result = subprocess.run(syntax_only(words, whole.name), cwd=directory,
                                capture_output=True, text=True)
    finally:
        os.unlink(whole.name)
    target = os.path.basename(os.path.dirname(unity_dir)).removesuffix(".dir")
    return target, len(batch_files), result.returncode, result.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()
    targets = targets_with_batches(args.build_dir)
    if not targets:
        print(f"unity_names_test: no target in {args.build_dir} spans two unity batches "
              "(configured without the unity build, or without compile_commands.json?)",
              file=sys.stderr)
        return 2
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for target, n, rc, stderr in pool.map(lambda item: check(item[0], *item[1]), targets.items()):
            if rc == 0:
                print(f"unity_names_test: {target}: its {n} batches compile as one")
            else:
                failed += 1
                print(f"unity_names_test: {target}: its {n} batches do not compile as one; "
                      "rename the file-local names that collide (or share one definition):\n"
                      + stderr, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
