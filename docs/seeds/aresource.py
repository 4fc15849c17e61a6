# The seed's AsyncResource (chapter 06): an async context manager whose
# enter and exit await. The Python twin of
# chapters/06_aiter_actx/examples/aresource.c.
import asyncio

class AsyncResource:
    async def __aenter__(self):
        print("Acquiring resource")
        await asyncio.sleep(1)  # Simulate async acquisition
        return self
    async def __aexit__(self, exc_type, exc, tb):
        print("Releasing resource")
        await asyncio.sleep(1)  # Simulate async release

async def main():
    loop = asyncio.get_running_loop()
    start = loop.time()
    async with AsyncResource() as resource:
        print("Using resource")
        await asyncio.sleep(1)
    print(f"{loop.time() - start:.1f} s: done")

asyncio.run(main())
