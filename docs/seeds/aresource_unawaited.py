# The Hindi copy of the seed's AsyncResource (chapter 06): asyncio.sleep(1)
# without `await`, so nothing sleeps and the coroutine is dropped unrun.
# Warnings are printed on stdout as "warning: ...", where the C program,
# chapters/06_aiter_actx/examples/aresource_unawaited.c, prints its reports.
import asyncio
import warnings

def show(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}")

warnings.showwarning = show

class AsyncResource:
    async def __aenter__(self):
        print("Acquiring resource")
        asyncio.sleep(1)  # the seed's mistake: no await
        return self
    async def __aexit__(self, exc_type, exc, tb):
        print("Releasing resource")
        asyncio.sleep(1)  # again

async def main():
    loop = asyncio.get_running_loop()
    start = loop.time()
    async with AsyncResource() as resource:
        print("Using resource")
        await asyncio.sleep(1)
    print(f"{loop.time() - start:.1f} s: done")

asyncio.run(main())
