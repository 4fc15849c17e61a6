# The Python twin of chapters/03_semaphore/examples/lock.c.
import asyncio

counter = 0

async def add(lock):
    global counter
    for _ in range(3):
        if lock is None:
            value = counter
            await asyncio.sleep(0)  # another task runs here...
            counter = value + 1     # ...and its addition is lost
        else:
            async with lock:
                value = counter
                await asyncio.sleep(0)
                counter = value + 1

async def race(lock):
    global counter
    counter = 0
    await asyncio.gather(add(lock), add(lock), add(lock))
    return counter

async def holder(lock, name, again):
    async with lock:
        print(f"{name} holds the lock")
        await asyncio.sleep(1)
    if again:
        print(f"{name} released it: locked() is {lock.locked()}")
        async with lock:
            print(f"{name} holds the lock")

async def main():
    print("-- three tasks add 1 three times each, with an await in between --")
    print(f"without a lock: counter = {await race(None)}, not 9")
    print(f"with a lock: counter = {await race(asyncio.Lock())}")
    print("-- release() hands the lock to the first task waiting --")
    lock = asyncio.Lock()
    await asyncio.gather(holder(lock, "a", True), holder(lock, "b", False),
                         holder(lock, "c", False))

asyncio.run(main())
