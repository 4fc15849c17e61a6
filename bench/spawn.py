"""spawn.py -- the Python twin of spawn.c: create N tasks that return at
once, gather them, let them go. Usage: spawn.py [N [BATCHES]]."""
import asyncio
import statistics
import sys
import time


async def nop():
    return None


async def main(n, batches):
    ns = []
    for _ in range(batches):
        start = time.perf_counter_ns()
        tasks = [asyncio.create_task(nop()) for _ in range(n)]
        await asyncio.gather(*tasks)
        del tasks
        ns.append((time.perf_counter_ns() - start) / n)
    print(f"cold_ns_per_task {ns[0]:.6g} ns")
    print(f"warm_ns_per_task {statistics.median(ns[1:]):.6g} ns")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
    batches = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print(f"# spawn: {n} tasks per batch, {batches} batches")
    asyncio.run(main(n, batches))
