"""timers.py -- the Python twin of timers.c: N tasks each sleep a random
delay in [0, D) seconds; the cost per timer is (wall - D) / N.
Usage: timers.py [N [D]]."""
import asyncio
import random
import sys
import time


async def sleeper(delay, state):
    await asyncio.sleep(delay)
    state["remaining"] -= 1
    if state["remaining"] == 0:
        state["done"].set_result(None)


async def main(n, d):
    loop = asyncio.get_running_loop()
    state = {"remaining": n, "done": loop.create_future()}
    rng = random.Random(42)
    cpu = time.process_time()
    start = time.perf_counter_ns()
    tasks = [asyncio.create_task(sleeper(rng.random() * d, state)) for _ in range(n)]
    await state["done"]
    wall = (time.perf_counter_ns() - start) / 1e9
    del tasks
    print(f"overhead_ns_per_timer {(wall - d) / n * 1e9:.6g} ns")
    print(f"wall_s {wall:.6g} s")
    print(f"cpu_s {time.process_time() - cpu:.6g} s")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    d = float(sys.argv[2]) if len(sys.argv) > 2 else 0.5
    print(f"# timers: {n} timers, delays in [0, {d:g}) s")
    asyncio.run(main(n, d))
