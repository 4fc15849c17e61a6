"""echo.py -- the Python twin of echo.c: loopback echo of 64-byte messages,
round trips per second over 1 connection and over 100, on asyncio streams,
the server in a child process (fork) with a loop of its own, as in echo.c.
Usage: echo.py [ROUND_TRIPS [CONNECTIONS]]. With --uvloop (and uvloop
installed: Debian's python3-uvloop, for Debian's python3), both sides run
on uvloop's loop."""
import asyncio
import os
import signal
import sys
import time

MESSAGE = b"e" * 64


async def echo(reader, writer):
    while data := await reader.read(4096):
        writer.write(data)
        await writer.drain()
    writer.close()


async def client(port, n):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    for _ in range(n):
        writer.write(MESSAGE)
        await reader.readexactly(64)
    writer.close()
    await writer.wait_closed()


async def serve(pipe):
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    os.write(pipe, str(server.sockets[0].getsockname()[1]).encode())
    os.close(pipe)
    await asyncio.Event().wait()  # until SIGTERM


async def main(port, round_trips, connections):
    for conns, name in ((1, "round_trips_1_conn"), (connections, "round_trips_100_conns")):
        each = round_trips // conns
        start = time.perf_counter()
        await asyncio.gather(*(client(port, each) for _ in range(conns)))
        print(f"{name} {each * conns / (time.perf_counter() - start):.6g} per_s")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--uvloop"]
    if "--uvloop" in sys.argv:
        import uvloop
        uvloop.install()
    n = int(args[0]) if args else 20000
    conns = int(args[1]) if len(args) > 1 else 100
    print(f"# echo: {n} round trips of 64 bytes, over 1 connection and over {conns}",
          flush=True)
    r, w = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(r)
        signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
        asyncio.run(serve(w))
        os._exit(0)
    os.close(w)
    port = int(os.read(r, 16))
    os.close(r)
    try:
        asyncio.run(main(port, n, conns))
    finally:
        os.kill(child, signal.SIGTERM)
        os.waitpid(child, 0)
