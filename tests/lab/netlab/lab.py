"""The lab: its namespaces and veth pairs (router, server, and a client namespace a slot),
the relay between them, the name server and the services, and the requests of the control
socket. Teardown undoes all of it."""

import os
import shutil
import threading

from .namespaces import destroy_namespaces, in_ns, ip_batch, sh
from .nameserver import NameServer
from .plan import (DNS_V4, DNS_V6, ECHO_PORT, MAX_SLOTS, client_ns, ns_names, slot_addresses,
                   slot_names)
from .probes import OPS, Probes
from .relay import Relay
from .services import start_echo, start_forwarder, start_mute

OFFLOADS = ["tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"]


class Lab:
    def __init__(self, directory):
        self.ident = os.getpid()
        self.dir = directory
        self.router, self.server = ns_names(self.ident)
        self.namespaces = []
        self.slots = {}
        self.lock = threading.Lock()
        self.relay = Relay()
        self.probes = Probes()
        self.nameserver = NameServer(directory, self.server)
        self.listeners = []

    # -- creation -------------------------------------------------------------------------

    def create(self):
        os.makedirs(os.path.join(self.dir, "hosts.d"), exist_ok=True)
        for ns in (self.router, self.server):
            sh("ip", "netns", "add", ns)
            self.namespaces.append(ns)
        # The router has no address, no IPv6 and no forwarding: its kernel stays silent.
        sh("ip", "netns", "exec", self.router, "sysctl", "-q", "-w",
           "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
           "net.ipv4.ip_forward=0")
        sh("ip", "link", "add", "eth0", "netns", self.server, "type", "veth",
           "peer", "name", "srv", "netns", self.router)
        ip_batch(self.server, [
            "link set lo up",
            "link set eth0 up",
            "addr add 198.18.0.53/16 dev eth0",
            f"addr add {DNS_V6}/64 dev eth0 nodad",
        ])
        ip_batch(self.router, ["link set srv up", "link set srv promisc on"])
        sh("ip", "netns", "exec", self.server, "ethtool", "-K", "eth0", *OFFLOADS, check=False)
        sh("ip", "netns", "exec", self.router, "ethtool", "-K", "srv", *OFFLOADS, check=False)
        self.relay.add_port(in_ns(self.router, lambda: Relay.open_port("srv")), True)
        threading.Thread(target=self.relay.run, daemon=True, name="relay").start()
        self.nameserver.start()
        self.listeners.append(start_echo(self.server))
        self.listeners.append(start_mute(self.server))
        self.listeners.append(start_forwarder(self.dir, self.server))

    def new_slot(self):
        with self.lock:
            k = len(self.slots) + 1
            if k > MAX_SLOTS:
                raise RuntimeError(f"at most {MAX_SLOTS} slots")
            self.slots[k] = None
        client = client_ns(self.ident, k)
        a = slot_addresses(k)
        sh("ip", "netns", "add", client)
        self.namespaces.append(client)
        os.makedirs(f"/etc/netns/{client}", exist_ok=True)
        with open(f"/etc/netns/{client}/resolv.conf", "w") as f:
            f.write(f"# the network lab's name server (tests/lab/netlab.py)\nnameserver {DNS_V4}\n")
        with open(f"/etc/netns/{client}/hosts", "w") as f:
            f.write("127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n")
        with open(f"/etc/netns/{client}/nsswitch.conf", "w") as f:
            f.write("hosts: files dns\n")
        port = f"c{k}"
        sh("ip", "link", "add", "eth0", "netns", client, "type", "veth",
           "peer", "name", port, "netns", self.router)
        ip_batch(client, [
            "link set lo up",
            "link set eth0 up",
            f"addr add {a['client_v4']}/16 dev eth0",
            f"addr add {a['client_v6']}/64 dev eth0 nodad",
        ])
        ip_batch(self.router, [f"link set {port} up", f"link set {port} promisc on"])
        ip_batch(self.server, [
            f"addr add {a['primary_v4']}/16 dev eth0",
            f"addr add {a['mirror_v4']}/16 dev eth0",
            f"addr add {a['dual_v4']}/16 dev eth0",
            f"addr add {a['dual_v6']}/64 dev eth0 nodad",
        ])
        sh("ip", "netns", "exec", client, "ethtool", "-K", "eth0", *OFFLOADS, check=False)
        sh("ip", "netns", "exec", self.router, "ethtool", "-K", port, *OFFLOADS, check=False)
        self.relay.add_port(in_ns(self.router, lambda: Relay.open_port(port)), False)
        names = slot_names(k)
        self.nameserver.publish(k, client, a, names)
        info = {"slot": k, "namespace": client, "addresses": a, "names": names,
                "dns": DNS_V4, "echo_port": ECHO_PORT}
        with self.lock:
            self.slots[k] = info
        return info

    def teardown(self):
        self.relay.stopping = True
        self.relay.wake()
        for sock in self.listeners:
            try:
                sock.close()
            except OSError:
                pass
        self.nameserver.stop()
        destroy_namespaces(list(reversed(self.namespaces)))
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- requests ---------------------------------------------------------------------------

    def slot_ns(self, request):
        with self.lock:
            info = self.slots.get(int(request["slot"]))
        if not info:
            raise ValueError(f"no slot {request.get('slot')}")
        return info["namespace"]

    def dispatch(self, request):
        op = request.get("op")
        if op == "slot":
            return {"slot": self.new_slot()}
        if op == "set":
            self.relay.set_rule(str(request["name"]), request)
            return {}
        if op == "clear":
            return {"cleared": self.relay.clear(request.get("name"), request.get("prefix"))}
        if op == "stats":
            return self.relay.stats()
        if op in OPS:
            return self.probes.probe(op, request, self.slot_ns)
        raise ValueError(f"unknown op {op!r}")
