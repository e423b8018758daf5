#!/usr/bin/env python3
"""netlab.py: the network lab of the tests (tests/lab/, docs/network-lab.md). Python 3, stdlib.

Real TCP between network namespaces, through a user-space packet relay that adds latency,
bandwidth limits, stalls, black holes and resets, with a real name server (dnsmasq).

    netlab.py run [--dir DIR]     create a lab, print one line `ready {JSON}` on stdout, serve
                                  its control socket, and tear everything down when stdin
                                  closes (the test process that started it ended) or on
                                  SIGINT/SIGTERM
    netlab.py clean               remove what a crashed run left (namespaces whose supervising
                                  process is gone, their /etc/netns folders, lab folders)
    netlab.py ctl SOCKET JSON     send one request to a lab's control socket, print the answer

The shape (every name carries the supervisor's pid, so labs of several processes coexist):

    client namespaces vlabPIDcK (one a slot, made on request) --veth-- \\
                                                                       router vlabPIDr -- server vlabPIDs
    the router namespace has no address and no kernel forwarding: its relay thread reads every
    frame from one veth (AF_PACKET) and writes it to the other after the rules' delays

Addresses come from the ranges reserved for benchmarks (198.18.0.0/15, RFC 2544;
2001:2::/48, RFC 5180) and names from .test (RFC 2606); nothing leaves the namespaces. The
server namespace holds dnsmasq (198.18.0.53, 2001:2::53), an echo service on port 7, every
server address of every slot, and whatever the test runs there (the sandbox, on ports 80 and
443 by convention). The control socket takes one JSON request a line, answers one JSON line:

    {"op":"slot"}                     a new client namespace and its server names (see Slot)
    {"op":"set","name":N,"match":{"hosts":[IP..],"port":P,"proto":"tcp"|"udp"},
     "up_ms":X,"down_ms":Y,"rate_kbps":R,"stall":"hold"|"drop","blackhole":true,
     "reset":true,"for_ms":T}         adds or replaces the rule N (every field optional)
    {"op":"clear","name":N} / {"op":"clear","prefix":P}    removes rules (held frames go on)
    {"op":"stats"}                    the rules and their counters
    {"op":"connect"|"dns"|"open"|"send"|"recv"|"exchange"|"close", ...}   probes, run inside
                                      a slot's client namespace (see Lab.probe)

A rule matches an IP packet when one of its `hosts` is its source or destination, its `port`
is the source or destination port, and its protocol is `proto` (absent fields match all).
Every matching rule applies: a black hole drops, a reset answers TCP with forged RSTs (both
ways), a stall holds ("hold": delivered when the stall ends) or drops ("drop") the packets,
delays add up (`up_ms` client to server, `down_ms` server to client), and `rate_kbps` queues
the packets behind each other at that rate. `for_ms` removes the rule after that time. ARP
and IPv6 neighbour discovery always pass at once, so a black-holed address still answers ARP
and SYNs leave and vanish.
"""

import argparse
import ctypes
import heapq
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import socketserver
import struct
import subprocess
import sys
import threading
import time

CLONE_NEWNET = 0x40000000
PREFIX = "vlab"
DOMAIN = "lab.test"
DNS_V4 = "198.18.0.53"
DNS_V6 = "2001:2::53"
ECHO_PORT = 7
SANDBOX_CONTROL_PORT = 80
ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
MAX_SLOTS = 250
OFFLOADS = ["tx", "off", "sg", "off", "tso", "off", "gso", "off", "gro", "off"]

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


def slot_addresses(k):
    return {
        "client_v4": f"198.18.{k}.2",
        "client_v6": f"2001:2::{k:x}:2",
        "primary_v4": f"198.18.{k}.10",
        "mirror_v4": f"198.18.{k}.11",
        "dual_v4": f"198.18.{k}.12",
        "dual_v6": f"2001:2::{k:x}:12",
    }


