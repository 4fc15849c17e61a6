# The Python twin of chapters/02_custom_loop/examples/waiting.c: CPython 3.12
# and 3.13 print what the tutorial shows for the C program.
import asyncio

async def fetch(name, seconds):
    await asyncio.sleep(seconds)
    if name == "broken":
        raise ConnectionRefusedError("connection refused")
    return name

def names(tasks):
    return ", ".join(sorted(t.get_name() for t in tasks)) or "-"

async def main():
    loop = asyncio.get_running_loop()
    start = loop.time()
    jobs = [("broken", 2), ("fast", 1), ("medium", 2.5), ("slow", 3)]
    tasks = [asyncio.create_task(fetch(n, s), name=n) for n, s in jobs]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    print(f"{loop.time() - start:.1f} s: first completed: done {names(done)}; pending {names(pending)}")
    done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
    print(f"{loop.time() - start:.1f} s: first exception: done {names(done)}; pending {names(pending)}")
    for t in done:
        if t.exception() is not None:
            print(f"  {t.get_name()} failed: {t.exception()}")
    done, pending = await asyncio.wait(pending, timeout=0.2)
    print(f"{loop.time() - start:.1f} s: after a 0.2 s timeout: done {names(done)}; pending {names(pending)}")
    done, pending = await asyncio.wait(pending)
    print(f"{loop.time() - start:.1f} s: all completed: done {names(done)}; pending {names(pending)}")

asyncio.run(main())
