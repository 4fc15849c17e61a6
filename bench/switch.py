"""switch.py -- the Python twin of switch.c: (a) one task doing M
asyncio.sleep(0) yields; (b) two tasks playing ping-pong through futures,
S switches in all. Usage: switch.py [M [S]]."""
import asyncio
import sys
import time


async def yielder(m):
    start = time.perf_counter_ns()
    for _ in range(m):
        await asyncio.sleep(0)
    print(f"yield_ns {(time.perf_counter_ns() - start) / m:.6g} ns")


class Box:
    def __init__(self, loop):
        self.loop = loop
        self.to_ping = loop.create_future()
        self.to_pong = loop.create_future()


async def ping(box, rounds):
    for _ in range(rounds):
        box.to_pong.set_result(None)
        await box.to_ping
        box.to_ping = box.loop.create_future()


async def pong(box, rounds):
    for _ in range(rounds):
        await box.to_pong
        box.to_pong = box.loop.create_future()
        box.to_ping.set_result(None)


async def main(m, s):
    await asyncio.create_task(yielder(m))
    box = Box(asyncio.get_running_loop())
    rounds = s // 2
    a = asyncio.create_task(ping(box, rounds))
    b = asyncio.create_task(pong(box, rounds))
    start = time.perf_counter_ns()
    await a
    await b
    print(f"pingpong_ns {(time.perf_counter_ns() - start) / (rounds * 2):.6g} ns")


if __name__ == "__main__":
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
    s = int(sys.argv[2]) if len(sys.argv) > 2 else m
    print(f"# switch: {m} sleep(0) yields, {s} ping-pong switches")
    asyncio.run(main(m, s))
