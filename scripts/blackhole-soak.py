#!/usr/bin/env python3
"""What blackholed connections cost the proxy.

Opens N connections through `netsim run` to an echo server, one round trip each, then a
blackhole (admin API). Half the clients send what their socket takes (up to 256 KiB) into it;
the other half send 1 KiB and half-close. Prints netsim's resident memory at each step and how
many half-closed clients were failed within 5 s.

    scripts/blackhole-soak.py [NETSIM [CONNECTIONS]]     # default .build/debug/netsim, 1000
"""
import asyncio, json, os, socket, subprocess, sys, urllib.request

from soak_support import free_port, resident_megabytes

NETSIM = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/netsim"
CONNECTIONS = int(sys.argv[2]) if len(sys.argv) > 2 else 1000




async def echo(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (OSError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def until_closed(reader):
    try:
        await reader.read()
    except OSError:
        pass


async def main():
    listen, admin = free_port(), free_port()
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    upstream = server.sockets[0].getsockname()[1]
    netsim = subprocess.Popen(
        [NETSIM, "run", "--profile", "lte-good", "--listen", f"127.0.0.1:{listen}", "--upstream", f"127.0.0.1:{upstream}",
         "--admin", f"127.0.0.1:{admin}", "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    await asyncio.sleep(2)
    connections = [await asyncio.open_connection("127.0.0.1", listen) for _ in range(CONNECTIONS)]
    for _, writer in connections:
        writer.write(b"x" * 100)
    for reader, _ in connections:
        await asyncio.wait_for(reader.readexactly(100), 30)
    print(f"{CONNECTIONS} connections, one round trip each: RSS {resident_megabytes(netsim.pid):.1f} MB")

    outage = f"http://127.0.0.1:{admin}/outage?duration=1h&mode=blackhole"
    urllib.request.urlopen(urllib.request.Request(outage, method="POST")).read()
    await asyncio.sleep(1)
    closers, senders = connections[: CONNECTIONS // 2], connections[CONNECTIONS // 2 :]
    sent = 0
    for _, writer in senders:
        raw = socket.socket(fileno=os.dup(writer.get_extra_info("socket").fileno()))
        raw.setblocking(False)
        try:
            sent += raw.send(b"y" * 256 * 1024)
        except BlockingIOError:
            pass
        raw.close()
    await asyncio.sleep(5)
    print(f"blackholed; {len(senders)} clients sent {sent // 2**20} MiB into it: RSS {resident_megabytes(netsim.pid):.1f} MB")

    for _, writer in closers:
        writer.write(b"z" * 1024)
        writer.write_eof()
    done, _ = await asyncio.wait([asyncio.create_task(until_closed(reader)) for reader, _ in closers], timeout=5)
    print(f"{len(done)} of {len(closers)} clients that half-closed were failed within 5 s: RSS {resident_megabytes(netsim.pid):.1f} MB")
    status = json.loads(urllib.request.urlopen(f"http://127.0.0.1:{admin}/status").read())
    print(f"connections the proxy holds: {status.get('openConnections')} (the servers' sides are kept: they are never told)")

    netsim.terminate()
    netsim.wait()
    for _, writer in connections:
        writer.close()
    server.close()


asyncio.run(main())
