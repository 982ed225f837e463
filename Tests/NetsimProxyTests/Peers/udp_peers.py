"""UDP and QUIC peers for netsim's datagram tests: a UDP echo server, an HTTP/3 server
(aioquic), and their clients, directly or through a SOCKS5 UDP ASSOCIATE (RFC 1928 section 7).

    udp_peers.py echo-server PORT_FILE
    udp_peers.py echo-client PORT COUNT SIZE [--socks5 PORT] [--gap SECONDS]
    udp_peers.py h3-server PORT_FILE STATS_FILE CERT KEY
    udp_peers.py h3-client PORT PATH CAFILE [--socks5 PORT]
    udp_peers.py socks5-probe PROXY_PORT TARGET_PORT
    udp_peers.py dns-server PORT_FILE
    udp_peers.py send-one HOST PORT SIZE
    udp_peers.py dns-query PORT NAME [--socks5 PORT]

Servers write the port they listen on to PORT_FILE once they listen. Clients print one JSON
object: what they sent and got back, and how long it took.
"""

import asyncio
import json
import os
import socket
import struct
import sys
import time


def write_port(path, port):
    with open(path + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(path + ".tmp", path)


def pattern(size):
    return bytes((i * 7 + 3) % 251 for i in range(size))


# SOCKS5 UDP ASSOCIATE: the TCP handshake, and the header before each datagram.


def socks5_associate(proxy_port, username=None):
    """Asks the SOCKS5 front end for a UDP relay; returns the TCP connection (which keeps the
    relay alive) and the relay's address."""
    control = socket.create_connection(("127.0.0.1", proxy_port), timeout=10)
    if username is None:
        control.sendall(b"\x05\x01\x00")
        assert control.recv(2) == b"\x05\x00"
    else:
        control.sendall(b"\x05\x01\x02")
        assert control.recv(2) == b"\x05\x02"
        user = username.encode()
        control.sendall(b"\x01" + bytes([len(user)]) + user + b"\x01x")
        assert control.recv(2) == b"\x01\x00"
    control.sendall(b"\x05\x03\x00\x01" + socket.inet_aton("0.0.0.0") + struct.pack(">H", 0))
    reply = control.recv(10)
    if len(reply) < 10 or reply[1] != 0:
        raise RuntimeError("UDP ASSOCIATE refused: %r" % reply)
    return control, (socket.inet_ntoa(reply[4:8]), struct.unpack(">H", reply[8:10])[0])


def socks5_header(host, port, fragment=0):
    try:
        address = b"\x01" + socket.inet_aton(host)
    except OSError:
        name = host.encode()
        address = b"\x03" + bytes([len(name)]) + name
    return b"\x00\x00" + bytes([fragment]) + address + struct.pack(">H", port)


def socks5_strip(data):
    """The payload and source of a datagram from the relay."""
    kind = data[3]
    if kind == 1:
        host, rest = socket.inet_ntoa(data[4:8]), data[8:]
    elif kind == 4:
        host, rest = socket.inet_ntop(socket.AF_INET6, data[4:20]), data[20:]
    else:
        length = data[4]
        host, rest = data[5 : 5 + length].decode(), data[5 + length :]
    return rest[2:], (host, struct.unpack(">H", rest[:2])[0])


# A UDP echo server that says which source port each datagram came from.


def udp_server(port_file):
    """A UDP socket on a port of loopback the system chose, written to PORT_FILE."""
    server = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    server.bind(("127.0.0.1", 0))
    write_port(port_file, server.getsockname()[1])
    return server


def echo_server(port_file):
    server = udp_server(port_file)
    while True:
        data, address = server.recvfrom(65535)
        # Echoes the datagram, ending with the source port the server saw.
        server.sendto(data + struct.pack(">H", address[1]), address)


def echo_client(port, count, size, socks5=None, gap=0.0):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(2)
    control = None
    target = ("127.0.0.1", port)
    if socks5 is not None:
        control, relay = socks5_associate(socks5)
    received, intact, ports, rtts = 0, 0, [], []
    for index in range(count):
        payload = struct.pack(">I", index) + pattern(size - 4)
        started = time.monotonic()
        if control is None:
            sock.sendto(payload, target)
        else:
            sock.sendto(socks5_header(*target) + payload, relay)
        try:
            while True:
                data, _ = sock.recvfrom(65535)
                if control is not None:
                    data, _ = socks5_strip(data)
                if data[:4] == struct.pack(">I", index):
                    break
        except socket.timeout:
            continue
        received += 1
        rtts.append(time.monotonic() - started)
        intact += data[:-2] == payload
        ports.append(struct.unpack(">H", data[-2:])[0])
        if gap:
            time.sleep(gap)
    rtts.sort()
    print(
        json.dumps(
            {
                "sent": count,
                "received": received,
                "intact": intact,
                "serverSawPorts": ports,
                "medianRoundTrip": rtts[len(rtts) // 2] if rtts else None,
            }
        )
    )


def send_one(host, port, size):
    """Sends one datagram of `size` bytes to HOST (IPv6 carries up to 65,527: more than IPv4)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_DGRAM)
    sent = sock.sendto(pattern(size), (host, port))
    print(json.dumps({"sent": sent}))


def socks5_probe(proxy_port, target_port):
    """What the relay does with datagrams it must drop or look up: a fragment, one from
    another port, a destination by name, and one to netsim's own listener."""
    control, relay = socks5_associate(proxy_port)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(1.5)
    results = {}

    def exchange(name, header, payload, via=sock):
        via.sendto(header + payload, relay)
        try:
            data, _ = sock.recvfrom(65535)
            results[name] = socks5_strip(data)[0][:-2] == payload
        except socket.timeout:
            results[name] = None

    exchange("byAddress", socks5_header("127.0.0.1", target_port), b"first")
    exchange("byName", socks5_header("localhost", target_port), b"named")
    exchange("fragment", socks5_header("127.0.0.1", target_port, fragment=1), b"fragment")
    exchange("ownListener", socks5_header("127.0.0.1", proxy_port), b"to netsim")
    stranger = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    stranger.sendto(socks5_header("127.0.0.1", target_port) + b"stranger", relay)
    try:
        stranger.settimeout(1.5)
        stranger.recvfrom(65535)
        results["stranger"] = True
    except socket.timeout:
        results["stranger"] = None
    exchange("afterwards", socks5_header("127.0.0.1", target_port), b"still")
    control.close()
    print(json.dumps(results))


# DNS: a stub resolver that answers every A query with 192.0.2.1 (TEST-NET-1, RFC 5737), and a
# client that asks it one question, as a phone's resolver does (RFC 1035 section 4).


def dns_server(port_file):
    server = udp_server(port_file)
    while True:
        query, address = server.recvfrom(512)
        end = 12
        while query[end] != 0:
            end += query[end] + 1
        question = query[12 : end + 5]
        header = query[:2] + b"\x81\x80" + b"\x00\x01\x00\x01\x00\x00\x00\x00"
        answer = b"\xc0\x0c\x00\x01\x00\x01" + struct.pack(">IH", 60, 4) + socket.inet_aton("192.0.2.1")
        server.sendto(header + question + answer, address)


def dns_query(port, name, socks5=None):
    identifier = os.getpid() & 0xFFFF
    question = b"".join(bytes([len(label)]) + label.encode() for label in name.split(".")) + b"\x00\x00\x01\x00\x01"
    query = struct.pack(">HHHHHH", identifier, 0x0100, 1, 0, 0, 0) + question
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(5)
    target = ("127.0.0.1", port)
    started = time.monotonic()
    if socks5 is None:
        sock.sendto(query, target)
        reply, _ = sock.recvfrom(512)
    else:
        control, relay = socks5_associate(socks5)
        sock.sendto(socks5_header(*target) + query, relay)
        reply, _ = socks5_strip(sock.recvfrom(512)[0])
        control.close()
    seconds = time.monotonic() - started
    assert struct.unpack(">H", reply[:2])[0] == identifier and reply[3] & 0x0F == 0, reply
    print(json.dumps({"answer": socket.inet_ntoa(reply[-4:]), "seconds": seconds}))


# HTTP/3 with aioquic.


def h3_server(port_file, stats_file, cert, key, idle=60.0):
    from aioquic.asyncio import QuicConnectionProtocol, serve
    from aioquic.h3.connection import H3_ALPN, H3Connection
    from aioquic.h3.events import HeadersReceived
    from aioquic.quic.configuration import QuicConfiguration
    from aioquic.quic.events import ProtocolNegotiated

    stats = {"connections": 0, "addresses": []}

    def save():
        with open(stats_file + ".tmp", "w") as f:
            json.dump(stats, f)
        os.rename(stats_file + ".tmp", stats_file)

    class Server(QuicConnectionProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.h3 = None
            stats["connections"] += 1
            save()

        def datagram_received(self, data, addr):
            seen = "%s:%d" % (addr[0], addr[1])
            if seen not in stats["addresses"]:
                stats["addresses"].append(seen)
                save()
            super().datagram_received(data, addr)

        def quic_event_received(self, event):
            if isinstance(event, ProtocolNegotiated) and event.alpn_protocol in H3_ALPN:
                self.h3 = H3Connection(self._quic)
            if self.h3 is None:
                return
            for h3_event in self.h3.handle_event(event):
                if isinstance(h3_event, HeadersReceived):
                    path = dict(h3_event.headers).get(b":path", b"/").decode()
                    size = int(path.split("size=")[1]) if "size=" in path else 0
                    self.h3.send_headers(h3_event.stream_id, [(b":status", b"200"), (b"content-length", str(size).encode())])
                    self.h3.send_data(h3_event.stream_id, pattern(size), end_stream=True)
                    self.transmit()

    async def main():
        configuration = QuicConfiguration(is_client=False, alpn_protocols=H3_ALPN, idle_timeout=idle)
        configuration.load_cert_chain(cert, key)
        server = await serve("127.0.0.1", 0, configuration=configuration, create_protocol=Server)
        write_port(port_file, server._transport.get_extra_info("sockname")[1])
        await asyncio.Future()

    asyncio.run(main())


def h3_client(port, path, cafile, socks5=None):
    from aioquic.asyncio import QuicConnectionProtocol
    from aioquic.asyncio.client import connect
    from aioquic.h3.connection import H3_ALPN, H3Connection
    from aioquic.h3.events import DataReceived, HeadersReceived
    from aioquic.quic.configuration import QuicConfiguration
    from aioquic.quic.connection import QuicConnection

    class Client(QuicConnectionProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.h3 = H3Connection(self._quic)
            self.responses = {}

        def quic_event_received(self, event):
            for h3_event in self.h3.handle_event(event):
                if isinstance(h3_event, (HeadersReceived, DataReceived)):
                    waiter, body = self.responses[h3_event.stream_id]
                    if isinstance(h3_event, DataReceived):
                        body.extend(h3_event.data)
                    if h3_event.stream_ended and not waiter.done():
                        waiter.set_result(bytes(body))

        async def get(self, path):
            stream = self._quic.get_next_available_stream_id()
            self.h3.send_headers(
                stream,
                [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", b"localhost"), (b":path", path.encode())],
                end_stream=True,
            )
            waiter = asyncio.get_running_loop().create_future()
            self.responses[stream] = (waiter, bytearray())
            self.transmit()
            return await waiter

    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name="localhost", idle_timeout=60)
    configuration.load_verify_locations(cafile)
    size = int(path.split("size=")[1]) if "size=" in path else 0

    async def fetch(client):
        started = time.monotonic()
        body = await asyncio.wait_for(client.get(path), 120)
        return {"bytes": len(body), "intact": body == pattern(size), "seconds": time.monotonic() - started}

    async def direct():
        async with connect("127.0.0.1", port, configuration=configuration, create_protocol=Client) as client:
            return await fetch(client)

    async def through_socks5():
        # aioquic's connection, its datagrams wrapped in SOCKS5 UDP headers to the relay.
        control, relay = socks5_associate(socks5)
        target = ("127.0.0.1", port)

        class Wrapped(asyncio.DatagramProtocol):
            def __init__(self, inner):
                self.inner = inner

            def connection_made(self, transport):
                self.inner.connection_made(Relayed(transport))

            def datagram_received(self, data, addr):
                payload, source = socks5_strip(data)
                self.inner.datagram_received(payload, source)

            def error_received(self, exc):
                pass

        class Relayed:
            def __init__(self, transport):
                self.transport = transport

            def sendto(self, data, addr):
                self.transport.sendto(socks5_header(*addr) + data, relay)

            def close(self):
                self.transport.close()

            def get_extra_info(self, name, default=None):
                return self.transport.get_extra_info(name, default)

        client = Client(QuicConnection(configuration=configuration))
        transport, _ = await asyncio.get_running_loop().create_datagram_endpoint(
            lambda: Wrapped(client), local_addr=("127.0.0.1", 0)
        )
        try:
            client.connect(target)
            await asyncio.wait_for(client.wait_connected(), 30)
            return await fetch(client)
        finally:
            client.close()
            transport.close()
            control.close()

    result = asyncio.run(through_socks5() if socks5 is not None else direct())
    print(json.dumps(result))


def quic_keepalive(port, cafile, seconds, ping, idle):
    """An idle HTTP/3 connection kept by PINGs, as a push app keeps its stream: it connects,
    makes one request, then sends a PING `ping` seconds after the last one was acknowledged
    (aioquic has no PING timer: `QuicConnectionProtocol.ping()` is the app's), for `seconds`.
    Prints the PINGs sent and answered, and whether the connection ended on its own.

    It ends without closing the connection, as an app the phone suspends: the model it is held
    against keeps its connection to the end, so a CONNECTION_CLOSE at the deadline would be one
    packet (on WiFi, one promotion) the model never sends."""
    from aioquic.asyncio import QuicConnectionProtocol
    from aioquic.asyncio.client import connect
    from aioquic.h3.connection import H3_ALPN, H3Connection
    from aioquic.quic.configuration import QuicConfiguration
    from aioquic.quic.events import ConnectionTerminated

    class Client(QuicConnectionProtocol):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.h3 = H3Connection(self._quic)
            self.terminated = False

        def quic_event_received(self, event):
            if isinstance(event, ConnectionTerminated):
                self.terminated = True
            for _ in self.h3.handle_event(event):
                pass

    configuration = QuicConfiguration(is_client=True, alpn_protocols=H3_ALPN, server_name="localhost", idle_timeout=idle)
    configuration.load_verify_locations(cafile)

    async def main():
        result = {"pings": 0, "answered": 0, "terminated": False}
        async with connect("127.0.0.1", port, configuration=configuration, create_protocol=Client) as client:
            stream = client._quic.get_next_available_stream_id()
            client.h3.send_headers(
                stream,
                [(b":method", b"GET"), (b":scheme", b"https"), (b":authority", b"localhost"), (b":path", b"/events")],
                end_stream=True,
            )
            client.transmit()
            deadline = time.monotonic() + seconds
            while time.monotonic() + ping < deadline and not client.terminated:
                await asyncio.sleep(ping)
                result["pings"] += 1
                try:
                    await asyncio.wait_for(client.ping(), idle)
                    result["answered"] += 1
                except (asyncio.TimeoutError, ConnectionError):
                    pass
            await asyncio.sleep(max(0, deadline - time.monotonic()))
            result["terminated"] = client.terminated
            print(json.dumps(result), flush=True)
            # Leaving `connect` would send the CONNECTION_CLOSE.
            os._exit(0)

    asyncio.run(main())


def option(arguments, name, default=None, kind=int):
    if name in arguments:
        index = arguments.index(name)
        value = kind(arguments[index + 1])
        del arguments[index : index + 2]
        return value
    return default


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    socks5 = option(arguments, "--socks5")
    gap = option(arguments, "--gap", 0.0, float)
    if command == "echo-server":
        echo_server(arguments[0])
    elif command == "echo-client":
        echo_client(int(arguments[0]), int(arguments[1]), int(arguments[2]), socks5=socks5, gap=gap)
    elif command == "send-one":
        send_one(arguments[0], int(arguments[1]), int(arguments[2]))
    elif command == "socks5-probe":
        socks5_probe(int(arguments[0]), int(arguments[1]))
    elif command == "dns-server":
        dns_server(arguments[0])
    elif command == "dns-query":
        dns_query(int(arguments[0]), arguments[1], socks5=socks5)
    elif command == "h3-server":
        h3_server(*arguments[:4], idle=option(arguments, "--idle", 60.0, float))
    elif command == "h3-client":
        h3_client(int(arguments[0]), arguments[1], arguments[2], socks5=socks5)
    elif command == "quic-keepalive":
        quic_keepalive(int(arguments[0]), arguments[1], float(arguments[2]), float(arguments[3]), float(arguments[4]))
    else:
        sys.exit("unknown command " + command)
