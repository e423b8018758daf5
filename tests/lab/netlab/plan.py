"""The lab's plan: the names of its namespaces, its addresses, names and ports.

Addresses come from the ranges reserved for benchmarks (198.18.0.0/15, RFC 2544;
2001:2::/48, RFC 5180) and names from .test (RFC 2606); nothing leaves the namespaces.
Every namespace's name carries the supervisor's pid, so labs of several processes coexist.
"""

PREFIX = "vlab"
DOMAIN = "lab.test"
DNS_V4 = "198.18.0.53"
DNS_V6 = "2001:2::53"
ECHO_PORT = 7
MUTE_PORT = 9
SANDBOX_CONTROL_PORT = 80
MAX_SLOTS = 250


def ns_names(ident):
    """The router's and the server's namespace of the lab of supervisor `ident`."""
    return f"{PREFIX}{ident}r", f"{PREFIX}{ident}s"


def client_ns(ident, k):
    """The client namespace of slot `k`."""
    return f"{PREFIX}{ident}c{k}"


def slot_addresses(k):
    return {
        "client_v4": f"198.18.{k}.2",
        "client_v6": f"2001:2::{k:x}:2",
        "primary_v4": f"198.18.{k}.10",
        "mirror_v4": f"198.18.{k}.11",
        "dual_v4": f"198.18.{k}.12",
        "dual_v6": f"2001:2::{k:x}:12",
    }


def slot_names(k):
    """The server names of slot `k`, each resolving to its addresses of `slot_addresses`."""
    return {
        "primary": f"s{k}-primary.{DOMAIN}",
        "mirror": f"s{k}-mirror.{DOMAIN}",
        "dual": f"s{k}-dual.{DOMAIN}",
    }
