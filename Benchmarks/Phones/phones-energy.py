"""Many phones in one `netsim run`, against one-phone runs of the same traffic.

Usage: python3 Benchmarks/Phones/phones-energy.py [NETSIM] [PHONES] [SAMPLES]

Runs `netsim run --profile lte-good --phones PHONES --socks5` for 40 s with a SOCKS5 client
per phone (username phone-K), each making the same three 1 KiB echo round trips 6 s apart, and
reads each phone's report (run.phone-K.json). Then, for SAMPLES phones spread over the run
(first, last and between), a one-phone run with that phone's seed (SEED + K - 1) and the same
client: each phone's energy, wake time and promotions beside its one-phone run's, and the peak
RSS of both kinds of run (so RSS per phone: the difference over PHONES - 1). Defaults: the
debug build, 100 phones, 5 samples. Linux (/usr/bin/time -v for the RSS).
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

NETSIM = sys.argv[1] if len(sys.argv) > 1 else ".build/debug/netsim"
PHONES = int(sys.argv[2]) if len(sys.argv) > 2 else 100
SAMPLES = int(sys.argv[3]) if len(sys.argv) > 3 else 5
SEED = 1
DURATION = "40s"
UPSTREAM_PORT, SOCKS_PORT = 18290, 18291
ROUND_TRIPS, GAP, PAYLOAD = 3, 6.0, 1024


def echo_server():
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", UPSTREAM_PORT))
    server.listen(1024)

    def serve(connection):
        with connection:
            while data := connection.recv(65536):
                connection.sendall(data)

    def accept():
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def read_exactly(connection, count):
    data = b""
    while len(data) < count:
        chunk = connection.recv(count - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {count} bytes")
        data += chunk
    return data


def client(phone, failures):
    """Phone `phone`'s traffic: SOCKS5 with username phone-K, then the round trips."""
    try:
        connection = socket.create_connection(("127.0.0.1", SOCKS_PORT), timeout=30)
        name = f"phone-{phone}".encode()
        connection.sendall(bytes([5, 1, 2]))
        assert read_exactly(connection, 2) == bytes([5, 2])
        connection.sendall(bytes([1, len(name)]) + name + bytes([1]) + b"x")
        assert read_exactly(connection, 2) == bytes([1, 0])
        connection.sendall(bytes([5, 1, 0, 1, 127, 0, 0, 1]) + UPSTREAM_PORT.to_bytes(2, "big"))
        reply = read_exactly(connection, 10)
        assert reply[1] == 0, f"SOCKS5 reply {reply[1]}"
        payload = bytes(range(256)) * (PAYLOAD // 256)
        for index in range(ROUND_TRIPS):
            if index:
                time.sleep(GAP)
            connection.sendall(payload)
            assert read_exactly(connection, len(payload)) == payload
        connection.close()
    except Exception as error:  # noqa: BLE001 - every failure is reported, none is fatal here
        failures.append(f"phone {phone}: {error}")


def run(phones, seed, users, report):
    """One `netsim run` with a client per entry of `users` (phone numbers); its peak RSS in KiB."""
    command = ["/usr/bin/time", "-v", NETSIM, "run", "--profile", "lte-good", "--phones", str(phones), "--seed", str(seed),
               "--socks5", f":{SOCKS_PORT}", "--duration", DURATION, "--report", report, "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", SOCKS_PORT), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    failures = []
    threads = [threading.Thread(target=client, args=(user, failures)) for user in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _, errors = process.communicate(timeout=120)
    if failures or process.returncode != 0:
        raise SystemExit(f"run of {phones} phone(s) failed: {failures[:3]} {errors[-2000:]}")
    return next(int(line.split()[-1]) for line in errors.splitlines() if "Maximum resident set size" in line)


def figures(path):
    with open(path) as file:
        report = json.load(file)
    radio = report["radio"]
    return radio["energyJoules"], radio["wakeSeconds"], radio["promotions"], report["bytes"]["up"]


def main():
    echo_server()
    work = tempfile.mkdtemp()
    many_rss = run(PHONES, SEED, list(range(1, PHONES + 1)), os.path.join(work, "run.json"))
    samples = sorted({1, PHONES} | {1 + index * (PHONES - 1) // max(1, SAMPLES - 1) for index in range(SAMPLES)})
    print(f"{PHONES} phones in one run: peak RSS {many_rss / 1024:.1f} MiB")
    print("phone  energy (J) of N / of 1    diff     wake (s) of N / of 1   promotions  bytes up")
    worst = 0.0
    one_rss = []
    for phone in samples:
        one = os.path.join(work, f"one-{phone}.json")
        # Phone K of the many has seed SEED + K - 1: the one-phone run gets that seed, and its
        # client names phone-1 (a one-phone run takes any name).
        one_rss.append(run(1, SEED + phone - 1, [1], one))
        energy, wake, promotions, up = figures(os.path.join(work, f"run.phone-{phone}.json"))
        alone_energy, alone_wake, alone_promotions, alone_up = figures(one)
        difference = abs(energy - alone_energy) / alone_energy
        worst = max(worst, difference)
        print(f"{phone:<6} {energy:10.3f} / {alone_energy:<10.3f} {difference * 100:6.2f}%  "
              f"{wake:8.2f} / {alone_wake:<8.2f}     {promotions} / {alone_promotions}       {up} / {alone_up}")
    single = sorted(one_rss)[len(one_rss) // 2]
    print(f"largest energy difference: {worst * 100:.2f}%")
    print(f"one phone: peak RSS {single / 1024:.1f} MiB (median of {len(one_rss)}); "
          f"per further phone: {(many_rss - single) / (PHONES - 1):.0f} KiB")


if __name__ == "__main__":
    main()
