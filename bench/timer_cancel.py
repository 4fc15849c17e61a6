"""timer_cancel.py -- the Python twin of timer_cancel.c: N timers armed
with loop.call_later at seeded random delays in [0, D) seconds, every other
one cancelled with TimerHandle.cancel() before it fires; the cost per
timer is (wall - D) / N, and the CPU time per timer.
Usage: timer_cancel.py [N [D]]."""
import asyncio
import random
import sys
import time


async def main(n, d):
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    left = n // 2

    def fired():
        nonlocal left
        left -= 1
        if left == 0:
            done.set_result(None)

    rng = random.Random(42)
    cpu = time.process_time()
    start = time.perf_counter_ns()
    handles = [loop.call_later(rng.random() * d, fired) for _ in range(n)]
    armed = time.perf_counter_ns()
    for h in handles[::2]:
        h.cancel()
    cancelled = time.perf_counter_ns()
    await done
    wall = (time.perf_counter_ns() - start) / 1e9
    print(f"arm_ns {(armed - start) / n:.6g} ns")
    print(f"cancel_ns {(cancelled - armed) / ((n + 1) // 2):.6g} ns")
    print(f"overhead_ns_per_timer {(wall - d) / n * 1e9:.6g} ns")
    print(f"cpu_ns_per_timer {(time.process_time() - cpu) / n * 1e9:.6g} ns")
    print(f"wall_s {wall:.6g} s")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
    d = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    print(f"# timer_cancel: {n} timers, delays in [0, {d:g}) s, every other one cancelled")
    asyncio.run(main(n, d))
