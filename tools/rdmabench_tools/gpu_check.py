"""gpu-check - on a machine with an NVIDIA or AMD GPU, check GPUDirect RDMA
memory in one go: build, allocate on the GPU through rdmabench's CUDA or
ROCm plug-in, export a dma-buf, validate patterns with device copies,
register the memory by dma-buf and by peer memory on the first RDMA device,
and, when that device has an IP address, run real pairs with GPU memory on
one side and --validate: large messages, and 2 B and 64 B ones with GPU
memory on the sending and on the receiving side (where a provider would copy
an inline send or a small receive with the CPU). Prints PASS/FAIL/SKIP per
check.

Usage: tools/gpu-check [--no-build] [--standin] [MEM...]
  MEM        the GPU memory to check: cuda:N (NVIDIA, through the CUDA
             driver) or rocm:N (AMD, through the HIP runtime); default
             cuda:0, or with --standin both cuda:0 and rocm:0
  --no-build use build/ as it is
  --standin  run against the test stand-ins of the CUDA driver and the HIP
             runtime (host memory, NOT a GPU, which the CPU cannot touch
             once registered, as a GPU's): checks this script and both
             plug-ins on any machine
  --version  print the version and the rdma-core it was built against
Exit: 0 all passed; 1 a check failed; 77 no CUDA driver, HIP runtime or GPU
here (for every MEM).
Env: RDMABENCH_BUILD (default build/), RDMABENCH_CUDA_DRIVER (the CUDA
driver), RDMABENCH_HIP_RUNTIME (the HIP runtime)."""
import os
import re
import subprocess
import sys

from . import devices, pair, paths

SKIP = 77

# Each plug-in's stand-in (tests/gpu_standin), the variable that loads it in
# its vendor's library's place, and the prefix of its knobs.
STANDINS = {"cuda": ("libcuda-standin.so", "RDMABENCH_CUDA_DRIVER", "CUDA_STANDIN_"),
            "rocm": ("libhip-standin.so", "RDMABENCH_HIP_RUNTIME", "HIP_STANDIN_")}
# The vendor's library, for the hint when ldconfig knows none.
LIBRARIES = {"cuda": ("libcuda.so.1", "NVIDIA driver"), "rocm": ("libamdhip64.so", "ROCm (HIP runtime)")}


def kind_of(mem):
    """"cuda" or "rocm", from cuda:N or rocm:N."""
    return mem.split(":", 1)[0]


def build(build_dir):
    """Configures and builds everything; returns (status, whether the build has the CUDA plug-in)."""
    print(f"INFO building into {build_dir}", flush=True)
    log_path = build_dir + ".gpu-check.log"
    with open(log_path, "w") as log:
        ok = subprocess.call(["cmake", "-S", paths.source_root(), "-B", build_dir, "-DRDMABENCH_LAB_TESTS=OFF"],
                             stdout=log, stderr=subprocess.STDOUT) == 0
        ok = ok and subprocess.call(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2)],
                                    stdout=log, stderr=subprocess.STDOUT) == 0
    if not ok:
        print(f"FAIL build (see {log_path})")
        return 1, False
    with open(log_path) as f:
        return 0, "CUDA memory plug-in: on" in f.read()


def standin_env(build_dir, mem):
    """The environment that puts `mem`'s stand-in in its vendor's library's
    place. Preloaded as well, so that it can take the CPU's access to its
    "device memory" away once registered; one stand-in per process, since
    the first preloaded would see every registration."""
    library, loader, knobs = STANDINS[kind_of(mem)]
    standin = os.path.join(build_dir, "tests", library)
    env = dict(os.environ, LD_PRELOAD=standin, **{loader: standin, knobs + "CPU_ACCESS": "none"})
    # In a sanitizer build its runtime must come first, and a preload is before it.
    env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "verify_asan_link_order=0"]))
    return env


