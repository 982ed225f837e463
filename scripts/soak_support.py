"""What the soak scripts (blackhole-soak.py, integrity-soak.py) share: a free loopback port for
netsim to listen on, and a process's resident memory."""
import socket


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def resident_megabytes(pid):
    """VmRSS of `pid` in MB (fractional), 0 once the process is gone."""
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0
