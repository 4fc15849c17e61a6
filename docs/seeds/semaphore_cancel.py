# The seed's semaphore loses a permit to a waiter cancelled after it was
# woken; a semaphore that hands the permit over does not.
# The Python twin of chapters/05_cancel/examples/semaphore_cancel.c, which
# prints three lines more: taal's deadlock report, where asyncio's loop
# just waits. This twin waits a second, then gives up with a timeout.
import asyncio

class CustomSemaphore:
    """The seed's semaphore (docs/seeds/seed_semaphore.py)."""
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

async def holder(sem):
    await sem.acquire()
    print("A takes the permit")
    await asyncio.sleep(1)
    sem.release()
    print(f"A releases it: value {sem._value}, B woken")

async def waiter(sem, name):
    try:
        await sem.acquire()
    except asyncio.CancelledError:
        print(f"{name}: cancelled")
        raise
    print(f"{name} takes the permit")
    sem.release()

async def scenario(sem):
    a = asyncio.create_task(holder(sem))
    b = asyncio.create_task(waiter(sem, "B"))
    c = asyncio.create_task(waiter(sem, "C"))
    await asyncio.sleep(0)  # A takes the permit, B and C wait: then main sleeps
    await asyncio.sleep(1)
    print("main cancels B")
    b.cancel()
    for task in (a, b):
        try:
            await task
        except asyncio.CancelledError:
            pass
    try:
        async with asyncio.timeout(1):  # asyncio would wait for ever
            await c
        print(f"main: C is done, and the permit is free (value {sem._value})")
    except TimeoutError:
        print(f"main: gave up on C; the permit was free all along (value {sem._value})")

async def main():
    print("-- the seed's semaphore: B is cancelled after release() woke it --")
    await scenario(CustomSemaphore(1))
    print("-- the same with a semaphore that hands the permit over --")
    await scenario(asyncio.Semaphore(1))

asyncio.run(main())
