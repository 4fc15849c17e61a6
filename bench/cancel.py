"""cancel.py -- the Python twin of cancel.c: N tasks sleep 10 s; all are
cancelled, then each is awaited; R rounds. Figures, the median of the
rounds: the cancel() calls per task, and cancel and await per task.
Usage: cancel.py [N [R]]."""
import asyncio
import statistics
import sys
import time


async def main(n, rounds):
    cancel_ns, total_ns = [], []
    for _ in range(rounds):
        tasks = [asyncio.create_task(asyncio.sleep(10)) for _ in range(n)]
        await asyncio.sleep(0)  # every task takes its first step, and sleeps
        start = time.perf_counter_ns()
        for t in tasks:
            t.cancel()
        cancelled = time.perf_counter_ns()
        for t in tasks:
            try:
                await t
            except asyncio.CancelledError:
                pass
        total_ns.append((time.perf_counter_ns() - start) / n)
        cancel_ns.append((cancelled - start) / n)
        tasks = None
    print(f"cancel_ns {statistics.median(cancel_ns):.6g} ns")
    print(f"cancel_await_ns_per_task {statistics.median(total_ns):.6g} ns")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    print(f"# cancel: {n} sleeping tasks cancelled and awaited, {rounds} rounds")
    asyncio.run(main(n, rounds))
