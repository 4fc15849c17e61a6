"""seed_api_client_local.py -- the seed's APIClient, unchanged but for its
URLs, on aiohttp, against api_client.py's server on 127.0.0.1. aiohttp is not
part of CPython; Debian's python3-aiohttp provides it for Debian's python3
(3.11), so run it with that one:

    /usr/bin/python3 docs/seeds/seed_api_client_local.py

It prints the seed's lines as each fetch finishes, in whatever order the
fetches finish, and aiohttp's own error text; api_client.c and
api_client.py print in URL order, with taal's error names."""
import asyncio
import socket

import aiohttp
from aiohttp.abc import AbstractResolver

import api_client  # the server and the routes of the twin


class APIClient:
    def __init__(self, urls):
        self.urls = urls

    async def fetch(self, session, url):
        try:
            async with session.get(url) as response:
                data = await response.text()
                print(f"{url} से {len(data)} characters प्राप्त हुए")
        except Exception as e:
            print(f"{url} से data fetch में error: {e}")

    async def run(self, resolver):
        connector = aiohttp.TCPConnector(resolver=resolver)
        async with aiohttp.ClientSession(connector=connector) as session:
            tasks = [self.fetch(session, url) for url in self.urls]
            await asyncio.gather(*tasks)


class Hosts(AbstractResolver):
    """The session's own table of names: no DNS, as in taal."""

    def __init__(self, table):
        self.table = table

    async def resolve(self, host, port=0, family=socket.AF_INET):
        address, real_port = self.table[host]
        return [{"hostname": host, "host": address, "port": real_port,
                 "family": socket.AF_INET, "proto": 0, "flags": 0}]

    async def close(self):
        pass


async def main():
    server = await asyncio.start_server(api_client.handle, "127.0.0.1", 0)
    down = socket.socket()
    down.bind(("127.0.0.1", 0))
    hosts = Hosts({"api.example": ("127.0.0.1", server.sockets[0].getsockname()[1]),
                   "down.example": ("127.0.0.1", down.getsockname()[1])})
    await APIClient(api_client.URLS).run(hosts)
    down.close()
    server.close()


if __name__ == "__main__":
    asyncio.run(main())