def packed(address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return socket.inet_pton(family, address)


# ----------------------------------------------------------------------------------------
# Frames


class Packet:
    """What the relay reads of an IP frame."""

    __slots__ = ("v6", "proto", "src", "dst", "sport", "dport", "l3", "l4", "control")

    def __init__(self, frame):
        self.control = False
        self.sport = self.dport = None
        et = frame[12:14]
        if et == b"\x08\x00" and len(frame) >= 34:
            self.v6 = False
            self.l3 = 14
            ihl = (frame[14] & 15) * 4
            self.proto = frame[23]
            self.src = frame[26:30]
            self.dst = frame[30:34]
            self.l4 = 14 + ihl
        elif et == b"\x86\xdd" and len(frame) >= 54:
            self.v6 = True
            self.l3 = 14
            self.proto = frame[20]
            self.src = frame[22:38]
            self.dst = frame[38:54]
            self.l4 = 54
            # Hop-by-hop options (MLD) and neighbour discovery are the link's own business.
            if self.proto == 0 or (
                self.proto == 58 and len(frame) > 54 and 133 <= frame[54] <= 137
            ):
                self.control = True
        else:
            raise ValueError("not IP")
        if self.proto in (6, 17) and len(frame) >= self.l4 + 4:
            self.sport, self.dport = struct.unpack_from("!HH", frame, self.l4)


def checksum(data):
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return (~total) & 0xFFFF


def tcp_frame(frame, pkt, reverse, seq, ack, flags):
    """A 20-byte TCP segment with `flags`, from the endpoints of `pkt` (swapped when
    `reverse`), in an Ethernet frame addressed like `frame` (swapped too)."""
    eth = frame[6:12] + frame[0:6] + frame[12:14] if reverse else frame[0:14]
    src, dst = (pkt.dst, pkt.src) if reverse else (pkt.src, pkt.dst)
    sport, dport = (pkt.dport, pkt.sport) if reverse else (pkt.sport, pkt.dport)
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 0, 0, 0)
    if pkt.v6:
        pseudo = src + dst + struct.pack("!I3xB", len(tcp), 6)
        tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
        ip = struct.pack("!IHBB", 6 << 28, len(tcp), 6, 64) + src + dst
    else:
        pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
        tcp = tcp[:16] + struct.pack("!H", checksum(pseudo + tcp)) + tcp[18:]
        header = struct.pack("!BBHHHBBH", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0) + src + dst
        ip = header[:10] + struct.pack("!H", checksum(header)) + header[12:]
    return eth + ip + tcp


def resets_for(frame, pkt):
    """The RSTs that end the TCP connection of `pkt`: one back to its sender and, when the
    segment belongs to an open connection, one on to its receiver. Returns (back, on)."""
    seq, ack = struct.unpack_from("!II", frame, pkt.l4 + 4)
    offset = (frame[pkt.l4 + 12] >> 4) * 4
    flags = frame[pkt.l4 + 13]
    if pkt.v6:
        length = struct.unpack_from("!H", frame, 18)[0] - offset
    else:
        length = struct.unpack_from("!H", frame, 16)[0] - (frame[14] & 15) * 4 - offset
    length = max(length, 0) + (1 if flags & 0x02 else 0) + (1 if flags & 0x01 else 0)
    if flags & 0x04:  # never answer a reset
        return None, None
    if flags & 0x10:  # ACK: the sender expects `ack` next from its peer
        back = tcp_frame(frame, pkt, True, ack, 0, 0x04)
        on = tcp_frame(frame, pkt, False, seq, 0, 0x04)
        return back, on
    back = tcp_frame(frame, pkt, True, 0, (seq + length) & 0xFFFFFFFF, 0x14)
    return back, None


# ----------------------------------------------------------------------------------------
# The relay


