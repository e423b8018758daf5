"""The supervisor (`netlab.py run` and `clean`): whether this machine can hold a lab, the
lab's life from its creation to its teardown when the test process that started it ends,
and the removal of what crashed runs left."""

import json
import os
import shutil
import signal
import sys

from . import control
from .lab import Lab
from .namespaces import clean_stale
from .plan import DNS_V4, DNS_V6, DOMAIN, ECHO_PORT


def why_not():
    """Why this machine cannot hold a lab, or None."""
    if os.geteuid() != 0:
        return ("the network lab creates network namespaces and veth pairs, which needs root "
                f"(this process runs as uid {os.geteuid()})")
    for tool, package in (("ip", "iproute2"), ("dnsmasq", "dnsmasq"), ("ethtool", "ethtool")):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed: run `scripts/install-deps.sh {package}`"
    return None


def run(directory=None):
    """Creates a lab in `directory` (default: $TMPDIR/verify-netlab-PID), prints its ready
    line, serves it until stdin closes or a signal comes, then tears it down; returns the
    exit status."""
    reason = why_not()
    if reason:
        print(f"netlab: cannot create a lab: {reason}", file=sys.stderr, flush=True)
        return 3
    clean_stale()
    directory = directory or os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                          f"verify-netlab-{os.getpid()}")
    lab = Lab(directory)

    def on_signal(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        try:
            lab.create()
        except Exception as err:
            print(f"netlab: cannot create a lab: {err}", file=sys.stderr, flush=True)
            return 1
        socket_path = os.path.join(directory, "control.sock")
        control.serve(socket_path, lab)
        ready = {"id": lab.ident, "dir": directory, "control": socket_path,
                 "sandbox_socket": os.path.join(directory, "sandbox.sock"),
                 "server_ns": lab.server, "router_ns": lab.router, "dns_v4": DNS_V4,
                 "dns_v6": DNS_V6, "domain": DOMAIN, "echo_port": ECHO_PORT}
        print("ready " + json.dumps(ready), flush=True)
        # Serve until the test process closes our stdin (it ended, however it ended).
        while sys.stdin.buffer.read1(4096):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        lab.teardown()
    return 0


def clean():
    """Removes what crashed runs left; returns the exit status."""
    reason = why_not()
    if reason:
        print(f"netlab: {reason}", file=sys.stderr)
        return 3
    print(f"netlab: removed {clean_stale()} stale namespaces")
    return 0
