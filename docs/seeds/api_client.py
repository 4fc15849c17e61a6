"""api_client.py -- the Python twin of chapters/07_io/examples/api_client.c.

The seed's APIClient (000_*.txt), transcribed so that it runs: it used
aiohttp, which CPython does not ship, and fetched three sites on the
internet. This twin keeps the seed's shape (a client class, a fetch per URL,
asyncio.gather, one session used as `async with`) on asyncio streams, with a
session of its own: one keep-alive connection per host, requests pipelined
on it, and host names looked up in the session's own table, never in DNS.
It starts its own server on 127.0.0.1 and prints what the C program prints,
on CPython 3.12 and 3.13:

    python3 api_client.py

(seed_api_client_aiohttp.py is the seed itself, on aiohttp, for a Python
that has it; Debian's python3-aiohttp does, for Debian's python3.)
"""
import asyncio
import os
import socket

URLS = [
    "http://api.example/",
    "http://api.example/posts",
    "http://api.example/users/1",
    "http://api.example/missing",
    "http://down.example/",
]

ROUTES = {
    "/": (200, "text/html", b"<html><body>taal's API</body></html>\n", False),
    "/posts": (200, "application/json",
               b'[{"id": 1, "title": "await"}, {"id": 2, "title": "readiness"}]\n', True),
    "/users/1": (200, "application/json", b'{"id": 1, "name": "Asha"}\n', False),
}
NOT_FOUND = (404, "text/plain", b"not found\n", False)
REASONS = {200: "OK", 404: "Not Found"}

served = {"connections": 0, "requests": 0}


async def handle(reader, writer):
    """The server: fixed responses, keep-alive, in request order."""
    served["connections"] += 1
    while True:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            break
        path = head.split(b" ")[1].decode()
        status, ctype, body, chunked = ROUTES.get(path, NOT_FOUND)
        lines = [f"HTTP/1.1 {status} {REASONS[status]}", f"Content-Type: {ctype}"]
        lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        writer.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if chunked else body)
        await writer.drain()
        served["requests"] += 1
    writer.close()
    await writer.wait_closed()


class Session:
    """aiohttp.ClientSession's part the seed uses: GET, one connection per host."""

    def __init__(self, hosts):
        self.hosts = hosts  # name -> (numeric address, port): no DNS
        self.connections = {}

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        for connecting, _ in self.connections.values():
            if connecting.done() and not connecting.exception():
                connecting.result()[1].close()

    async def get(self, url):
        host, _, path = url.removeprefix("http://").partition("/")
        if host not in self.connections:
            opening = asyncio.ensure_future(asyncio.open_connection(*self.hosts[host]))
            self.connections[host] = (opening, asyncio.Lock())
        connecting, turn = self.connections[host]
        reader, writer = await connecting
        # write, and take a place in the line of readers, with no await between
        writer.write(f"GET /{path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        async with turn:
            return await read_response(reader)


async def read_response(reader):
    headers = (await reader.readuntil(b"\r\n\r\n")).decode().split("\r\n")
    status = int(headers[0].split()[1])
    fields = {k.lower(): v for k, _, v in (h.partition(": ") for h in headers[1:] if h)}
    if fields.get("transfer-encoding") == "chunked":
        body = b""
        while size := int((await reader.readline()).strip(), 16):
            body += await reader.readexactly(size)
            await reader.readexactly(2)
        await reader.readexactly(2)
    else:
        body = await reader.readexactly(int(fields["content-length"]))
    return status, body.decode()


class APIClient:
    def __init__(self, urls, hosts):
        self.urls = urls
        self.hosts = hosts

    async def fetch(self, session, url):
        try:
            status, data = await session.get(url)
            return f"{url} से {len(data)} characters प्राप्त हुए"
        except Exception as e:
            return f"{url} से data fetch में error: {describe(e)}"

    async def run(self):
        async with Session(self.hosts) as session:
            tasks = [self.fetch(session, url) for url in self.urls]
            for line in await asyncio.gather(*tasks):
                print(line)


def describe(e):
    """The words taal_strerror() uses for the same failure."""
    if isinstance(e, ConnectionRefusedError):
        return "connection refused"
    return os.strerror(e.errno).lower() if getattr(e, "errno", None) else str(e)


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    down = socket.socket()  # bound, never listening: connections are refused
    down.bind(("127.0.0.1", 0))
    hosts = {"api.example": ("127.0.0.1", port),
             "down.example": ("127.0.0.1", down.getsockname()[1])}
    await APIClient(URLS, hosts).run()
    print(f"the server accepted {served['connections']} connection "
          f"and answered {served['requests']} requests")
    down.close()
    server.close()
    await server.wait_closed()


if __name__ == "__main__":
    asyncio.run(main())
