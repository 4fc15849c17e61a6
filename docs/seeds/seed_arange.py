# The seed's AsyncRange as the seed wrote it (chapter 06): `self.start =
# self.step` lost its `+`, so the range never ends. A timeout stops it.
# The Python twin of chapters/06_aiter_actx/examples/seed_arange.c.
import asyncio

class AsyncRange:
    def __init__(self, start, stop, step=1):
        self.start, self.stop, self.step = start, stop, step
    def __aiter__(self):
        return self
    async def __anext__(self):
        if self.start >= self.stop:
            raise StopAsyncIteration
        value = self.start
        self.start = self.step  # the seed's line
        await asyncio.sleep(0.1)
        return value

async def main():
    loop = asyncio.get_running_loop()
    start = loop.time()
    try:
        async with asyncio.timeout(1.05):
            async for i in AsyncRange(0, 5):
                print(i)
        print(f"{loop.time() - start:.1f} s: the range ended")
    except TimeoutError:
        print(f"{loop.time() - start:.1f} s: stopped by the timeout: the range never ends")

asyncio.run(main())
