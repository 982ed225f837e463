#!/usr/bin/env python3
"""Writes a large synthetic phone capture for scripts/bench-analyze.sh.

    make-bench-capture.py PACKETS OUT.pcap

Nanosecond pcap, Ethernet, snapshot length 128 (headers and the start of each payload, as
`tcpdump -s 128` keeps). The phone (10.0.0.2) runs sessions of eight interleaved connections to
a pool of 4096 servers: handshake, an HTTP request naming its host, a download of 1448-byte
segments at 20 Mbit/s with an ACK per two segments, FIN exchange. Sessions are separated by
pauses long enough for the radio to sleep now and then, so the radio model sees promotions,
tails and DRX as well as transfers. Deterministic (seeded); Benchmarks/Analyze uses it too.
"""
import random
import struct
import sys

SNAPLEN = 128
DEVICE = bytes([10, 0, 0, 2])
DEVICE_MAC = bytes([2, 0, 0, 0, 0, 2])
GATEWAY_MAC = bytes([2, 0, 0, 0, 0, 1])
SYN, ACK, PSH, FIN = 0x02, 0x10, 0x08, 0x01


def frame(src, dst, sport, dport, seq, ack, flags, payload_length, payload=b""):
    """The frame's captured bytes and its length on the wire (checksums left zero)."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4, flags, 65535, 0, 0)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + payload_length, 0, 0x4000, 64, 6, 0, src, dst)
    macs = GATEWAY_MAC + DEVICE_MAC if src == DEVICE else DEVICE_MAC + GATEWAY_MAC
    data = macs + b"\x08\x00" + ip + tcp + payload
    return data[:SNAPLEN], 54 + payload_length


def main():
    packets, path = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(1)
    out = open(path, "wb", buffering=1 << 22)
    out.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, SNAPLEN, 1))
    time_ns = 1_700_000_000 * 10**9
    written = 0
    port = 20000
    while written < packets:
        # A pause between sessions: mostly short, sometimes long enough for IDLE.
        time_ns += int((rng.uniform(12, 40) if rng.random() < 0.3 else rng.uniform(0.05, 2)) * 1e9)
        flows = []
        for _ in range(8):
            port = 20000 + (port - 19999) % 40000
            server = 0x5DB80000 | rng.randrange(4096)
            flows.append({
                "server": struct.pack("!I", server), "sport": port, "host": b"s%d.example.com" % (server & 0xFFF),
                "segments": rng.randrange(4, 120), "sent": 0, "c": rng.getrandbits(32), "s": rng.getrandbits(32),
            })
        records = []
        step = int(1448 * 8 / 20e6 * 1e9)
        for f in flows:
            src, dst, sp = DEVICE, f["server"], f["sport"]
            request = b"GET / HTTP/1.1\r\nHost: " + f["host"] + b"\r\n\r\n"
            records += [
                frame(src, dst, sp, 80, f["c"], 0, SYN, 0), frame(dst, src, 80, sp, f["s"], f["c"] + 1, SYN | ACK, 0),
                frame(src, dst, sp, 80, f["c"] + 1, f["s"] + 1, ACK, 0),
                frame(src, dst, sp, 80, f["c"] + 1, f["s"] + 1, PSH | ACK, len(request), request),
            ]
        # The downloads, interleaved segment by segment.
        active = list(flows)
        while active:
            for f in list(active):
                f["sent"] += 1
                seq = f["s"] + 1 + 1448 * (f["sent"] - 1)
                ack_client = f["c"] + 1 + 41
                records.append(frame(f["server"], DEVICE, 80, f["sport"], seq, ack_client, ACK, 1448, b"\x17" * 74))
                if f["sent"] % 2 == 0 or f["sent"] == f["segments"]:
                    records.append(frame(DEVICE, f["server"], f["sport"], 80, ack_client, seq + 1448, ACK, 0))
                if f["sent"] == f["segments"]:
                    active.remove(f)
        for f in flows:
            end = f["s"] + 1 + 1448 * f["segments"]
            records += [
                frame(DEVICE, f["server"], f["sport"], 80, f["c"] + 42, end, FIN | ACK, 0),
                frame(f["server"], DEVICE, 80, f["sport"], end, f["c"] + 43, FIN | ACK, 0),
                frame(DEVICE, f["server"], f["sport"], 80, f["c"] + 43, end + 1, ACK, 0),
            ]
        for data, length in records:
            if written == packets:
                break
            time_ns += step // 2
            out.write(struct.pack("<IIII", time_ns // 10**9, time_ns % 10**9, len(data), length))
            out.write(data)
            written += 1
    out.close()


if __name__ == "__main__":
    main()