def gpu_pair(env, binary, device, address, server_mem, client_mem, client_options, both_options=()):
    """One pair with GPU memory on one side and --validate; 0 when it passed."""
    exe = os.path.join(paths.build_dir(), "bench", binary)
    port = str(pair.Ports().next())
    common = [exe, "-d", device, "-p", port] + list(both_options)
    size = client_options[client_options.index("-s") + 1] + " B " if "-s" in client_options else ""
    what = f"{binary} {size}server {server_mem}, client {client_mem} on {device}"
    try:
        r = pair.run_pair(common + ["--timeout", "60", "--mem", server_mem],
                          common + ["--mem", client_mem, "--validate"] + client_options + [address], env=env)
        output, ok, why = r.server_log + r.client_out + r.client_err, r.ok, r.failure()
    except pair.PairError as e:
        output, ok, why = e.server_log, False, str(e)
    if ok:
        registrations = sorted(set(re.findall(r"registration: [a-z]*", output)))
        print(f"PASS {what}: {' '.join(registrations)}")
        return 0
    print(f"FAIL {what}: {why}")
    print("\n".join("     " + line for line in output.splitlines()))
    return 1


def check_memory(mem, env, build_dir):
    """Every check of one GPU memory: the checker, then pairs; 0, 1 or SKIP."""
    print(f"INFO checking {mem}", flush=True)
    checker = os.path.join(build_dir, "tests", "gpu_check")
    library, vendor = LIBRARIES[kind_of(mem)]
    _, loader, _ = STANDINS[kind_of(mem)]
    if not env.get(loader) and f"{library} " not in (devices.command_output(["ldconfig", "-p"]) or ""):
        print(f"INFO ldconfig knows no {library}: this machine has no {vendor} installed")
    status = subprocess.call([checker, mem], env=env)
    if status == SKIP:
        print(f"SKIP {mem}: no GPU here: nothing GPU-side could be checked (the plug-in builds and says so clearly)")
        return SKIP
    if status:
        return status
    found = devices.first_with_address(active_only=False)
    if not found:
        print("SKIP GPU memory pairs: no RDMA device with an IPv4 address (rdma link show)")
        return 0
    failed = gpu_pair(env, "rdma_write_bw", *found, mem, "host", ["-a", "-n", "10", "--timeout", "60"])
    failed |= gpu_pair(env, "rdma_read_bw", *found, mem, "host", ["-s", "1M", "-n", "100"])
    failed |= gpu_pair(env, "rdma_send_lat", *found, "host", mem, ["-s", "4096", "-n", "1000"])
    for binary, both in SMALL_MESSAGE_TESTS:
        for size in ("2", "64"):
            options = ["-s", size, "-n", "1000"]
            failed |= gpu_pair(env, binary, *found, mem, "host", options, both)
            failed |= gpu_pair(env, binary, *found, "host", mem, options, both)
    return 1 if failed else 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    build_dir, do_build, standin, mems = paths.build_dir(), True, False, []
    for arg in argv:
        if arg == "--no-build":
            do_build = False
        elif arg == "--standin":
            standin = True
        elif arg in ("-h", "--help"):
            print(__doc__)
            return 0
        elif arg.startswith("-"):
            print(f"gpu-check: unknown option {arg} (see --help)", file=sys.stderr)
            return 2
        elif kind_of(arg) not in STANDINS:
            print(f"gpu-check: {arg} is not GPU memory: give cuda:N or rocm:N (see --help)", file=sys.stderr)
            return 2
        else:
            mems.append(arg)
    mems = mems or (["cuda:0", "rocm:0"] if standin else ["cuda:0"])
    has_cuda = os.access(os.path.join(build_dir, "tests", STANDINS["cuda"][0]), os.R_OK)
    if do_build:
        status, has_cuda = build(build_dir)
        if status:
            return status
    if not os.access(os.path.join(build_dir, "tests", "gpu_check"), os.X_OK):
        print(f"FAIL {os.path.join(build_dir, 'tests', 'gpu_check')} is not built")
        return 1
    statuses = []
    for mem in mems:
        if kind_of(mem) == "cuda" and not has_cuda:
            print(f"SKIP {mem}: this build has no CUDA plug-in: no CUDA Toolkit (cuda.h) found; "
                  "install it or set CUDAToolkit_ROOT")
            statuses.append(SKIP)
            continue
        env = standin_env(build_dir, mem) if standin else dict(os.environ)
        statuses.append(check_memory(mem, env, build_dir))
    if any(s not in (0, SKIP) for s in statuses):
        return 1
    return SKIP if all(s == SKIP for s in statuses) else 0


# Small messages with GPU memory on either side: the sizes where providers
# inline sends and scatter receives into completions (CPU copies both).
SMALL_MESSAGE_TESTS = [("rdma_write_bw", []), ("rdma_send_bw", []), ("rdma_send_lat", []),
                       ("rdma_write_lat", ["--write-with-imm"]), ("rdma_read_lat", [])]
