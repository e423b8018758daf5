"""Ethernet frames as the relay reads them (an IP packet's addresses, protocol and ports) and
the TCP resets it forges."""

import struct


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