class Rule:
    def __init__(self, name, spec, now):
        match = spec.get("match") or {}
        hosts = match.get("hosts") or []
        if isinstance(hosts, str):
            hosts = [hosts]
        self.name = name
        self.spec = spec
        self.hosts = {packed(h) for h in hosts}
        self.port = match.get("port")
        self.proto = {"tcp": 6, "udp": 17, None: None}[match.get("proto")]
        self.up = float(spec.get("up_ms") or 0) / 1000.0
        self.down = float(spec.get("down_ms") or 0) / 1000.0
        rate = spec.get("rate_kbps")
        self.rate = float(rate) * 1000.0 if rate else None
        self.stall = spec.get("stall")
        if self.stall not in (None, "hold", "drop"):
            raise ValueError(f"stall must be \"hold\" or \"drop\", not {self.stall!r}")
        self.blackhole = bool(spec.get("blackhole"))
        self.reset = bool(spec.get("reset"))
        for_ms = spec.get("for_ms")
        self.expires = now + float(for_ms) / 1000.0 if for_ms is not None else None
        self.free_at = {True: 0.0, False: 0.0}
        self.held = []
        self.counts = {"matched": 0, "dropped": 0, "held": 0, "reset": 0, "delayed": 0}

    def matches(self, pkt):
        if self.hosts and pkt.src not in self.hosts and pkt.dst not in self.hosts:
            return False
        if self.port is not None and self.port not in (pkt.sport, pkt.dport):
            return False
        if self.proto is not None and pkt.proto != self.proto:
            return False
        return True

    def report(self):
        return {"name": self.name, "spec": self.spec, "counts": dict(self.counts),
                "holding": len(self.held)}


