"""run-pair - run a benchmark server and its client on this machine, against
one RDMA device (the client connects to ADDRESS, an IP of that device's
network interface), and print the client's report. Both must exit 0.

Usage: tools/run-pair BINARY DEVICE ADDRESS [OPTIONS...]
       tools/run-pair --version  (the version and the rdma-core it was built against)
  e.g. tools/run-pair rdma_write_lat rxe0 10.0.2.15 -n 5000

OPTIONS go to both sides (use the same on both, as with perftest). An
output file (--json, --csv, --dump-samples FILE) is given to each side
with its role in the name: --json r.json writes r.server.json and
r.client.json, so that neither side's output overwrites the other's.
BINARY is built first when it is missing and a source tree is present.
Env: RDMABENCH_BUILD (default: build/ in the repository)."""
import os
import sys

from . import pair, paths

PROG = "run-pair"


OUTPUT_OPTIONS = ("--json", "--csv", "--dump-samples", "--out_json_file")
# perftest's --out_json alone writes perftest_out.json: each side gets its own.
PERFTEST_DEFAULT_JSON = "perftest_out.json"


def with_role(path, role):
    """r.json -> r.server.json; a name without an extension gets .server."""
    if path == "-":
        return path
    folder, name = os.path.split(path)
    stem, dot, extension = name.rpartition(".")
    named = f"{stem}.{role}.{extension}" if dot and stem else f"{name}.{role}"
    return os.path.join(folder, named)


def for_side(options, role):
    """`options` with each output file named for `role` ("server", "client")."""
    out, i = [], 0
    while i < len(options):
        word = options[i]
        name, eq, value = word.partition("=")
        if name in OUTPUT_OPTIONS and eq:
            out.append(f"{name}={with_role(value, role)}")
        elif word in OUTPUT_OPTIONS and i + 1 < len(options):
            out += [word, with_role(options[i + 1], role)]
            i += 1
        elif word == "--out_json" and not any(o.startswith("--out_json_file") for o in options):
            out += [word, f"--out_json_file={with_role(PERFTEST_DEFAULT_JSON, role)}"]
        else:
            out.append(word)
        i += 1
    return out


def run(binary, device, address, options):
    """One pair of `binary` on `device`; prints the client's output; its status."""
    exe = paths.binary(binary, log=lambda m: print(f"{PROG}: {m}", file=sys.stderr, flush=True))
    port = pair.Ports().next()
    server, _ = pair.same_options_pair(exe, device, port, for_side(options, "server"), address)
    _, client = pair.same_options_pair(exe, device, port, for_side(options, "client"), address)
    try:
        result = pair.run_pair(server, client)
    except pair.PairError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(result.client_out)
    sys.stderr.write(result.client_err)
    sys.stdout.flush()
    if result.server_status != 0:
        print(f"{PROG}: the server failed (status {result.server_status}):\n{result.server_log}", file=sys.stderr)
        return 1
    return result.client_status


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    asked = argv[:1] in (["-h"], ["--help"])
    if asked or len(argv) < 3:
        print(__doc__, file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    try:
        return run(argv[0], argv[1], argv[2], argv[3:])
    except paths.MissingBinary as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
