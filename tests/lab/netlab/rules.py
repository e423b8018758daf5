"""A rule of the relay: which IP packets it matches, and what it does to them (its delays,
rate, stall, black hole or reset, and how long it lasts), with its counters."""

import socket


def packed(address):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    return socket.inet_pton(family, address)


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
