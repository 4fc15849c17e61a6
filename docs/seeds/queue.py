# The Python twin of chapters/03_semaphore/examples/queue.c.
import asyncio

async def producer(q, loop):
    for job in range(1, 7):
        await q.put(job)
        print(f"{loop.time() - START:.1f} s: put job {job} (queue holds {q.qsize()})")
    for _ in range(2):
        await q.put(None)  # one "no more jobs" for each consumer

async def consumer(q, loop, name, seconds):
    while True:
        job = await q.get()
        if job is None:
            q.task_done()
            return
        print(f"{loop.time() - START:.1f} s: {name} starts job {job}")
        await asyncio.sleep(seconds)
        q.task_done()

START = 0.0

async def main():
    global START
    loop = asyncio.get_running_loop()
    START = loop.time()
    q = asyncio.Queue(maxsize=2)
    workers = [asyncio.create_task(consumer(q, loop, "fast", 1)),
               asyncio.create_task(consumer(q, loop, "slow", 2))]
    await producer(q, loop)
    await q.join()
    print(f"{loop.time() - START:.1f} s: join() returns: every job is done")
    await asyncio.gather(*workers)

asyncio.run(main())
