"""slow_client.py -- the Python twin of chapters/07_io/examples/slow_client.c:
back-pressure on a server whose client does not read. The server writes a
32 MiB body in pieces of 16 KiB, draining after each, and counts how often
drain had to wait and how much its transport ever buffered. Prints the same
on CPython 3.12 and 3.13."""
import asyncio

BLOCK = b"x" * 65536
BLOCKS = 512
PIECE = 16384
HIGH = 65536  # asyncio's default high-water mark, as taal's
site = {"drains": 0, "peak": 0, "requests": 0, "error": None}
REQUEST = b"GET /big HTTP/1.1\r\nHost: localhost\r\n\r\n"


async def serve(reader, writer):
    try:
        while True:
            try:
                await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                break
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: %d\r\n\r\n" % (BLOCK.__len__() * BLOCKS))
            for _ in range(BLOCKS):
                for off in range(0, len(BLOCK), PIECE):
                    writer.write(BLOCK[off:off + PIECE])
                    size = writer.transport.get_write_buffer_size()
                    site["peak"] = max(site["peak"], size)
                    if size > HIGH:
                        site["drains"] += 1
                    await writer.drain()
            site["requests"] += 1
    except (ConnectionResetError, BrokenPipeError) as e:
        site["error"] = e
    writer.close()


def yes_no(b):
    return "yes" if b else "no"


async def main():
    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(REQUEST)
    line = await reader.readline()
    print(f"client: {line.decode().rstrip()}")
    print("client: not reading for a second")
    await asyncio.sleep(1)
    print(f"server: waiting in drain: {yes_no(site['drains'] > 0)}")
    print("server: never held more than 64 KiB + one 16 KiB piece:",
          yes_no(site["peak"] <= HIGH + PIECE))
    print("client: buffer full, not reading ahead:",
          yes_no(len(reader._buffer) >= 65536))  # asyncio's limit, 64 KiB
    while len(await reader.readline()) > 2:
        pass
    total = 0
    while total < len(BLOCK) * BLOCKS:
        data = await reader.read(65536)
        if not data:
            break
        total += len(data)
    print(f"client: read all {total >> 20} MiB once it read again")
    writer.close()
    await writer.wait_closed()

    print("-- a client that hangs up without reading --")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(REQUEST)
    await reader.readline()
    writer.transport.abort()
    server.close()
    await server.wait_closed()
    print("server: the handler gave up with an error:", yes_no(site["error"] is not None))
    print(f"server: answered {site['requests']} of 2 requests in full")


asyncio.run(main())
