"""This machine's RDMA ports and their addresses, from rdma(8), ip(8) and sysfs."""
import json
import subprocess


def command_output(cmd):
    """stdout of a probe, or None: probes are best effort, never fatal."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def links():
    """rdma link show as JSON: one dict per port (ifname, port, state, netdev)."""
    try:
        return json.loads(command_output(["rdma", "-j", "link", "show"]) or "[]")
    except ValueError:
        return []


def netdev_of(device, port):
    """The network interface behind an RDMA port (rdma link show, else sysfs)."""
    for link in links():
        if link.get("ifname") == device and link.get("port") == port and link.get("netdev"):
            return link["netdev"]
    return read_text(f"/sys/class/infiniband/{device}/ports/{port}/gid_attrs/ndevs/0")


def ipv4_of(netdev):
    """The first IPv4 address of a network interface, or None."""
    try:
        entries = json.loads(command_output(["ip", "-j", "-4", "addr", "show", "dev", netdev]) or "[]")
    except ValueError:
        return None
    for e in entries:
        for a in e.get("addr_info", []):
            if a.get("family") == "inet":
                return a["local"]
    return None


def first_with_address(active_only=True):
    """(device, IPv4 address) of the first (ACTIVE) port whose interface has
    an IPv4 address, or None."""
    for link in links():
        if active_only and link.get("state") != "ACTIVE":
            continue
        address = ipv4_of(link["netdev"]) if link.get("netdev") else None
        if address:
            return link["ifname"], address
    return None
