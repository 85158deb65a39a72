"""THE server/client pair runner of the tools.

A server starts, and its client starts only once the server is ready:

- our servers (rdma_* and tcp_baseline) get `--ready-file PATH` and write one
  JSON line {"ready": true, "pid": N, "tcp_port": P, "rdma_cm_port": P + 1}
  there once they listen (ready="file", the default);
- perftest's servers (ib_write_bw, ...) print nothing machine-readable: the
  runner waits until their TCP port (-p) is listening, from /proc/net/tcp
  and /proc/net/tcp6 (ready="listen").

Both waits are bounded. The runner collects each side's output and exit
status, and always kills and reaps every server it started: no process is
left behind, whatever fails."""
import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
import uuid

READY_LIMIT = 60.0  # seconds a server may take to become ready


class PairError(RuntimeError):
    """A server never became ready, or a side failed; server_log holds what
    the server wrote, when there is a server to speak of."""

    def __init__(self, message, server_log=""):
        super().__init__(message)
        self.server_log = server_log


def tail(text, n=3):
    """The last n non-blank lines of text, on one line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return " | ".join(lines[-n:]) or "(no output)"


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def listening(port):
    """Whether something listens on TCP `port` (IPv4 or IPv6), from /proc."""
    want = f":{port:04X}"
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            # local_address is field 1; state 0A is LISTEN
            if len(fields) > 3 and fields[1].endswith(want) and fields[3] == "0A":
                return True
    return False


def option_value(cmd, *names):
    """The value after the first of `names` in argv `cmd`, or None."""
    for i, word in enumerate(cmd[:-1]):
        if word in names:
            return cmd[i + 1]
    return None


class Server:
    """A server process, started by start(); stop() kills and reaps it."""

    def __init__(self, cmd, log_path, ready, env=None, ssh=None, limit=READY_LIMIT):
        self.cmd, self.log_path, self.ssh = list(cmd), log_path, ssh
        self.ready_info = None
        self._scratch = None
        if ready == "file":
            if ssh:
                self.ready_path = f"/tmp/rdmabench-ready-{uuid.uuid4().hex}"
            else:
                self._scratch = tempfile.mkdtemp(prefix="rdmabench-ready-")
                self.ready_path = os.path.join(self._scratch, "ready")
            self.cmd += ["--ready-file", self.ready_path]
        elif ready == "listen":
            port = option_value(self.cmd, "-p", "--port")
            if port is None or ssh:
                raise PairError("waiting for a listener needs a local server with -p PORT: " + " ".join(cmd))
            self.port = int(port)
        else:
            raise ValueError(f"ready={ready!r}: expected 'file' or 'listen'")
        argv = ["ssh", "-o", "BatchMode=yes", ssh, shlex.join(self.cmd)] if ssh else self.cmd
        self._log = open(log_path, "w")
        try:
            self.process = subprocess.Popen(argv, stdout=self._log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, env=env)
        except OSError as e:
            self._log.close()
            self._cleanup_scratch()
            raise PairError(f"cannot start {self.cmd[0]}: {e.strerror}") from e
        try:
            self._wait_ready(ready, limit)
        except BaseException:
            self.stop()
            raise

    def _ready_now(self, ready):
        if ready == "listen":
            return listening(self.port)
        if self.ssh:
            text = subprocess.run(["ssh", "-o", "BatchMode=yes", self.ssh, "cat " + self.ready_path],
                                  capture_output=True, text=True).stdout
        else:
            text = _read(self.ready_path)
        if not text.strip():
            return False
        self.ready_info = json.loads(text.splitlines()[0])
        return bool(self.ready_info.get("ready"))

    def _wait_ready(self, ready, limit):
        deadline = time.monotonic() + limit
        while not self._ready_now(ready):
            if self.process.poll() is not None:
                raise PairError(f"server exited (status {self.process.returncode}) before it was ready: "
                                f"{tail(self.log())}", self.log())
            if time.monotonic() > deadline:
                raise PairError(f"server not ready after {limit:g} s: {' '.join(self.cmd)}: {tail(self.log())}",
                                self.log())
            time.sleep(0.05)

    def log(self):
        """Everything the server wrote so far (stdout and stderr)."""
        self._log.flush()
        return _read(self.log_path)

    def wait(self, timeout):
        """Its exit status, or None if it still runs after `timeout` s."""
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def _cleanup_scratch(self):
        if self._scratch:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def stop(self):
        """Kills it if it still runs, and reaps it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._log.close()
        self._cleanup_scratch()


