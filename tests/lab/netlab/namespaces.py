"""Network namespaces: entering one, configuring them with `ip`, and removing them (the lab's
own at teardown, and what the supervisors that are gone left behind)."""

import ctypes
import os
import re
import shutil
import signal
import subprocess
import threading
import time

from .plan import PREFIX

CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)


def setns(name):
    """Moves the calling thread into the network namespace `name`."""
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns into {name}: {os.strerror(err)}")
    finally:
        os.close(fd)


def in_ns(name, work):
    """Runs `work()` on a new thread inside the network namespace `name`; returns its result.
    Sockets keep the namespace they were made in, whichever thread uses them later."""
    result = {}

    def body():
        try:
            setns(name)
            result["value"] = work()
        except BaseException as err:  # handed to the caller
            result["error"] = err

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result.get("value")


def sh(*args, check=True, input_text=None):
    """Runs a command; raises with its stderr when it fails."""
    done = subprocess.run(
        list(args), input=input_text, capture_output=True, text=True, check=False
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"`{' '.join(args)}` failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def ip_batch(ns, lines):
    """`ip -n NS -batch -` of the given command lines (one process for many changes)."""
    sh("ip", "-n", ns, "-batch", "-", input_text="\n".join(lines) + "\n")


def destroy_namespaces(names):
    """Ends the processes inside `names`, then deletes the namespaces and their /etc/netns
    folders."""
    pids = []
    for name in names:
        out = sh("ip", "netns", "pids", name, check=False)
        pids += [int(p) for p in out.split() if p.isdigit()]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            break
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline and any(os.path.exists(f"/proc/{p}") for p in alive):
            time.sleep(0.02)
        pids = [p for p in alive if os.path.exists(f"/proc/{p}")]
    for name in names:
        sh("ip", "netns", "del", name, check=False)
        shutil.rmtree(f"/etc/netns/{name}", ignore_errors=True)


def supervisor_alive(pid):
    """Whether `pid` is a running supervisor (`netlab.py run`, the lab's command)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"netlab.py" in f.read()
    except OSError:
        return False


def clean_stale():
    """Removes the namespaces, /etc/netns folders and lab folders of dead supervisors."""
    out = sh("ip", "netns", "list", check=False)
    stale = {}
    for line in out.splitlines():
        name = line.split()[0] if line.split() else ""
        found = re.match(rf"^{PREFIX}(\d+)[a-z]", name)
        if found and not supervisor_alive(int(found.group(1))):
            stale.setdefault(int(found.group(1)), []).append(name)
    for names in stale.values():
        destroy_namespaces(names)
    removed = sum(len(n) for n in stale.values())
    if os.path.isdir("/etc/netns"):
        for name in os.listdir("/etc/netns"):
            found = re.match(rf"^{PREFIX}(\d+)[a-z]", name)
            if found and not supervisor_alive(int(found.group(1))):
                shutil.rmtree(f"/etc/netns/{name}", ignore_errors=True)
    tmp = os.environ.get("TMPDIR", "/tmp")
    for name in os.listdir(tmp):
        found = re.match(r"^verify-netlab-(\d+)$", name)
        if found and not supervisor_alive(int(found.group(1))):
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
    return removed
