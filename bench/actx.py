"""actx.py -- the Python twin of actx.c: (a) N `async with` blocks of a
context manager whose __aenter__ and __aexit__ return at once; (b) N
`async with sem` blocks on an uncontended asyncio.Semaphore.
Usage: actx.py [N]."""
import asyncio
import sys
import time


class Nothing:
    async def __aenter__(self):
        return self

    async def __aexit__(self, exc_type, exc, tb):
        return False


async def main(n):
    count = 0
    nothing = Nothing()
    start = time.perf_counter_ns()
    for _ in range(n):
        async with nothing:
            count += 1
    print(f"with_ns {(time.perf_counter_ns() - start) / n:.6g} ns")
    sem = asyncio.Semaphore(1)
    start = time.perf_counter_ns()
    for _ in range(n):
        async with sem:
            count -= 1
    print(f"sem_with_ns {(time.perf_counter_ns() - start) / n:.6g} ns")
    assert count == 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    print(f"# actx: {n} blocks of a coroutine manager, {n} of a semaphore")
    asyncio.run(main(n))
