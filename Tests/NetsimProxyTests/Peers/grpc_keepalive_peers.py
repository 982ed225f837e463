"""A gRPC C-core client (python grpcio) holding an idle stream open through netsim, and the
keepalive PINGs that reach the server (GRPCKeepaliveTests).

  idle-streams HTTP_PROXY_PORT SECONDS CLIENTS_JSON
      Starts a grpcio server on 127.0.0.1 whose /netsim.Idle/Watch stream never sends. For each
      client of CLIENTS_JSON ({"name": {"grpc.channel_argument": integer, ...}, ...}), at once:
      a relay in front of the server that passes bytes both ways unchanged and notes the time
      of every HTTP/2 PING frame (not ACK) the client sends, and a grpcio client with those
      channel arguments that, through netsim's HTTP proxy (grpc.http_proxy), opens Watch and
      holds it idle for SECONDS. HTTP_PROXY_PORT 0: no proxy (a check of the peers themselves).
      Prints one JSON line: {"pings": {"name": [seconds after the stream opened, ...], ...}}.

The server accepts pings as often as 1 s (grpc.http2.min_recv_ping_interval_without_data_ms),
so no GOAWAY too_many_pings ends the stream: what is counted is what the client sends.
"""
import json
import socket
import sys
import threading
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
PING = 0x6
ACK = 0x1


class PingCounter:
    """Parses the client's HTTP/2 byte stream: the preface, then 9-byte frame headers."""

    def __init__(self):
        self.buffer = b""
        self.preface_seen = False
        self.pings = []
        self.lock = threading.Lock()

    def feed(self, data):
        self.buffer += data
        if not self.preface_seen:
            if len(self.buffer) < len(PREFACE):
                return
            if not self.buffer.startswith(PREFACE):
                raise ValueError("not an HTTP/2 client preface")
            self.buffer = self.buffer[len(PREFACE):]
            self.preface_seen = True
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[0:3], "big")
            if len(self.buffer) < 9 + length:
                return
            kind, flags = self.buffer[3], self.buffer[4]
            if kind == PING and not flags & ACK:
                with self.lock:
                    self.pings.append(time.monotonic())
            self.buffer = self.buffer[9 + length:]


def pump(source, target, counter=None):
    try:
        while data := source.recv(65536):
            if counter:
                counter.feed(data)
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def relay(listener, upstream_port, counter):
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        server = socket.create_connection(("127.0.0.1", upstream_port))
        threading.Thread(target=pump, args=(client, server, counter), daemon=True).start()
        threading.Thread(target=pump, args=(server, client), daemon=True).start()


def idle_streams(proxy_port, seconds, clients):
    from concurrent import futures

    import grpc

    def watch(request, context):
        while context.is_active():
            time.sleep(0.2)
        return iter(())

    handler = grpc.method_handlers_generic_handler("netsim.Idle", {"Watch": grpc.unary_stream_rpc_method_handler(watch)})
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        handlers=[handler],
        options=[
            ("grpc.keepalive_permit_without_calls", 1),
            ("grpc.http2.min_recv_ping_interval_without_data_ms", 1000),
            ("grpc.http2.max_ping_strikes", 0),
        ],
    )
    grpc_port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    results = {}

    def client(name, arguments):
        counter = PingCounter()
        listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=relay, args=(listener, grpc_port, counter), daemon=True).start()
        proxy = [("grpc.http_proxy", f"http://127.0.0.1:{proxy_port}")] if proxy_port else [("grpc.enable_http_proxy", 0)]
        options = proxy + [(key, int(value)) for key, value in arguments.items()]
        channel = grpc.insecure_channel(f"localhost:{listener.getsockname()[1]}", options=options)
        call = channel.unary_stream("/netsim.Idle/Watch")(b"", timeout=seconds + 30)
        # The stream is open once the server has its HEADERS: the call's initial metadata is
        # not sent by the idle server, so wait for the relay to have carried the request.
        deadline = time.monotonic() + 30
        while not counter.preface_seen and time.monotonic() < deadline:
            time.sleep(0.05)
        start = time.monotonic()
        time.sleep(seconds)
        call.cancel()
        channel.close()
        listener.close()
        with counter.lock:
            results[name] = [round(at - start, 2) for at in counter.pings if at >= start]

    threads = [threading.Thread(target=client, args=item) for item in clients.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"pings": results}), flush=True)
    server.stop(0)


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "idle-streams":
        idle_streams(int(arguments[0]), float(arguments[1]), json.loads(arguments[2]))
    else:
        sys.exit(f"unknown command {command}")
