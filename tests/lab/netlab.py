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
                                      a slot's client namespace (see netlab/probes.py)

A rule matches an IP packet when one of its `hosts` is its source or destination, its `port`
is the source or destination port, and its protocol is `proto` (absent fields match all).
Every matching rule applies: a black hole drops, a reset answers TCP with forged RSTs (both
ways), a stall holds ("hold": delivered when the stall ends) or drops ("drop") the packets,
delays add up (`up_ms` client to server, `down_ms` server to client), and `rate_kbps` queues
the packets behind each other at that rate. `for_ms` removes the rule after that time. ARP
and IPv6 neighbour discovery always pass at once, so a black-holed address still answers ARP
and SYNs leave and vanish.

This file is the command; its parts are the package `netlab/` beside it (its __init__.py
lists them), which `import netlab` finds before this file.
"""

import argparse
import sys

from netlab import control, supervisor


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
        return supervisor.run(args.dir)
    if args.command == "clean":
        return supervisor.clean()
    return control.ctl(args.socket, args.json)


if __name__ == "__main__":
    sys.exit(main())
