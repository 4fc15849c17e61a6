"""idle.py -- the Python twin of idle.c: N tasks sleep T seconds each; the
CPU time used should be close to zero. Usage: idle.py [N [T]]."""
import asyncio
import sys
import time


async def sleeper(t):
    await asyncio.sleep(t)


async def main(n, t):
    cpu = time.process_time()
    start = time.perf_counter_ns()
    await asyncio.gather(*(sleeper(t) for _ in range(n)))
    wall = (time.perf_counter_ns() - start) / 1e9
    cpu = time.process_time() - cpu
    print(f"cpu_s {cpu:.6g} s")
    print(f"cpu_percent {100 * cpu / wall if wall > 0 else 0:.6g} %")
    print(f"wall_s {wall:.6g} s")


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    t = float(sys.argv[2]) if len(sys.argv) > 2 else 2.0
    print(f"# idle: {n} tasks sleeping {t:g} s each")
    asyncio.run(main(n, t))
