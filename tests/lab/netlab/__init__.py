"""The parts of the network lab; `tests/lab/netlab.py` is its command. Each module imports
only those listed before it:

    plan         the names of the namespaces, the addresses, names and ports of a lab
    namespaces   entering a namespace, `ip` commands, removing namespaces and stale labs
    frames       an IP frame as the relay reads it, and the TCP resets it forges
    rules        a rule: what it matches, what it does, its counters
    relay        the packet relay of the router namespace that applies the rules
    dns          DNS queries of the lab's own to its name server
    nameserver   dnsmasq in the server namespace, and the names of each slot
    services     the echo service and the forwarder of the sandbox's control calls
    probes       sockets in a slot's namespace for the lab's own tests
    lab          the lab: namespaces, veth pairs, slots, teardown, the control requests
    control      the control socket (one JSON request a line) and its client
    supervisor   `run` and `clean`: the lab's life from creation to teardown
"""
