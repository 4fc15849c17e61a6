"""seed_api_client.py -- the practical example of the seed (000_*.txt), as it
was meant to read. The machine translation lost the double underscores
(`def init`, `if name == "main"`) and wrapped the URLs in Markdown; those
are repaired, and nothing else. It needs aiohttp and the internet, neither
of which this book uses: chapters/07_io/examples/api_client.c is this
program on taal, against a server of its own, and api_client.py its twin on
asyncio streams."""
import asyncio
import aiohttp


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

    async def run(self):
        async with aiohttp.ClientSession() as session:
            tasks = [self.fetch(session, url) for url in self.urls]
            await asyncio.gather(*tasks)


if __name__ == "__main__":
    urls = ["https://example.com", "https://httpbin.org/get",
            "https://jsonplaceholder.typicode.com/posts"]
    client = APIClient(urls)
    asyncio.run(client.run())
