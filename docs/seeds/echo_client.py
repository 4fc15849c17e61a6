"""echo_client.py -- the Python twin of chapters/07_io/examples/echo_client.c:
every read of asyncio's StreamReader, against an echo server in the same
program that sends back everything until the end of the stream. Prints the
same on CPython 3.12 and 3.13."""
import asyncio
import socket

SENT = b"alpha\nbeta\ngamma delta\n"


async def echo(reader, writer):
    while data := await reader.read(256):
        writer.write(data)
        await writer.drain()
    writer.close()
    await writer.wait_closed()


async def main():
    host = "::1" if socket.has_ipv6 else "127.0.0.1"
    try:
        server = await asyncio.start_server(echo, host, 0)
    except OSError:
        host = "127.0.0.1"
        server = await asyncio.start_server(echo, host, 0)
    reader, writer = await asyncio.open_connection(host, server.sockets[0].getsockname()[1])
    writer.write(SENT)
    writer.write_eof()
    print(f"sent {len(SENT)} bytes in three lines, then the end of the stream")
    print("readline() ->", await reader.readline())
    print("readexactly(5) ->", await reader.readexactly(5))
    print("readuntil(b' ') ->", await reader.readuntil(b" "))
    print("read(64) ->", await reader.read(64))
    print("read(64) ->", await reader.read(64))
    try:
        await reader.readexactly(1)
    except asyncio.IncompleteReadError as e:
        print(f"readexactly(1) -> end of stream, after {len(e.partial)} bytes")
    writer.close()
    await writer.wait_closed()
    server.close()
    await server.wait_closed()


asyncio.run(main())
