"""timeout.py -- the Python twin of timeout.c: an operation of one yield,
awaited M times four ways: bare, in asyncio.timeout(10), as a task, and as
a task in asyncio.wait_for(..., 10); ns per use each way.
Usage: timeout.py [M]."""
import asyncio
import sys
import time


async def op():
    await asyncio.sleep(0)


async def main(m):
    start = time.perf_counter_ns()
    for _ in range(m):
        await op()
    print(f"bare_ns {(time.perf_counter_ns() - start) / m:.6g} ns")

    start = time.perf_counter_ns()
    for _ in range(m):
        async with asyncio.timeout(10):
            await op()
    print(f"scope_ns {(time.perf_counter_ns() - start) / m:.6g} ns")

    start = time.perf_counter_ns()
    for _ in range(m):
        await asyncio.create_task(op())
    print(f"task_ns {(time.perf_counter_ns() - start) / m:.6g} ns")

    start = time.perf_counter_ns()
    for _ in range(m):
        await asyncio.wait_for(asyncio.create_task(op()), 10)
    print(f"wait_for_ns {(time.perf_counter_ns() - start) / m:.6g} ns")


if __name__ == "__main__":
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    print(f"# timeout: an operation of one yield, awaited {m} times each way")
    asyncio.run(main(m))