class Relay:
    """A learning switch between the client ports and the server port, with impairments."""

    def __init__(self):
        self.lock = threading.RLock()
        self.server = None
        self.clients = []
        self.macs = {}
        self.rules = {}
        self.queue = []  # (due, seq, frame, ports)
        self.seq = 0
        self.last = {}  # FIFO per (direction, source, destination)
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        self.stopping = False
        self.counts = {"up": 0, "down": 0, "passed": 0, "send_errors": 0, "bad_frames": 0}

    @staticmethod
    def open_port(name):
        sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        sock.bind((name, 0))
        sock.setblocking(False)
        return sock

    def add_port(self, sock, server):
        with self.lock:
            if server:
                self.server = sock
            else:
                self.clients.append(sock)
        self.wake()

    def wake(self):
        try:
            os.write(self.wake_w, b"x")
        except BlockingIOError:
            pass

    def set_rule(self, name, spec):
        with self.lock:
            now = time.monotonic()
            old = self.rules.pop(name, None)
            self.rules[name] = Rule(name, spec, now)
            if old is not None:
                self._release(old, now)
        self.wake()

    def clear(self, name=None, prefix=None):
        with self.lock:
            now = time.monotonic()
            names = [n for n in self.rules if n == name or (prefix is not None and n.startswith(prefix))]
            for n in names:
                self._release(self.rules.pop(n), now)
        self.wake()
        return names

    def stats(self):
        with self.lock:
            return {"rules": [r.report() for r in self.rules.values()], "counts": dict(self.counts)}

    def _release(self, rule, now):
        held, rule.held = rule.held, []
        for frame, up in held:
            self._handle(frame, up, now)

    def _send(self, frame, ports):
        for sock in ports:
            try:
                sock.send(frame)
            except OSError:
                self.counts["send_errors"] += 1

    def _out_ports(self, frame, up):
        if up:
            return [self.server] if self.server is not None else []
        if frame[0] & 1:
            return list(self.clients)
        port = self.macs.get(frame[0:6])
        return [port] if port is not None else list(self.clients)

    def _handle(self, frame, up, now):
        ports = self._out_ports(frame, up)
        try:
            pkt = Packet(frame)
        except ValueError:
            pkt = None
        if pkt is None or pkt.control:
            self.counts["passed"] += 1
            self._send(frame, ports)
            return
        self.counts["up" if up else "down"] += 1
        matching = [r for r in self.rules.values() if r.matches(pkt)]
        for rule in matching:
            rule.counts["matched"] += 1
        for rule in matching:
            if rule.blackhole:
                rule.counts["dropped"] += 1
                return
        for rule in matching:
            if rule.reset:
                rule.counts["reset"] += 1
                if pkt.proto == 6 and pkt.sport is not None and len(frame) >= pkt.l4 + 20:
                    back, on = resets_for(frame, pkt)
                    if back is not None:
                        back_ports = [self.server] if not up else self._out_ports(back, False)
                        self._send(back, back_ports)
                    if on is not None:
                        self._send(on, ports)
                return
        for rule in matching:
            if rule.stall == "drop":
                rule.counts["dropped"] += 1
                return
            if rule.stall == "hold":
                rule.counts["held"] += 1
                rule.held.append((frame, up))
                return
        due = now
        delay = 0.0
        for rule in matching:
            if rule.rate:
                start = max(due, rule.free_at[up])
                due = start + len(frame) * 8.0 / rule.rate
                rule.free_at[up] = due
            extra = rule.up if up else rule.down
            if extra > 0:
                rule.counts["delayed"] += 1
            delay += extra
        due += delay
        key = (up, pkt.src, pkt.dst)
        due = max(due, self.last.get(key, 0.0))
        self.last[key] = due
        if due <= now and not self.queue:
            self._send(frame, ports)
        else:
            self.seq += 1
            heapq.heappush(self.queue, (due, self.seq, frame, ports))

    def run(self):
        while not self.stopping:
            with self.lock:
                now = time.monotonic()
                for rule in [r for r in self.rules.values() if r.expires is not None and r.expires <= now]:
                    del self.rules[rule.name]
                    self._release(rule, now)
                while self.queue and self.queue[0][0] <= now:
                    _, _, frame, ports = heapq.heappop(self.queue)
                    self._send(frame, ports)
                due = [self.queue[0][0]] if self.queue else []
                due += [r.expires for r in self.rules.values() if r.expires is not None]
                timeout = max(0.0, min(due) - now) if due else 1.0
                ports = [(s, False) for s in self.clients]
                if self.server is not None:
                    ports.append((self.server, True))
            readable, _, _ = select.select([s for s, _ in ports] + [self.wake_r], [], [], timeout)
            if self.wake_r in readable:
                try:
                    os.read(self.wake_r, 4096)
                except BlockingIOError:
                    pass
            with self.lock:
                for sock, is_server in ports:
                    if sock not in readable:
                        continue
                    for _ in range(256):
                        try:
                            frame, address = sock.recvfrom(65535)
                        except (BlockingIOError, InterruptedError):
                            break
                        except OSError:
                            break
                        if address[2] == PACKET_OUTGOING:
                            continue
                        up = not is_server
                        if up:
                            self.macs[frame[6:12]] = sock
                        try:
                            self._handle(frame, up, time.monotonic())
                        except (ValueError, IndexError, struct.error):
                            # A frame this relay does not understand is dropped and
                            # counted, never the end of the relay.
                            self.counts["bad_frames"] += 1


# ----------------------------------------------------------------------------------------
# DNS probe (a query of our own: the supervisor does not use its own namespace's resolver)


def dns_query(name, qtype):
    ident = random.randrange(65536)
    question = b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split("."))
    question += b"\0" + struct.pack("!HH", {"A": 1, "AAAA": 28}[qtype], 1)
    return ident, struct.pack("!HHHHHH", ident, 0x0100, 1, 0, 0, 0) + question


