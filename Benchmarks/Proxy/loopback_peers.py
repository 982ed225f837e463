"""Loopback peers for the proxy benchmark: an asyncio echo server, a discard server, a
small-message ping-pong client, a bulk sender, and a client that holds many idle connections
open; for UDP, an echo server and a ping-pong client of datagrams. The ping-pong and bulk
clients reach their server directly, or with `socks5 TARGET_PORT` after them through netsim's
SOCKS5 front end on PORT (the handshake is not timed)."""
import asyncio
import socket
import statistics
import sys
import threading
import time


def connect(port, socks_target=None):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if socks_target is not None:
        connection.sendall(b"\x05\x01\x00")
        assert connection.recv(2) == b"\x05\x00"
        connection.sendall(b"\x05\x01\x00\x01\x7f\x00\x00\x01" + socks_target.to_bytes(2, "big"))
        reply = b""
        while len(reply) < 10:
            reply += connection.recv(10 - len(reply))
        assert reply[1] == 0, f"SOCKS5 reply {reply[1]}"
    return connection


def sink_server(port):
    """Reads and discards everything, one thread per connection."""
    listener = socket.create_server(("127.0.0.1", port), backlog=64)

    def drain(connection):
        buffer = bytearray(1 << 20)
        with connection:
            while connection.recv_into(buffer):
                pass

    while True:
        connection, _ = listener.accept()
        threading.Thread(target=drain, args=(connection,), daemon=True).start()


def bulk(port, seconds, socks_target=None):
    """Gbit/s of sending 1 MiB writes for `seconds`."""
    connection = connect(port, socks_target)
    chunk = b"x" * (1 << 20)
    sent = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        connection.sendall(chunk)
        sent += len(chunk)
    connection.close()
    return sent * 8 / elapsed / 1e9


async def echo_server(port):
    async def handle(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=16384)
    async with server:
        await server.serve_forever()


def ping_pong(port, count, size=64, socks_target=None):
    """Median and p99 round trip in microseconds of `count` small request/responses."""
    connection = connect(port, socks_target)
    payload = b"x" * size
    trips = []
    for _ in range(count):
        start = time.perf_counter()
        connection.sendall(payload)
        received = 0
        while received < size:
            received += len(connection.recv(size - received))
        trips.append((time.perf_counter() - start) * 1e6)
    connection.close()
    trips.sort()
    return statistics.median(trips), trips[int(len(trips) * 0.99)]


def udp_echo_server(port):
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", port))
    while True:
        data, address = server.recvfrom(65535)
        server.sendto(data, address)


def udp_ping_pong(port, count, size=64):
    """Median and p99 round trip in microseconds of `count` datagrams, each answered before
    the next is sent (a lost one would stop the run: loopback loses none)."""
    client = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    client.settimeout(5)
    client.connect(("127.0.0.1", port))
    payload = b"x" * size
    trips = []
    for _ in range(count):
        start = time.perf_counter()
        client.send(payload)
        client.recv(65535)
        trips.append((time.perf_counter() - start) * 1e6)
    trips.sort()
    return statistics.median(trips), trips[int(len(trips) * 0.99)]


async def hold_idle(port, count, seconds):
    """Opens `count` connections, checks each with one byte, and keeps them open."""
    connections = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        connections.append((reader, writer))
    for reader, writer in connections[:: max(1, count // 100)]:
        writer.write(b"!")
        await writer.drain()
        assert await reader.readexactly(1) == b"!"
    print(f"holding {len(connections)} connections", flush=True)
    await asyncio.sleep(seconds)


if __name__ == "__main__":
    command = sys.argv[1]
    socks_target = int(sys.argv[sys.argv.index("socks5") + 1]) if "socks5" in sys.argv else None
    if command == "echo":
        asyncio.run(echo_server(int(sys.argv[2])))
    elif command == "sink":
        sink_server(int(sys.argv[2]))
    elif command == "bulk":
        print(f"{bulk(int(sys.argv[2]), float(sys.argv[3]), socks_target):.2f}")
    elif command == "ping":
        median, p99 = ping_pong(int(sys.argv[2]), int(sys.argv[3]), socks_target=socks_target)
        print(f"{median:.1f} {p99:.1f}")
    elif command == "udp-echo":
        udp_echo_server(int(sys.argv[2]))
    elif command == "udp-ping":
        median, p99 = udp_ping_pong(int(sys.argv[2]), int(sys.argv[3]))
        print(f"{median:.1f} {p99:.1f}")
    elif command == "hold":
        asyncio.run(hold_idle(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
