"""DNS queries of the lab's own (the supervisor does not use its own namespace's resolver):
one A or AAAA query to the lab's name server from a namespace, and what its reply says."""

import random
import socket
import struct
import time

from .namespaces import in_ns
from .plan import DNS_V4


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


def query(ns, name, qtype, timeout):
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