def dns_answers(reply):
    """(rcode, [addresses]) of a reply to a query of ours."""
    ident, flags, qd, an, _, _ = struct.unpack_from("!HHHHHH", reply, 0)
    pos = 12

    def skip_name(pos):
        while True:
            length = reply[pos]
            if length & 0xC0 == 0xC0:
                return pos + 2
            if length == 0:
                return pos + 1
            pos += 1 + length

    for _ in range(qd):
        pos = skip_name(pos) + 4
    addresses = []
    for _ in range(an):
        pos = skip_name(pos)
        rtype, _, _, length = struct.unpack_from("!HHIH", reply, pos)
        pos += 10
        data = reply[pos:pos + length]
        pos += length
        if rtype == 1 and length == 4:
            addresses.append(socket.inet_ntop(socket.AF_INET, data))
        elif rtype == 28 and length == 16:
            addresses.append(socket.inet_ntop(socket.AF_INET6, data))
    return ident, flags & 15, addresses


def error_name(err):
    if isinstance(err, socket.timeout):
        return "timeout"
    if isinstance(err, ConnectionRefusedError):
        return "refused"
    if isinstance(err, ConnectionResetError):
        return "reset"
    if isinstance(err, OSError) and err.errno is not None:
        return os.strerror(err.errno)
    return str(err)


# ----------------------------------------------------------------------------------------
# The lab


def ns_names(ident):
    return f"{PREFIX}{ident}r", f"{PREFIX}{ident}s"


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


