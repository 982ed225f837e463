"""Real servers and clients for the proxy front ends' end-to-end tests (FrontEndClientTests).

Servers listen on 127.0.0.1, port chosen by the system, write it to PORT_FILE and serve
until killed:
  http PORT_FILE [CERT KEY]   GET /payload?size=N answers N pattern bytes, and the request
                              target as it came in X-Request-Target; POST /echo answers its
                              body (Content-Length or chunked). With CERT and KEY, HTTPS.
  websocket PORT_FILE         echoes every message (python websockets).
  grpc PORT_FILE              /netsim.Echo/Echo echoes its request bytes (python grpcio).
Clients print OK and exit 0 when every byte came back intact:
  websocket-client SOCKS_PORT WS_PORT SIZE   through SOCKS5 (python-socks), the name
                                             `localhost` resolved by the proxy.
  grpc-client HTTP_PROXY_PORT GRPC_PORT SIZE through the HTTP proxy (grpc.http_proxy).
"""
import sys


def pattern(size):
    return bytes((index * 7 + 3) % 251 for index in range(size))


def write_port(path, port):
    with open(path + ".tmp", "w") as file:
        file.write(str(port))
    import os

    os.rename(path + ".tmp", path)


def http_server(port_file, cert=None, key=None):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from urllib.parse import parse_qs, urlparse

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            url = urlparse(self.path)
            size = int(parse_qs(url.query).get("size", ["0"])[0])
            body = pattern(size)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Request-Target", self.path)
            # What a proxy passed on: every Host header, and the hop-by-hop headers that reached here.
            self.send_header("X-Received-Host", ", ".join(self.headers.get_all("Host") or []))
            hop = [name for name in ("TE", "Upgrade", "Keep-Alive", "Proxy-Connection", "X-Hop") if name in self.headers]
            self.send_header("X-Received-Hop-By-Hop", ",".join(hop) or "none")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self):
            if "chunked" in self.headers.get("Transfer-Encoding", ""):
                body = b""
                while (size := int(self.rfile.readline().split(b";")[0], 16)) > 0:
                    body += self.rfile.read(size)
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
            else:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if cert:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    write_port(port_file, server.server_address[1])
    server.serve_forever()


def websocket_server(port_file):
    import asyncio

    from websockets.asyncio.server import serve

    async def echo(connection):
        async for message in connection:
            await connection.send(message)

    async def main():
        async with serve(echo, "127.0.0.1", 0, max_size=None, compression=None) as server:
            write_port(port_file, server.sockets[0].getsockname()[1])
            await asyncio.get_running_loop().create_future()

    asyncio.run(main())


def grpc_server(port_file):
    from concurrent import futures

    import grpc

    handler = grpc.method_handlers_generic_handler(
        "netsim.Echo", {"Echo": grpc.unary_unary_rpc_method_handler(lambda request, context: request)}
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), handlers=[handler])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    write_port(port_file, port)
    server.wait_for_termination()


def websocket_client(socks_port, ws_port, size):
    import asyncio

    from python_socks.async_.asyncio import Proxy
    from websockets.asyncio.client import connect

    async def main():
        proxy = Proxy.from_url(f"socks5://127.0.0.1:{socks_port}", rdns=True)
        sock = await proxy.connect(dest_host="localhost", dest_port=ws_port, timeout=10)
        payload = pattern(size)
        async with connect(f"ws://localhost:{ws_port}/", sock=sock, max_size=None, compression=None) as connection:
            for _ in range(3):
                await connection.send(payload)
                echoed = await asyncio.wait_for(connection.recv(), 30)
                if echoed != payload:
                    sys.exit(f"the echo differs: {len(echoed)} bytes")
        print("OK")

    asyncio.run(main())


def grpc_client(proxy_port, grpc_port, size):
    import grpc

    options = [("grpc.http_proxy", f"http://127.0.0.1:{proxy_port}"), ("grpc.max_receive_message_length", -1)]
    with grpc.insecure_channel(f"localhost:{grpc_port}", options=options) as channel:
        echo = channel.unary_unary("/netsim.Echo/Echo")
        payload = pattern(size)
        for _ in range(3):
            if echo(payload, timeout=30) != payload:
                sys.exit("the echo differs")
    print("OK")


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "http":
        http_server(*arguments)
    elif command == "websocket":
        websocket_server(*arguments)
    elif command == "grpc":
        grpc_server(*arguments)
    elif command == "websocket-client":
        websocket_client(int(arguments[0]), int(arguments[1]), int(arguments[2]))
    elif command == "grpc-client":
        grpc_client(int(arguments[0]), int(arguments[1]), int(arguments[2]))
    else:
        sys.exit(f"unknown command {command}")
