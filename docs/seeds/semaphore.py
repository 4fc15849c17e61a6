# The seed's semaphore program (chapter 03). The seed's text is cut off
# after `while self._value`; this is the faithful completion the tutorial
# discusses (docs/03_semaphore.md), with the __aenter__/__aexit__ that
# `async with` needs. Its Python twin is chapters/03_semaphore/examples/semaphore.c.
import asyncio

class CustomSemaphore:
    """The seed's semaphore, completed faithfully (chapter 03)."""
    def __init__(self, value=1):
        self._value = value
        self._waiters = []
    async def acquire(self):
        while self._value <= 0:
            fut = asyncio.get_running_loop().create_future()
            self._waiters.append(fut)
            await fut
        self._value -= 1
        return True
    def release(self):
        self._value += 1
        if self._waiters:
            waiter = self._waiters.pop(0)
            if not waiter.done():
                waiter.set_result(None)
    async def __aenter__(self):
        await self.acquire()
        return self
    async def __aexit__(self, exc_type, exc, tb):
        self.release()

async def worker(sem, i):
    async with sem:
        print(f"Worker {i} acquired the semaphore")
        await asyncio.sleep(1)
        print(f"Worker {i} released the semaphore")

async def main():
    sem = CustomSemaphore(2)
    await asyncio.gather(*(worker(sem, i) for i in range(5)))

asyncio.run(main())
