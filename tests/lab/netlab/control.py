"""The control socket: a Unix socket of the lab folder that takes one JSON request a line and
answers one JSON line (`{"ok": true, ...}`, or `{"ok": false, "error": ...}` for every
failure), and its client, `netlab.py ctl`."""

import json
import socket
import socketserver
import threading


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


def serve(path, lab):
    """Serves the requests to `lab` on the Unix socket `path`, on a thread of its own."""
    server = ControlServer(path, ControlHandler)
    server.lab = lab
    threading.Thread(target=server.serve_forever, daemon=True, name="control").start()


def ctl(path, request):
    """Sends one request (a JSON text) to the control socket `path` and prints the answer;
    returns the exit status (0 when the answer is ok)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sock.sendall(request.encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        data = sock.recv(65536)
        if not data:
            break
        reply += data
    print(reply.decode().strip())
    return 0 if json.loads(reply).get("ok") else 1
