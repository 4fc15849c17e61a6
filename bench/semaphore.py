"""semaphore.py -- the Python twin of semaphore.c: T tasks share a
semaphore of V permits; each acquires it, yields once while holding it,
and releases it, R rounds in all. Usage: semaphore.py [R [T [V]]]."""
import asyncio
import sys
import time


async def user(sem, rounds):
    for _ in range(rounds):
        await sem.acquire()
        await asyncio.sleep(0)
        sem.release()


async def main(rounds, tasks, permits):
    sem = asyncio.Semaphore(permits)
    each = rounds // tasks
    users = [asyncio.create_task(user(sem, each)) for _ in range(tasks)]
    start = time.perf_counter_ns()
    await asyncio.gather(*users)
    print(f"round_ns {(time.perf_counter_ns() - start) / (each * tasks):.6g} ns")


if __name__ == "__main__":
    r = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    t = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    v = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    r = max(r, t)
    print(f"# semaphore: {t} tasks share {v} permits, {r // t * t} rounds in all")
    asyncio.run(main(r, t, v))
