#!/usr/bin/env python3
"""Bytes through the proxy are never lost, duplicated or reordered (a soak).

Runs `netsim run` on a hostile profile for SECONDS: a timeline repeating every 40 s with a
stall outage, a blackhole, a reset, a keep-mode handover and `set` steps; Gilbert-Elliott loss
and Pareto jitter; and random outages through the admin API. CLIENTS clients each make round
trips of random sizes through it to an echo server and check every byte (SHA-256 of what came
back against what was sent). A connection that dies is counted with its cause (reset or
silence: both are the profile's) and the client reconnects. Prints one line of figures:
connections, round trips, bytes, mismatches, deaths, peak and final resident memory.

    scripts/integrity-soak.py [NETSIM [SECONDS [CLIENTS]]]   # .build/debug/netsim, 120, 100

Exits 1 on any mismatch (bytes lost, duplicated or reordered within a connection).
"""
import asyncio, hashlib, json, os, random, socket, subprocess, sys, tempfile, time, urllib.request

from soak_support import free_port, resident_megabytes

NETSIM = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/netsim"
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 120
CLIENTS = int(sys.argv[3]) if len(sys.argv) > 3 else 100
# A silenced connection shows as a round trip that does not come back within this long.
ROUND_TRIP_TIMEOUT = 15

PROFILE = """name: soak
description: every condition the proxy has, repeating
start: lte
networks:
  lte:
    radio: lte
    link:
      delay: 30ms
      jitter: {amount: 20ms, distribution: pareto}
      loss: {model: gilbert-elliott, enterBad: 1%, leaveBad: 30%}
      down: {rate: 20mbps}
      up: {rate: 8mbps, queue: 256KiB}
  wifi:
    radio: wifi
    link: {delay: 5ms, loss: 0.5%, down: {rate: 40mbps}, up: {rate: 20mbps}}
timeline:
  repeat: 40s
  events:
    - at: 3s
      outage: {duration: 2s, mode: stall}
    - at: 8s
      set: {link: {delay: 80ms}}
    - at: 12s
      handover: {to: wifi, mode: keep, gap: 500ms}
    - at: 18s
      handover: {to: lte, mode: keep}
    - at: 22s
      outage: {duration: 1s, mode: blackhole}
    - at: 28s
      set: {link: {delay: 30ms}}
    - at: 32s
      outage: {duration: 1s, mode: reset}
"""




async def echo(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


class Tally:
    def __init__(self):
        self.connections = self.round_trips = self.bytes = self.mismatches = 0
        self.resets = self.silenced = 0


async def client(port, tally, deadline, seed):
    rng = random.Random(seed)
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.5)
            continue
        tally.connections += 1
        try:
            while time.monotonic() < deadline:
                payload = rng.randbytes(rng.choice([16, 300, 4000, 40000, 100000]))
                writer.write(payload)
                await writer.drain()
                echoed = await asyncio.wait_for(reader.readexactly(len(payload)), ROUND_TRIP_TIMEOUT)
                if hashlib.sha256(echoed).digest() != hashlib.sha256(payload).digest():
                    tally.mismatches += 1
                tally.round_trips += 1
                tally.bytes += 2 * len(payload)
                await asyncio.sleep(rng.uniform(0, 0.5))
        except asyncio.TimeoutError:
            tally.silenced += 1
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            tally.resets += 1
        finally:
            writer.close()


async def admin_outages(admin, deadline):
    rng = random.Random(7)
    while time.monotonic() < deadline:
        await asyncio.sleep(rng.uniform(5, 15))
        mode = rng.choice(["stall", "stall", "blackhole", "reset"])
        request = urllib.request.Request(f"http://127.0.0.1:{admin}/outage?duration=1s&mode={mode}", method="POST")
        try:
            await asyncio.to_thread(urllib.request.urlopen, request, timeout=5)
        except OSError:
            pass  # refused while another outage or a handover is on: the profile's rules


async def main():
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    echo_port = server.sockets[0].getsockname()[1]
    listen, admin = free_port(), free_port()
    profile = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    profile.write(PROFILE)
    profile.close()
    netsim = subprocess.Popen(
        [NETSIM, "run", "--quiet", "--profile", profile.name, "--listen", f":{listen}", "--upstream", f"127.0.0.1:{echo_port}",
         "--admin", f":{admin}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    await asyncio.sleep(1.5)
    tally = Tally()
    deadline = time.monotonic() + SECONDS
    peak = 0.0

    async def watch():
        nonlocal peak
        while time.monotonic() < deadline + ROUND_TRIP_TIMEOUT:
            peak = max(peak, resident_megabytes(netsim.pid))
            await asyncio.sleep(1)

    watcher = asyncio.create_task(watch())
    await asyncio.gather(admin_outages(admin, deadline), *(client(listen, tally, deadline, seed) for seed in range(CLIENTS)))
    watcher.cancel()
    final = resident_megabytes(netsim.pid)
    netsim.terminate()
    netsim.wait()
    os.unlink(profile.name)
    server.close()
    print(f"{SECONDS:.0f} s, {CLIENTS} clients: {tally.connections} connections, {tally.round_trips} round trips, "
          f"{tally.bytes / 1e6:.1f} MB checked, {tally.mismatches} mismatches; deaths by the profile: {tally.resets} reset, "
          f"{tally.silenced} silenced; netsim RSS peak {peak:.1f} MB, at the end {final:.1f} MB")
    return 1 if tally.mismatches else 0


sys.exit(asyncio.run(main()))
