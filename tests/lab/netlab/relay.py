"""The relay: a learning switch between the client ports and the server port of the router
namespace (AF_PACKET), which applies the rules to every IP frame it carries."""

import heapq
import os
import select
import socket
import struct
import threading
import time

from .frames import Packet, resets_for
from .rules import Rule

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4


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
