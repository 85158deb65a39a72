"""run-pair - run a benchmark server and its client on this machine, against
one RDMA device (the client connects to ADDRESS, an IP of that device's
network interface), and print the client's report. Both must exit 0.

Usage: tools/run-pair BINARY DEVICE ADDRESS [OPTIONS...]
       tools/run-pair --version  (the version and the rdma-core it was built against)
  e.g. tools/run-pair rdma_write_lat rxe0 10.0.2.15 -n 5000

OPTIONS go to both sides (use the same on both, as with perftest).
BINARY is built first when it is missing and a source tree is present.
Env: RDMABENCH_BUILD (default: build/ in the repository)."""
import sys

from . import pair, paths

PROG = "run-pair"


def run(binary, device, address, options):
    """One pair of `binary` on `device`; prints the client's output; its status."""
    exe = paths.binary(binary, log=lambda m: print(f"{PROG}: {m}", file=sys.stderr, flush=True))
    server, client = pair.same_options_pair(exe, device, pair.Ports().next(), options, address)
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
