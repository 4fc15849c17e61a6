"""memory.py -- the Python twin of memory.c: N tasks all await one future;
the growth of the peak RSS per task is what a pending task costs.
Usage: memory.py [N]."""
import asyncio
import resource
import sys


def maxrss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


async def waiter(gate, state):
    await gate
    state["finished"] += 1


async def main(n):
    gate = asyncio.get_running_loop().create_future()
    state = {"finished": 0}
    before = maxrss_bytes()
    for _ in range(n):
        asyncio.create_task(waiter(gate, state))
    await asyncio.sleep(0)
    print(f"bytes_per_pending_task {(maxrss_bytes() - before) / n:.6g} B")
    gate.set_result(None)
    await asyncio.sleep(0)
    if state["finished"] != n:
        sys.exit(f"memory.py: {state['finished']} of {n} waiters finished")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    print(f"# memory: {n} pending tasks")
    asyncio.run(main(n))
