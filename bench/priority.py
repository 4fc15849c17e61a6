"""priority.py -- the Python twin of priority.c, as far as there is one:
asyncio has no priorities, so it runs only the plain FIFO ways: one task
doing M asyncio.sleep(0) yields (fifo), and K tasks doing M/K each
(fifo_k). The C side's spread and aging ways have no twin.
Usage: priority.py [M [K]]."""
import asyncio
import sys
import time


async def yielder(m):
    for _ in range(m):
        await asyncio.sleep(0)


async def way(name, m, tasks):
    each = m // tasks
    start = time.perf_counter_ns()
    await asyncio.gather(*(yielder(each) for _ in range(tasks)))
    print(f"{name}_ns {(time.perf_counter_ns() - start) / (each * tasks):.6g} ns")


def main(m, k):
    asyncio.run(way("fifo", m, 1))
    asyncio.run(way("fifo_k", m, k))


if __name__ == "__main__":
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    print(f"# priority: {m} sleep(0) yields each way; {k} tasks, no priorities")
    main(m, k)