class Result:
    """One finished pair: each side's exit status and output."""

    def __init__(self, server_cmd, client_cmd):
        self.server_cmd, self.client_cmd = server_cmd, client_cmd
        self.client_status = self.server_status = None  # None: killed after its time ran out
        self.client_out = self.client_err = self.server_log = ""

    @property
    def ok(self):
        return self.client_status == 0 and self.server_status == 0

    def failure(self):
        """Why the pair failed, on one line (None when it did not)."""
        if self.client_status is None:
            return f"client timed out: {tail(self.client_err or self.client_out)}"
        if self.client_status != 0:
            why = f"client failed (status {self.client_status}): {tail(self.client_err or self.client_out)}"
            if self.server_status not in (0, None):
                why += f"; server (status {self.server_status}): {tail(self.server_log, 2)}"
            return why
        if self.server_status is None:
            return f"server did not exit after its client: {tail(self.server_log)}"
        if self.server_status != 0:
            return f"server failed (status {self.server_status}): {tail(self.server_log)}"
        return None

    def check(self):
        """Raises PairError unless both sides exited 0; returns self."""
        if not self.ok:
            raise PairError(self.failure())
        return self


def run_pairs(pairs, ready="file", timeout=300, server_timeout=30, logs=None, env=None, ssh=None,
              ready_limit=READY_LIMIT, around_clients=None):
    """Runs len(pairs) server/client pairs at once: every server, each ready
    before the next starts, then every client. `pairs` are (server argv,
    client argv); `logs` optional path prefixes, one per pair (PREFIX.server.log,
    .client.out, .client.err; default a temporary folder). `ssh`: run the
    servers on that host. `around_clients`: a context manager entered just
    before the clients start and left once they all ended (tracing, say). Returns a Result per pair; servers never outlive it."""
    scratch = tempfile.mkdtemp(prefix="rdmabench-pair-") if logs is None else None
    prefixes = logs or [os.path.join(scratch, str(i)) for i in range(len(pairs))]
    around = around_clients or contextlib.nullcontext()
    servers, clients, results = [], [], []
    try:
        for (server_cmd, client_cmd), prefix in zip(pairs, prefixes):
            servers.append(Server(server_cmd, prefix + ".server.log", ready, env, ssh, ready_limit))
            results.append(Result(server_cmd, client_cmd))
        with around:
            for (_, client_cmd), prefix in zip(pairs, prefixes):
                out, err = open(prefix + ".client.out", "w"), open(prefix + ".client.err", "w")
                with out, err:
                    clients.append(subprocess.Popen(client_cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                                    env=env))
            deadline = time.monotonic() + timeout
            for client, result in zip(clients, results):
                try:
                    result.client_status = client.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    client.kill()
                    client.wait()
        for result, prefix in zip(results, prefixes):
            result.client_out, result.client_err = _read(prefix + ".client.out"), _read(prefix + ".client.err")
        for server, result in zip(servers, results):
            # After a failed client the server is usually gone or failing too.
            result.server_status = server.wait(server_timeout if result.client_status == 0 else 1)
            result.server_log = server.log()
        return results
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()
                client.wait()
        for server in servers:
            server.stop()
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)


def run_pair(server_cmd, client_cmd, **kwargs):
    """One pair (see run_pairs); its Result."""
    return run_pairs([(server_cmd, client_cmd)], **kwargs)[0]


def same_options_pair(exe, device, port, options, address, client_only=()):
    """(server argv, client argv) the perftest way: the same options on both
    sides, the client's extra options and the server's address at the end."""
    common = [exe] + (["-d", device] if device else []) + ["-p", str(port)] + list(options)
    return common, common + list(client_only) + [address]


def bindable(port):
    """Whether a server could listen on TCP `port` now: no live socket holds
    it (the range overlaps the kernel's local ports, which any connection
    may be using)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as our servers do
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


class Ports:
    """Even TCP ports, two apart (control and rdma_cm), from a random start;
    a pair that a live socket holds is skipped."""

    def __init__(self, first=None):
        self.port = first if first is not None else 20000 + 2 * (os.getpid() * 7 % 15000)

    def next(self):
        for _ in range(15000):
            self.port = 20000 + (self.port - 20000 + 2) % 30000
            if bindable(self.port) and bindable(self.port + 1):
                return self.port
        raise RuntimeError("no free pair of TCP ports between 20000 and 50000")
