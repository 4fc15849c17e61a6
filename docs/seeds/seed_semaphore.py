# The Python twin of chapters/03_semaphore/examples/seed_semaphore.c: the
# seed's CustomSemaphore next to asyncio.Semaphore in one scenario.
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

async def greedy(sem):
    for round in range(1, 4):
        await sem.acquire()
        print(f"A takes it (round {round})")
        await asyncio.sleep(1)
        sem.release()

async def patient(sem):
    await sem.acquire()
    print("B takes it")
    sem.release()

async def scenario(sem):
    await asyncio.gather(greedy(sem), patient(sem))

print("-- the seed's semaphore: B waits first, A takes it back every time --")
asyncio.run(scenario(CustomSemaphore(1)))
print("-- asyncio.Semaphore --")
asyncio.run(scenario(asyncio.Semaphore(1)))
