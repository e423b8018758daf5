"""The lab's name server: dnsmasq in the server namespace, answering `lab.test` from the
hosts files of the lab folder's `hosts.d` (one for the lab, one for each slot) and
forwarding nothing."""

import os
import subprocess
import time

from . import dns
from .plan import DNS_V4, DNS_V6, DOMAIN


class NameServer:
    def __init__(self, directory, server_ns):
        self.dir = directory
        self.server = server_ns
        self.process = None

    def start(self):
        """Starts dnsmasq; returns once it answers."""
        with open(os.path.join(self.dir, "hosts.d", "lab"), "w") as f:
            f.write(f"{DNS_V4} ns.{DOMAIN}\n{DNS_V6} ns.{DOMAIN}\n")
        os.chmod(self.dir, 0o755)
        log = open(os.path.join(self.dir, "dnsmasq.log"), "w")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", self.server, "dnsmasq", "--keep-in-foreground",
             "--conf-file=/dev/null", "--no-resolv", "--no-hosts", "--no-poll",
             f"--hostsdir={os.path.join(self.dir, 'hosts.d')}", f"--local=/{DOMAIN}/",
             f"--listen-address={DNS_V4}", f"--listen-address={DNS_V6}", "--bind-interfaces",
             "--user=nobody", "--group=nogroup", "--pid-file", "--log-facility=-",
             "--log-queries"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10.0
        while True:
            try:
                dns.query(self.server, f"ns.{DOMAIN}", "A", 0.2)
                return
            except (OSError, ValueError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "dnsmasq did not answer within 10 s (see "
                        f"{os.path.join(self.dir, 'dnsmasq.log')})")

    def publish(self, k, client, a, names):
        """Adds the server names of slot `k` (addresses `a`); returns once dnsmasq answers
        for them in the slot's namespace `client`."""
        hosts = (f"{a['primary_v4']} {names['primary']}\n{a['mirror_v4']} {names['mirror']}\n"
                 f"{a['dual_v4']} {names['dual']}\n{a['dual_v6']} {names['dual']}\n")
        staging = os.path.join(self.dir, f".slot-{k}")
        with open(staging, "w") as f:
            f.write(hosts)
        os.rename(staging, os.path.join(self.dir, "hosts.d", f"slot-{k}"))
        # dnsmasq reads the new file when inotify tells it: ready once it answers.
        deadline = time.monotonic() + 10.0
        while True:
            try:
                _, _, found = dns.query(client, names["dual"], "AAAA", 0.5)
                if found == [a["dual_v6"]]:
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"dnsmasq does not answer for {names['dual']} after 10 s")
            time.sleep(0.01)

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.process.kill()
