#!/usr/bin/env python3
"""Hostile peers for scripts/chaos.sh: each subcommand is one kind of client or server.

  refused N PORT               N connections, each read until the proxy closes or resets it
  leave N PORT BYTES           N connections that send BYTES without reading, then close
  flood N PORT SECONDS         N connections that send without pause for SECONDS, then close
  hold N PORT SECONDS TEXT     N connections that send TEXT (a half request) and wait SECONDS
  send-then-reset PORT BYTES   a server: sends BYTES to each client, then resets it (runs until killed)
  read-ending PORT             connects, reads to the end, prints "reset" or "eof" and the bytes read
  socks-name PORT NAME DPORT   a raw SOCKS5 CONNECT to NAME (Python escapes: "a\\x00b"), prints the reply code
  header-echo PORT             a server: answers each HTTP request with the Host and hop-by-hop headers it got
  http-raw PORT TEXT           sends TEXT (Python escapes) to an HTTP proxy, prints the answer's first header block
"""
import socket
import struct
import sys
import time


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


def refused(count, port):
    for _ in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=5)
            sock.recv(1)
        except OSError:
            pass
        finally:
            try:
                sock.close()
            except Exception:
                pass


def leave(count, port, size):
    socks = [connect(port) for _ in range(count)]
    chunk = b"x" * 65536
    deadline = time.time() + 5
    sent = [0] * count
    while time.time() < deadline and min(sent) < size:
        for index, sock in enumerate(socks):
            if sent[index] >= size:
                continue
            try:
                sent[index] += sock.send(chunk)
            except BlockingIOError:
                pass
        time.sleep(0.01)
    for sock in socks:
        sock.close()
    print(sum(sent))


def flood(count, port, seconds):
    socks = []
    for _ in range(count):
        try:
            socks.append(connect(port))
        except OSError:
            break
    chunk = b"y" * 16384
    deadline = time.time() + seconds
    while time.time() < deadline:
        for sock in socks:
            try:
                sock.send(chunk)
            except (BlockingIOError, OSError):
                pass
        time.sleep(0.05)
    for sock in socks:
        sock.close()
    print(len(socks))


def hold(count, port, seconds, text):
    socks = []
    for _ in range(count):
        try:
            sock = connect(port)
            sock.send(text.encode())
            socks.append(sock)
        except OSError:
            break
    time.sleep(seconds)
    for sock in socks:
        sock.close()
    print(len(socks))


def send_then_reset(port, size):
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(64)
    while True:
        client, _ = server.accept()
        client.sendall(b"z" * size)
        time.sleep(0.2)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()


def read_ending(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    total = 0
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                print("eof", total)
                return
            total += len(data)
    except ConnectionResetError:
        print("reset", total)
    except socket.timeout:
        print("timeout", total)


def socks_name(port, name, destination_port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"\x05\x01\x00")
    sock.recv(2)
    raw = name.encode("latin-1")
    sock.sendall(b"\x05\x01\x00\x03" + bytes([len(raw)]) + raw + struct.pack(">H", destination_port))
    reply = sock.recv(10)
    print(reply[1] if len(reply) > 1 else "closed")


def header_echo(port):
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hop = [n for n in ("TE", "Upgrade", "Keep-Alive", "Proxy-Connection") if n in self.headers]
            body = ("host=" + "|".join(self.headers.get_all("Host") or []) + " hop=" + (",".join(hop) or "none")).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    HTTPServer(("127.0.0.1", port), Handler).serve_forever()


def http_raw(port, text):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(text.encode("latin-1"))
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except socket.timeout:
        pass
    print(answer.decode("latin-1").replace("\r\n", " / ").strip())


def main():
    command, args = sys.argv[1], sys.argv[2:]
    if command == "refused":
        refused(int(args[0]), int(args[1]))
    elif command == "leave":
        leave(int(args[0]), int(args[1]), int(args[2]))
    elif command == "flood":
        flood(int(args[0]), int(args[1]), float(args[2]))
    elif command == "hold":
        hold(int(args[0]), int(args[1]), float(args[2]), args[3])
    elif command == "send-then-reset":
        send_then_reset(int(args[0]), int(args[1]))
    elif command == "read-ending":
        read_ending(int(args[0]))
    elif command == "socks-name":
        socks_name(int(args[0]), args[1].encode("latin-1").decode("unicode_escape"), int(args[2]))
    elif command == "header-echo":
        header_echo(int(args[0]))
    elif command == "http-raw":
        http_raw(int(args[0]), args[1].encode("latin-1").decode("unicode_escape"))
    else:
        sys.exit(f"unknown command {command}")


if __name__ == "__main__":
    main()
