# The seed's priority program (chapter 04), as it runs: the seed runs it
# with asyncio.run, so its own PriorityEventLoop is never used. The Python
# twin of chapters/04_priority/examples/seed_priority.c.
import asyncio

async def low_priority_task():
    print("Low priority task started")
    await asyncio.sleep(2)
    print("Low priority task finished")

async def high_priority_task():
    print("High priority task started")
    await asyncio.sleep(1)
    print("High priority task finished")

async def main():
    loop = asyncio.get_running_loop()
    loop.call_later(0.1, loop.create_task, low_priority_task())
    loop.call_later(0, loop.create_task, high_priority_task())
    await asyncio.sleep(3)

asyncio.run(main())
