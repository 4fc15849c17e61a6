"""agen.py -- the Python twin of agen.c: (a) N values from an async
generator that yields without awaiting, consumed by `async for`; (b) N
values from an async iterator whose __anext__ returns at once.
Usage: agen.py [N]."""
import asyncio
import sys
import time


async def count(n):
    for i in range(n):
        yield i


class Range:
    def __init__(self, stop):
        self.start, self.stop = 0, stop

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.start >= self.stop:
            raise StopAsyncIteration
        value = self.start
        self.start += 1
        return value


async def main(n):
    total = 0
    start = time.perf_counter_ns()
    async for v in count(n):
        total += v
    print(f"agen_ns {(time.perf_counter_ns() - start) / n:.6g} ns")
    start = time.perf_counter_ns()
    async for v in Range(n):
        total -= v
    print(f"anext_ns {(time.perf_counter_ns() - start) / n:.6g} ns")
    assert total == 0


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    print(f"# agen: {n} values from an async generator, {n} from an __anext__")
    asyncio.run(main(n))
