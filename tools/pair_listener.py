"""What the lab's Python tools share for running a server/client pair."""
import time


def wait_for_listener(port, server, limit=30.0):
    """Until something listens on TCP `port` (a fixed sleep lost races on a busy machine)."""
    want = f":{port:04X} "
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = open(table).read().splitlines()[1:]
            except OSError:
                continue
            # local_address is field 1, state 0A is LISTEN
            if any(r.split()[1].endswith(want.strip()) and r.split()[3] == "0A" for r in rows):
                return
        if server.poll() is not None:
            raise RuntimeError("server exited before listening: " + " ".join(server.args))
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {limit:.0f} s: " + " ".join(server.args))
