"""The services the lab runs in the server namespace beside the sandbox: an echo service on
port 7 (for the lab's probes), a mute one on port 9 (it accepts and never says a word: a
server that never answers, a TLS handshake that stalls) and the forwarder of the sandbox's
control calls. Each start returns its listening socket: closing it ends the service."""

import os
import socket
import threading

from .namespaces import in_ns
from .plan import ECHO_PORT, MUTE_PORT, SANDBOX_CONTROL_PORT


def listen_on(server_ns, port):
    """A listening socket on `port` of every address (IPv6 and IPv4) of the server
    namespace."""

    def listen():
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(("::", port))
        sock.listen(64)
        return sock

    return in_ns(server_ns, listen)


def serve(sock, handle, name):
    """Accepts connections on `sock` until it is closed, each handled by `handle(conn)` on a
    thread of its own."""

    def accept():
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True, name=name).start()
    return sock


def start_mute(server_ns):
    """The mute service: every connection is accepted, read and never answered, until its
    client closes it."""

    def swallow(conn):
        with conn:
            while True:
                try:
                    if not conn.recv(65536):
                        return
                except OSError:
                    return

    return serve(listen_on(server_ns, MUTE_PORT), swallow, "mute")


def start_echo(server_ns):
    """The echo service: every connection gets back what it sends."""

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

    return serve(listen_on(server_ns, ECHO_PORT), echo, "echo")


def start_forwarder(directory, server_ns):
    """A Unix socket in the lab folder whose connections go on to 127.0.0.1:80 in the
    server namespace: the way in for the sandbox's control calls."""
    path = os.path.join(directory, "sandbox.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)

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
            upstream = in_ns(server_ns, lambda: socket.create_connection(
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
    return listener
