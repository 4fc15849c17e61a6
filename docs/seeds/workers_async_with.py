# The seed's five workers (chapter 06), with asyncio's own Semaphore and
# `async with`. The Python twin of
# chapters/06_aiter_actx/examples/workers_async_with.c; it prints what
# semaphore.py (chapter 03) prints.
import asyncio

async def worker(sem, i):
    async with sem:
        print(f"Worker {i} acquired the semaphore")
        await asyncio.sleep(1)
        print(f"Worker {i} released the semaphore")

async def main():
    sem = asyncio.Semaphore(2)
    await asyncio.gather(*(worker(sem, i) for i in range(5)))

asyncio.run(main())
