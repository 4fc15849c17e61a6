"""queue.py -- the Python twin of queue.c: one producer and one consumer
pass N items through an asyncio.Queue of M slots. Usage: queue.py [N [M]]."""
import os
import sys

# Run as a script, this file's folder is sys.path[0], and its name would
# shadow the standard library's queue module for everything imported after
# it (concurrent.futures imports queue): take the folder off the path first.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    sys.path.pop(0)

import asyncio  # noqa: E402
import time  # noqa: E402


async def producer(q, n):
    for i in range(n):
        await q.put(i + 1)


async def consumer(q, n):
    for i in range(n):
        if await q.get() != i + 1:
            raise RuntimeError("out of order")


async def main(n, slots):
    q = asyncio.Queue(maxsize=slots)
    sides = [asyncio.create_task(producer(q, n)), asyncio.create_task(consumer(q, n))]
    start = time.perf_counter_ns()
    await asyncio.gather(*sides)
    print(f"item_ns {(time.perf_counter_ns() - start) / n:.6g} ns")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    print(f"# queue: {n} items through a queue of {m} slots")
    asyncio.run(main(n, m))
