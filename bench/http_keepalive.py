"""http_keepalive.py -- the Python twin of http.c (the scenario "http"; the
file is not called http.py, which would hide the standard library's `http`
package from every import in this folder). GET requests per second over one
keep-alive connection, one at a time and 16 at once, against an asyncio
streams server in the same loop. The client is the keep-alive session of
docs/seeds/api_client.py (asyncio streams, pipelined). With aiohttp
installed (Debian's python3-aiohttp, for Debian's python3), it also
measures aiohttp's ClientSession, limited to one connection (aiohttp does
not pipeline: requests wait for the connection). Usage:
http_keepalive.py [REQUESTS]."""
import asyncio
import sys
import time

BODY = b"h" * 128
RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 128\r\n\r\n" + BODY
WORKERS = 16
accepted = 0


async def handle(reader, writer):
    global accepted
    accepted += 1
    while True:
        try:
            await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            break
        writer.write(RESPONSE)
        await writer.drain()
    writer.close()


class Session:
    """One keep-alive connection, requests pipelined, responses in order."""

    def __init__(self, port):
        self.port = port
        self.conn = None

    async def get(self):
        if self.conn is None:
            self.conn = (asyncio.ensure_future(asyncio.open_connection("127.0.0.1", self.port)),
                         asyncio.Lock())
        connecting, turn = self.conn
        reader, writer = await connecting
        writer.write(b"GET / HTTP/1.1\r\nHost: bench.example\r\n\r\n")
        async with turn:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            return await reader.readexactly(length)


async def worker(get, n):
    for _ in range(n):
        assert len(await get()) == 128


async def measure(name, get, n):
    start = time.perf_counter()
    await worker(get, n)
    print(f"{prefix}requests_one_at_a_time {n / (time.perf_counter() - start):.6g} per_s")
    start = time.perf_counter()
    await asyncio.gather(*(worker(get, n // WORKERS) for _ in range(WORKERS)))
    print(f"{prefix}requests_16_at_once "
          f"{n // WORKERS * WORKERS / (time.perf_counter() - start):.6g} per_s")


async def main(n):
    global prefix
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    session = Session(port)
    prefix = ""
    await measure("asyncio", session.get, n)
    print(f"connections {accepted} count")
    session.conn[0].result()[1].close()
    await asyncio.sleep(0.01)  # the handler reads the end of the stream and ends
    try:
        import aiohttp
    except ImportError:
        print("# aiohttp is not installed for this Python: no aiohttp figures")
    else:
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(connector=connector) as s:
            async def get():
                async with s.get(f"http://127.0.0.1:{port}/") as response:
                    return await response.read()
            prefix = "aiohttp_"
            await measure("aiohttp", get, n)
        await asyncio.sleep(0.01)
    server.close()


prefix = ""
if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    print(f"# http: {n} GET requests, keep-alive, one at a time and 16 at once")
    asyncio.run(main(n))
