"""The probes: real sockets inside a slot's client namespace, for the lab's own tests (a TCP
connect, a DNS query of the lab's own to dnsmasq, an exchange with the echo service), and
the connections that `open` keeps for `send`, `recv`, `exchange` and `close`."""

import os
import socket
import threading
import time

from . import dns
from .namespaces import in_ns

OPS = ("connect", "dns", "open", "send", "recv", "exchange", "close")


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


class Probes:
    def __init__(self):
        self.lock = threading.Lock()
        self.conns = {}
        self.next_conn = 1

    def probe(self, op, request, slot_ns):
        """connect {slot, host, port, timeout_ms} -> {ms, error}: one TCP connect.
        dns {slot, name, type, timeout_ms} -> {ms, rcode, addresses, error}.
        open {slot, host, port, timeout_ms} -> {conn, ms, error}: a connection kept here.
        send {conn, bytes} -> {sent, error}; recv {conn, bytes, timeout_ms} -> {got, ms, error}
        exchange {conn, bytes, timeout_ms} -> {got, ms, error}: send, then read as many back.
        close {conn}.
        `slot_ns(request)` is the namespace of the request's slot."""
        timeout = float(request.get("timeout_ms", 5000)) / 1000.0
        if op == "dns":
            try:
                ms, rcode, addresses = dns.query(
                    slot_ns(request), request["name"], request.get("type", "A"), timeout)
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

            sock, ms, error = in_ns(slot_ns(request), work)
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
            sender = None
            send_errors = []
            if op == "exchange":
                # Sent beside the reading: an echo of more than the sockets' buffers would
                # otherwise wait for itself.
                data = os.urandom(size)

                def send():
                    try:
                        sock.sendall(data)
                    except OSError as err:
                        send_errors.append(err)

                sender = threading.Thread(target=send, daemon=True)
                sender.start()
            got = 0
            while got < size:
                data = sock.recv(min(65536, size - got))
                if not data:
                    # A reset seen first by the sending thread leaves the reading side only
                    # the end of the stream (the kernel reports the error once): say the reset.
                    if sender is not None:
                        sender.join(timeout)
                    ms = (time.monotonic() - start) * 1000.0
                    if send_errors:
                        return {"got": got, "ms": ms, "error": error_name(send_errors[0])}
                    return {"got": got, "ms": ms, "error": "closed"}
                got += len(data)
            return {"got": got, "ms": (time.monotonic() - start) * 1000.0, "error": None}
        except OSError as err:
            return {"got": None, "ms": (time.monotonic() - start) * 1000.0,
                    "error": error_name(err)}
