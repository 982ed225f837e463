"""Loopback peers for the proxy benchmark: an asyncio echo server, a small-message ping-pong
client, and a client that holds many idle connections open."""
import asyncio
import socket
import statistics
import sys
import time


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


def ping_pong(port, count, size=64):
    """Median and p99 round trip in microseconds of `count` small request/responses."""
    connection = socket.create_connection(("127.0.0.1", port))
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
    if command == "echo":
        asyncio.run(echo_server(int(sys.argv[2])))
    elif command == "ping":
        median, p99 = ping_pong(int(sys.argv[2]), int(sys.argv[3]))
        print(f"{median:.1f} {p99:.1f}")
    elif command == "hold":
        asyncio.run(hold_idle(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
