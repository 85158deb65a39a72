#!/usr/bin/python3
"""Unit test of tools/install-deps' groups and of what tools/quickstart
installs: quickstart's dry run names the build group's packages and no
Slurm, munge, PMIx, MPI or qemu package when a device is present (the device
check injected with RDMABENCH_QUICKSTART_DEVICE), and the lab's qemu only
without one; an unknown group is refused (exit 2) with the groups named;
and an install starts nothing. That last one runs install-deps against
stand-ins of apt-get, dpkg, dpkg-query, deb-systemd-helper, systemctl and
id that record their calls (no real package is installed, nothing written
outside a temporary folder): apt-get must run while a policy-rc.d that
forbids starts (exit 101) exists, the policy must be gone afterwards (also
when apt-get fails, and a site's own policy must stay), and the units of
the newly installed packages must be disabled (and stopped where active),
those of a package that was there before left alone."""
import os
import re
import subprocess
import sys
import tempfile
import textwrap

from tool_test_helpers import REPO, check, finish

INSTALL_DEPS = os.path.join(REPO, "tools", "install-deps")
QUICKSTART = os.path.join(REPO, "tools", "quickstart")
FORBIDDEN = re.compile(r"slurm|munge|pmix|mpi|qemu", re.IGNORECASE)


def run(cmd, env_extra=None, path_prefix=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RDMABENCH_")}
    env.update(env_extra or {})
    if path_prefix:
        env["PATH"] = path_prefix + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


def listed_packages(stdout):
    """{group: [packages]} from install-deps --dry-run's lines
    ("GROUP: PKG... (missing: ...)" or "(none missing)")."""
    groups = {}
    for line in stdout.splitlines():
        m = re.match(r"^([a-z0-9]+): (.*?) \((?:missing: .*|none missing)\)$", line)
        if m:
            groups[m.group(1)] = m.group(2).split()
    return groups


# (a) A device present: the build group only, no Slurm/munge/PMIx/MPI/qemu.
done = run([QUICKSTART, "--dry-run"], {"RDMABENCH_QUICKSTART_DEVICE": "mlx5_0:192.0.2.1"})
groups = listed_packages(done.stdout)
packages = [p for ps in groups.values() for p in ps]
check(done.returncode == 0, f"quickstart --dry-run with a device exits 0 (got {done.returncode}"
      + (f": {done.stderr[-300:]})" if done.returncode else ")"))
check(list(groups) == ["build"], f"with a device only the build group is listed: {list(groups)}")
check({"g++", "cmake", "make"} <= set(packages), f"with a device the build group's compilers are listed: {packages}")
bad = [p for p in packages if FORBIDDEN.search(p)]
check(packages and not bad, f"with a device no Slurm, munge, PMIx, MPI or qemu package: {bad}")
said = done.stderr.strip().splitlines()[-1:]
check("mlx5_0 (192.0.2.1)" in done.stderr and "soft-RDMA lab" not in done.stderr,
      f"with a device it says it runs on it, not in the lab: {said}")

# (b) No device: the lab's packages too (qemu), still no Slurm/munge/MPI.
done = run([QUICKSTART, "--dry-run"], {"RDMABENCH_QUICKSTART_DEVICE": "none"})
groups = listed_packages(done.stdout)
packages = [p for ps in groups.values() for p in ps]
check(done.returncode == 0, f"quickstart --dry-run without a device exits 0 (got {done.returncode})")
check(list(groups) == ["build", "lab"], f"without a device the build and lab groups are listed: {list(groups)}")
check("qemu-system-x86" in packages and "g++" in packages, f"without a device the lab's qemu is listed: {packages}")
bad = [p for p in packages if re.search(r"slurm|munge|pmix|mpi", p)]
check(packages and not bad, f"without a device still no Slurm, munge, PMIx or MPI package: {bad}")
check("soft-RDMA lab" in done.stderr, f"without a device it says it uses the lab: {done.stderr.strip().splitlines()[-1:]}")

done = run([QUICKSTART, "--dry-run"], {"RDMABENCH_QUICKSTART_DEVICE": "mlx5_0"})
check(done.returncode == 2 and "RDMABENCH_QUICKSTART_DEVICE" in done.stderr,
      f"a malformed RDMABENCH_QUICKSTART_DEVICE is refused with exit 2: {done.returncode} {done.stderr.strip()}")

# The test group holds what run-tests needs, MPI and Slurm among them.
done = run([INSTALL_DEPS, "--dry-run", "test"])
test_packages = listed_packages(done.stdout).get("test", [])
check(done.returncode == 0 and {"catch2", "openmpi-bin", "munge", "slurmd", "qemu-system-x86", "g++", "rpm"}
      <= set(test_packages), f"the test group includes build, lab, sweep, slurm and package: {test_packages}")

# (c) An unknown group: exit 2, the groups named.
done = run([INSTALL_DEPS, "--dry-run", "bogus"])
line = next((l for l in done.stderr.splitlines() if "bogus" in l), "")
check(done.returncode == 2, f"install-deps --dry-run bogus exits 2 (got {done.returncode})")
named = [g for g in ("build", "lab", "sweep", "slurm", "package", "lanes", "test", "fuzz", "arm64")
         if re.search(rf"\b{g}\b", line)]
check("unknown group" in line and len(named) == 9, f"the message names the bad group and every group: {line!r}")

# (d) Installing starts nothing: stand-ins for the package tools.
STUB_HEAD = "#!/usr/bin/python3\nimport os, sys, subprocess\nS = os.environ['STUB_STATE']\n" + textwrap.dedent("""
    def rec(*words):
        with open(os.path.join(S, 'calls'), 'a') as f:
            f.write(' '.join(words) + '\\n')
    def lines(name):
        try:
            with open(os.path.join(S, name)) as f:
                return [l.strip() for l in f if l.strip()]
        except OSError:
            return []
    def put(name, items):
        with open(os.path.join(S, name), 'w') as f:
            f.write(''.join(i + '\\n' for i in items))
    args = sys.argv[1:]
    rec(os.path.basename(sys.argv[0]), *args)
    """)
STUBS = {
    "id": "print(0)\n",
    "apt-get": textwrap.dedent("""
        if args and args[0] == 'update':
            sys.exit(0)
        assert 'install' in args, args
        policy = os.environ.get('RDMABENCH_POLICY_RC_D', '/usr/sbin/policy-rc.d')
        if os.path.exists(policy):
            rc = subprocess.call([policy, 'slurmd', 'start'])
            rec('policy-during-install', str(rc))
        else:
            rec('policy-during-install', 'absent')
        if os.environ.get('STUB_APT_FAIL'):
            sys.exit(100)
        pkgs = [a for a in args if not a.startswith('-') and a != 'install']
        put('installed', lines('installed') + [p + ' amd64' for p in pkgs + ['libslurm38']])
        # as if postinst had enabled the new units and one had started anyway
        put('enabled', lines('enabled') + ['slurmctld.service', 'slurmd.service'])
        put('active', lines('active') + ['slurmd.service'])
        """),
    "dpkg-query": textwrap.dedent("""
        fmt = next(a[3:] for a in args if a.startswith('-f='))
        want = [a for a in args if not a.startswith('-')]
        for l in lines('installed'):
            name, arch = l.split()
            if want and name not in want and f'{name}:{arch}' not in want:
                continue
            sep = ':' if '${Package}:' in fmt else ' '
            print(f'{name}{sep}{arch} installed')
        """),
    "dpkg": textwrap.dedent("""
        units = {'munge': ['munge.service'], 'slurmctld': ['slurmctld.service'],
                 'slurmd': ['slurmd.service', 'slurmd@.service']}
        if args == ['--print-architecture']:
            print('amd64')
        elif args == ['--print-foreign-architectures']:
            pass
        elif args[0] == '-L':
            name = args[1].split(':')[0]
            print('/.'); print('/usr'); print('/usr/share/doc/' + name)
            for u in units.get(name, []):
                print('/lib/systemd/system/' + u)
        else:
            sys.exit(2)
        """),
    "deb-systemd-helper": textwrap.dedent("""
        words = [a for a in args if a != '--quiet']
        if words[0] == 'was-enabled':
            sys.exit(0 if words[1] in lines('enabled') else 1)
        if words[0] == 'disable':
            put('enabled', [u for u in lines('enabled') if u != words[1]])
            sys.exit(0)
        sys.exit(2)
        """),
    "systemctl": textwrap.dedent("""
        words = [a for a in args if a != '--quiet']
        if words[0] == 'is-active':
            sys.exit(0 if words[1] in lines('active') else 3)
        if words[0] == 'is-enabled':
            sys.exit(0 if words[1] in lines('enabled') else 1)
        if words[0] in ('stop', 'disable'):
            name = 'active' if words[0] == 'stop' else 'enabled'
            put(name, [u for u in lines(name) if u != words[1]])
            sys.exit(0)
        sys.exit(2)
        """),
}


def fake_install(tmp, group, pre_policy=None, apt_fail=False):
    """install-deps GROUP with the stand-ins, a host where munge (enabled,
    active) was installed before; (result, calls, state folder, policy path)."""
    state = os.path.join(tmp, "state")
    bindir = os.path.join(tmp, "bin")
    for d in (state, bindir):
        os.makedirs(d, exist_ok=True)
    for name in ("calls", "installed", "enabled", "active"):
        open(os.path.join(state, name), "w").close()
    with open(os.path.join(state, "installed"), "w") as f:
        f.write("munge amd64\nbash amd64\n")
    with open(os.path.join(state, "enabled"), "w") as f:
        f.write("munge.service\n")
    with open(os.path.join(state, "active"), "w") as f:
        f.write("munge.service\n")
    for name, body in STUBS.items():
        path = os.path.join(bindir, name)
        with open(path, "w") as f:
            f.write(STUB_HEAD + body)
        os.chmod(path, 0o755)
    policy = os.path.join(tmp, "policy-rc.d")
    if os.path.exists(policy):
        os.remove(policy)
    if pre_policy is not None:
        with open(policy, "w") as f:
            f.write(pre_policy)
        os.chmod(policy, 0o755)
    rundir = os.path.join(tmp, "run-systemd-system")  # "systemd runs"
    os.makedirs(rundir, exist_ok=True)
    env = {"STUB_STATE": state, "RDMABENCH_POLICY_RC_D": policy, "RDMABENCH_SYSTEMD_RUNDIR": rundir}
    if apt_fail:
        env["STUB_APT_FAIL"] = "1"
    done = run([INSTALL_DEPS, group], env, path_prefix=bindir)
    with open(os.path.join(state, "calls")) as f:
        calls = f.read().splitlines()
    return done, calls, state, policy


def state_lines(state, name):
    with open(os.path.join(state, name)) as f:
        return [l.strip() for l in f if l.strip()]


with tempfile.TemporaryDirectory() as tmp:
    done, calls, state, policy = fake_install(tmp, "slurm")
    installs = [c for c in calls if c.startswith("apt-get install")]
    check(done.returncode == 0, f"install-deps slurm with stand-ins exits 0 (got {done.returncode}"
          + (f": {done.stderr[-400:]})" if done.returncode else ")"))
    check(len(installs) == 1 and "slurmctld" in installs[0] and " munge" not in installs[0],
          f"apt-get install ran once, for the missing packages only: {installs}")
    check("policy-during-install 101" in calls, f"during apt-get install a policy-rc.d denied starts (101): "
          f"{[c for c in calls if c.startswith('policy')]}")
    check(not os.path.exists(policy), "the temporary policy-rc.d is gone afterwards")
    enabled = state_lines(state, "enabled")
    check("slurmctld.service" not in enabled and "slurmd.service" not in enabled,
          f"the units of the newly installed packages are disabled: still enabled {enabled}")
    check(any(c.startswith("deb-systemd-helper disable slurmd.service") or c.startswith("systemctl")
              and "disable" in c and "slurmd.service" in c for c in calls), "slurmd.service disabled by a call")
    check("slurmd.service" not in state_lines(state, "active"), "a newly installed unit found active is stopped")
    check("munge.service" in enabled and "munge.service" in state_lines(state, "active"),
          "the site's munge, installed before, stays enabled and active")
    check(not [c for c in calls if "munge.service" in c and ("disable" in c or "stop" in c)],
          "nothing disables or stops a unit of a package installed before")
    check(not [c for c in calls if "@" in c], "template units are left alone")
    said = [l for l in done.stderr.splitlines() if "started nothing" in l]
    check(len(said) == 1 and re.search(r"disabled: .*slurmd\.service.*stopped: slurmd\.service", said[0]),
          f"one log line says what it disabled and stopped: {said}")

    done, calls, state, policy = fake_install(tmp, "slurm", apt_fail=True)
    check(done.returncode != 0 and not os.path.exists(policy),
          f"apt-get failing: install-deps fails and the policy is removed (rc {done.returncode})")

    site_policy = "#!/bin/sh\n# the site's\nexit 0\n"
    done, calls, state, policy = fake_install(tmp, "slurm", pre_policy=site_policy)
    with open(policy) as f:
        kept = f.read()
    check(done.returncode == 0 and kept == site_policy, "a policy-rc.d that existed before is left as it was")
    check("slurmd.service" not in state_lines(state, "enabled"), "with the site's policy the new units are still disabled")

finish()
