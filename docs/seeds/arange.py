# The seed's AsyncRange (chapter 06), with the `+` the seed lost put back.
# The Python twin of chapters/06_aiter_actx/examples/arange.c.
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
        self.start += self.step
        await asyncio.sleep(0.1)  # Simulate some async work
        return value

async def main():
    loop = asyncio.get_running_loop()
    start = loop.time()
    async for i in AsyncRange(0, 5):
        print(i)
    print(f"{loop.time() - start:.1f} s: done")

asyncio.run(main())
