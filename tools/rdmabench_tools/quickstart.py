"""quickstart - from a fresh clone: install what is missing (Debian
packages), build every binary the user tools need, and run an rdma_write_bw
and an rdma_write_lat server/client pair. On a machine with an active RDMA
device the pairs run on it (loopback through the device); otherwise inside
the soft-RDMA lab (tools/rdma-lab), on rxe0 (RoCEv2) and siw0 (iWARP).
Afterwards tools/transport-shootout, tools/gdr-affinity-study and the rest
find everything they need already built.

Usage: tools/quickstart [--lab]     (--lab: use the lab even if a device exists)"""
import os
import subprocess
import sys

from . import devices, lab, paths, run_pair

PROG = "quickstart"
# What the user tools run: the benchmarks, rdma_topo (gdr-affinity-study),
# rdma_devices and tcp_baseline (transport-shootout).
TARGETS = [f"rdma_{op}_{kind}" for op in ("write", "read", "send", "atomic") for kind in ("bw", "lat")]
TARGETS += ["rdma_topo", "rdma_devices", "tcp_baseline"]


def log(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def pairs(device, address):
    """The two pairs on one device; 0 when both passed."""
    return (run_pair.run("rdma_write_bw", device, address, ["-n", "5000", "--report-gbits"]) or
            run_pair.run("rdma_write_lat", device, address, ["-n", "5000"]))


def in_lab():
    """The guest's half: both pairs on rxe0, then on siw0."""
    for title, dev, ip in (("rxe0 (RoCEv2)", "RXE_DEV", "RXE_IP"), ("siw0 (iWARP)", "SIW_DEV", "SIW_IP")):
        print(f"=== {title} ===", flush=True)
        status = pairs(os.environ[dev], os.environ[ip])
        if status:
            return status
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if argv not in ([], ["--lab"]):
        print(__doc__, file=sys.stderr)
        return 2
    if lab.inside():
        return in_lab()
    root = paths.source_root()
    subprocess.run([paths.tool("install-deps")], check=True)
    log(f"building in {paths.build_dir()}")
    try:
        subprocess.run(["cmake", "-S", root, "-B", paths.build_dir(), "-DCMAKE_BUILD_TYPE=RelWithDebInfo"],
                       check=True, stdout=subprocess.DEVNULL)
        paths.build(TARGETS, log)
    except (subprocess.CalledProcessError, paths.MissingBinary) as e:
        log(f"error: {e}")
        return 1
    found = None if argv == ["--lab"] else devices.first_with_address()
    if found:
        log(f"running on {found[0]} ({found[1]})")
        return pairs(*found)
    return lab.rerun_self(PROG, "no active RDMA device here (first run downloads ~220 MB)", args=[])