class Lab:
    def __init__(self, directory):
        self.ident = os.getpid()
        self.dir = directory
        self.router, self.server = ns_names(self.ident)
        self.namespaces = []
        self.slots = {}
        self.lock = threading.Lock()
        self.relay = Relay()
        self.conns = {}
        self.next_conn = 1
        self.dnsmasq = None
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
        self.start_dns()
        self.start_echo()
        self.start_forwarder()

    def start_dns(self):
        with open(os.path.join(self.dir, "hosts.d", "lab"), "w") as f:
            f.write(f"{DNS_V4} ns.{DOMAIN}\n{DNS_V6} ns.{DOMAIN}\n")
        os.chmod(self.dir, 0o755)
        log = open(os.path.join(self.dir, "dnsmasq.log"), "w")
        self.dnsmasq = subprocess.Popen(
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
                self.query_in(self.server, f"ns.{DOMAIN}", "A", 0.2)
                return
            except (OSError, ValueError):
                if self.dnsmasq.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "dnsmasq did not answer within 10 s (see "
                        f"{os.path.join(self.dir, 'dnsmasq.log')})")

    def start_echo(self):
        def listen():
            sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            sock.bind(("::", ECHO_PORT))
            sock.listen(64)
            return sock

        sock = in_ns(self.server, listen)
        self.listeners.append(sock)

        def echo(conn):
            with conn:
                while True:
                    try:
                        data = conn.recv(65536)
                    except OSError:
                        return
                    if not data:
                        return
                    try:
                        conn.sendall(data)
                    except OSError:
                        return

        def accept():
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:
                    return
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                threading.Thread(target=echo, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True, name="echo").start()

    def start_forwarder(self):
        """A Unix socket in the lab folder whose connections go on to 127.0.0.1:80 in the
        server namespace: the way in for the sandbox's control calls."""
        path = os.path.join(self.dir, "sandbox.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(64)
        self.listeners.append(listener)

        def pump(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            try:
                b.shutdown(socket.SHUT_WR)
            except OSError:
                pass

        def serve(conn):
            try:
                upstream = in_ns(self.server, lambda: socket.create_connection(
                    ("127.0.0.1", SANDBOX_CONTROL_PORT), timeout=10))
                upstream.settimeout(None)
            except OSError:
                conn.close()
                return
            other = threading.Thread(target=pump, args=(upstream, conn), daemon=True)
            other.start()
            pump(conn, upstream)
            other.join()
            conn.close()
            upstream.close()

        def accept():
            while True:
                try:
                    conn, _ = listener.accept()
                except OSError:
                    return
                threading.Thread(target=serve, args=(conn,), daemon=True).start()

        threading.Thread(target=accept, daemon=True, name="forwarder").start()

    def new_slot(self):
        with self.lock:
            k = len(self.slots) + 1
            if k > MAX_SLOTS:
                raise RuntimeError(f"at most {MAX_SLOTS} slots")
            self.slots[k] = None
        client = f"{PREFIX}{self.ident}c{k}"
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
        names = {
            "primary": f"s{k}-primary.{DOMAIN}",
            "mirror": f"s{k}-mirror.{DOMAIN}",
            "dual": f"s{k}-dual.{DOMAIN}",
        }
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
                _, _, found = self.query_in(client, names["dual"], "AAAA", 0.5)
                if found == [a["dual_v6"]]:
                    break
            except (OSError, ValueError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"dnsmasq does not answer for {names['dual']} after 10 s")
            time.sleep(0.01)
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
        if self.dnsmasq is not None and self.dnsmasq.poll() is None:
            self.dnsmasq.terminate()
            try:
                self.dnsmasq.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.dnsmasq.kill()
        destroy_namespaces(list(reversed(self.namespaces)))
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- probes -----------------------------------------------------------------------------

    def query_in(self, ns, name, qtype, timeout):
        """One DNS query to the lab's name server from namespace `ns`: (ms, rcode, addresses)."""

        def work():
            ident, query = dns_query(name, qtype)
            sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sock.settimeout(timeout)
            with sock:
                start = time.monotonic()
                sock.sendto(query, (DNS_V4, 53))
                while True:
                    reply = sock.recv(4096)
                    got, rcode, addresses = dns_answers(reply)
                    if got == ident:
                        return (time.monotonic() - start) * 1000.0, rcode, addresses

        return in_ns(ns, work)

    def slot_ns(self, request):
        with self.lock:
            info = self.slots.get(int(request["slot"]))
        if not info:
            raise ValueError(f"no slot {request.get('slot')}")
        return info["namespace"]

    def probe(self, op, request):
        """connect {slot, host, port, timeout_ms} -> {ms, error}: one TCP connect.
        dns {slot, name, type, timeout_ms} -> {ms, rcode, addresses, error}.
        open {slot, host, port, timeout_ms} -> {conn, ms, error}: a connection kept here.
        send {conn, bytes} -> {sent, error}; recv {conn, bytes, timeout_ms} -> {got, ms, error}
        exchange {conn, bytes, timeout_ms} -> {got, ms, error}: send, then read as many back.
        close {conn}."""
        timeout = float(request.get("timeout_ms", 5000)) / 1000.0
        if op == "dns":
            try:
                ms, rcode, addresses = self.query_in(
                    self.slot_ns(request), request["name"], request.get("type", "A"), timeout)
                return {"ms": ms, "rcode": rcode, "addresses": addresses, "error": None}
            except OSError as err:
                return {"ms": None, "error": error_name(err)}
        if op in ("connect", "open"):
            host, port = request["host"], int(request["port"])

            def work():
                family = socket.AF_INET6 if ":" in host else socket.AF_INET
                sock = socket.socket(family, socket.SOCK_STREAM)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                sock.settimeout(timeout)
                start = time.monotonic()
                try:
                    sock.connect((host, port))
                except OSError as err:
                    sock.close()
                    return None, (time.monotonic() - start) * 1000.0, error_name(err)
                return sock, (time.monotonic() - start) * 1000.0, None

            sock, ms, error = in_ns(self.slot_ns(request), work)
            if op == "connect" or sock is None:
                if sock is not None:
                    sock.close()
                return {"ms": ms, "error": error}
            with self.lock:
                conn = self.next_conn
                self.next_conn += 1
                self.conns[conn] = sock
            return {"conn": conn, "ms": ms, "error": None}
        with self.lock:
            sock = self.conns.get(int(request["conn"]))
        if sock is None:
            raise ValueError(f"no connection {request.get('conn')}")
        if op == "close":
            with self.lock:
                self.conns.pop(int(request["conn"]), None)
            sock.close()
            return {}
        size = int(request.get("bytes", 1))
        sock.settimeout(timeout)
        start = time.monotonic()
        try:
            if op == "send":
                sock.sendall(os.urandom(size))
                return {"sent": size, "ms": (time.monotonic() - start) * 1000.0, "error": None}
            if op == "exchange":
                # Sent beside the reading: an echo of more than the sockets' buffers would
                # otherwise wait for itself.
                data = os.urandom(size)

                def send():
                    try:
                        sock.sendall(data)
                    except OSError:
                        pass

                threading.Thread(target=send, daemon=True).start()
            got = 0
            while got < size:
                data = sock.recv(min(65536, size - got))
                if not data:
                    return {"got": got, "ms": (time.monotonic() - start) * 1000.0,
                            "error": "closed"}
                got += len(data)
            return {"got": got, "ms": (time.monotonic() - start) * 1000.0, "error": None}
        except OSError as err:
            return {"got": None, "ms": (time.monotonic() - start) * 1000.0,
                    "error": error_name(err)}

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
        if op in ("connect", "dns", "open", "send", "recv", "exchange", "close"):
            return self.probe(op, request)
        raise ValueError(f"unknown op {op!r}")


class ControlHandler(socketserver.StreamRequestHandler):
    def handle(self):
        for line in self.rfile:
            if not line.strip():
                continue
            try:
                answer = {"ok": True, **self.server.lab.dispatch(json.loads(line))}
            except Exception as err:  # every failure is an answer, never a dead socket
                answer = {"ok": False, "error": f"{type(err).__name__}: {err}"}
            self.wfile.write((json.dumps(answer) + "\n").encode())
            self.wfile.flush()


class ControlServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


def why_not():
    """Why this machine cannot hold a lab, or None."""
    if os.geteuid() != 0:
        return ("the network lab creates network namespaces and veth pairs, which needs root "
                f"(this process runs as uid {os.geteuid()})")
    for tool, package in (("ip", "iproute2"), ("dnsmasq", "dnsmasq"), ("ethtool", "ethtool")):
        if shutil.which(tool) is None:
            return f"`{tool}` is not installed: run `scripts/install-deps.sh {package}`"
    return None


def run(args):
    reason = why_not()
    if reason:
        print(f"netlab: cannot create a lab: {reason}", file=sys.stderr, flush=True)
        return 3
    clean_stale()
    directory = args.dir or os.path.join(os.environ.get("TMPDIR", "/tmp"),
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
        control = os.path.join(directory, "control.sock")
        server = ControlServer(control, ControlHandler)
        server.lab = lab
        threading.Thread(target=server.serve_forever, daemon=True, name="control").start()
        ready = {"id": lab.ident, "dir": directory, "control": control,
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


def ctl(args):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(args.socket)
    sock.sendall(args.json.encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        data = sock.recv(65536)
        if not data:
            break
        reply += data
    print(reply.decode().strip())
    return 0 if json.loads(reply).get("ok") else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="create a lab and serve it until stdin closes")
    p_run.add_argument("--dir", help="the lab's folder (default: $TMPDIR/verify-netlab-PID)")
    sub.add_parser("clean", help="remove what crashed runs left")
    p_ctl = sub.add_parser("ctl", help="send one request to a control socket")
    p_ctl.add_argument("socket")
    p_ctl.add_argument("json")
    args = parser.parse_args()
    if args.command == "run":
        return run(args)
    if args.command == "clean":
        reason = why_not()
        if reason:
            print(f"netlab: {reason}", file=sys.stderr)
            return 3
        print(f"netlab: removed {clean_stale()} stale namespaces")
        return 0
    return ctl(args)


if __name__ == "__main__":
    sys.exit(main())
