"""echo_server.py -- the Python twin of chapters/07_io/examples/echo_server.c:
asyncio's TCP echo server (the example of the streams documentation), with
three clients, one after another, in the same program. Prints the same on
CPython 3.12 and 3.13."""
import asyncio

MESSAGES = ["Hello, World!", "नमस्ते", "bye"]
connections = 0


async def handle_echo(reader, writer):
    global connections
    connections += 1
    number = connections
    data = await reader.read(100)
    print(f"server: connection {number} sent '{data.decode()}'")
    writer.write(data)
    await writer.drain()
    writer.close()
    await writer.wait_closed()


async def tcp_echo_client(port, i):
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(MESSAGES[i].encode())
    data = await reader.read(100)
    print(f"client {i + 1}: '{data.decode()}' came back")
    writer.close()
    await writer.wait_closed()


async def main():
    server = await asyncio.start_server(handle_echo, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print("echo server on 127.0.0.1, on a port the kernel chose")
    for i in range(len(MESSAGES)):
        await tcp_echo_client(port, i)
    server.close()
    await server.wait_closed()
    print(f"server closed after {connections} connections")


asyncio.run(main())
