"""profile-pair - where a benchmark pair's time goes: runs a server and its
client (ours or perftest's) under a system-wide `perf record` of CPU-clock
samples, and prints the share of each process and kernel thread, then the
top symbols per CPU and process. Soft devices do much of their work in
kernel threads (siw_tx/N) and softirqs, so a per-process profile alone
would miss it.

Usage: tools/dev/profile-pair BINARY DEVICE ADDRESS [OPTIONS...]
       tools/dev/profile-pair --version  (the version and the rdma-core it was built against)
  BINARY   rdma_write_bw ... (ours, from the build) or ib_write_bw ...
           (perftest, from PATH; give it -R on iWARP and -x N on RoCE)
  e.g. tools/dev/profile-pair rdma_read_lat siw0 10.0.3.15 -s 2 -n 10000
       tools/dev/profile-pair ib_read_lat siw0 10.0.3.15 -R -s 2 -n 10000
Without RDMA devices here it runs itself inside tools/rdma-lab, whose
devices are rxe0 at 10.0.2.15 and siw0 at 10.0.3.15.

OPTIONS go to both sides. Env: RDMABENCH_BUILD (default: build/),
RDMABENCH_PROFILE_TOP (symbols shown, default 30),
RDMABENCH_PROFILE_FREQ (samples per second per CPU, default 4000)."""
import os
import shutil
import subprocess
import sys
import tempfile

from . import lab, pair, paths

PROG = "profile-pair"


def report(data, sort, lines):
    """The first `lines` rows of perf report sorted by `sort`."""
    text = subprocess.run(["perf", "report", "-i", data, "--stdio", "--sort", sort],
                          capture_output=True, text=True).stdout
    rows = [r for r in text.splitlines() if r.strip() and not r.startswith("#")]
    print("\n".join(rows[:lines]))


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    if lab.missing() and not lab.inside():
        return lab.rerun_self(PROG, "no RDMA devices here")
    if not shutil.which("perf"):
        sys.exit(f"{PROG}: perf is not installed (Debian: linux-perf)")
    binary, device, address, options = argv[0], argv[1], argv[2], argv[3:]
    perftest = binary.startswith("ib_")
    try:
        exe = shutil.which(binary) if perftest else paths.binary(binary)
    except paths.MissingBinary as e:
        sys.exit(f"{PROG}: {e}")
    if not exe:
        sys.exit(f"{PROG}: {binary} is not on PATH (Debian: perftest)")
    if os.geteuid() == 0:  # kernel symbols and other processes' samples need these
        for path, value in (("/proc/sys/kernel/perf_event_paranoid", "-1"), ("/proc/sys/kernel/kptr_restrict", "0")):
            with open(path, "w") as f:
                f.write(value)
    work = tempfile.mkdtemp(prefix="profile-pair-")
    try:
        data = os.path.join(work, "perf.data")
        server, client = pair.same_options_pair(exe, device, pair.Ports().next(), options, address)
        perf = ["perf", "record", "-q", "-a", "-e", "cpu-clock",
                "-F", os.environ.get("RDMABENCH_PROFILE_FREQ", "4000"), "-o", data, "--"]
        # perftest's server prints nothing until a client comes: wait for its port.
        result = pair.run_pair(server, perf + client, ready="listen" if perftest else "file")
        sys.stdout.write(result.client_out)
        sys.stderr.write(result.client_err)
        print("\n== CPU samples by process and kernel thread (swapper: idle)")
        report(data, "comm", 12)
        print("\n== top symbols by CPU and process ([k] kernel, [.] user space)")
        report(data, "cpu,comm,sym", int(os.environ.get("RDMABENCH_PROFILE_TOP", "30")))
        if not result.ok:
            print(f"{PROG}: {result.failure()}", file=sys.stderr)
            return 1
        return 0
    except pair.PairError as e:
        sys.exit(f"{PROG}: {e}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
