# Cleanup that awaits, and a second cancel that arrives during it.
# The Python twin of chapters/05_cancel/examples/cleanup.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

async def writer(name):
    try:
        print(f"{at()}: {name}: writing")
        await asyncio.sleep(10)
        print(f"{at()}: {name}: wrote everything")
    except asyncio.CancelledError:
        print(f"{at()}: {name}: cancelled; flushing what it wrote (1 s)")
        try:
            await asyncio.sleep(1)
            print(f"{at()}: {name}: flushed")
        except asyncio.CancelledError:
            print(f"{at()}: {name}: cancelled again during the flush: gives up")
        raise

async def main():
    global START
    START = asyncio.get_running_loop().time()
    a = asyncio.create_task(writer("A"))
    b = asyncio.create_task(writer("B"))
    await asyncio.sleep(1)
    print(f"{at()}: main: cancels A and B")
    a.cancel()
    b.cancel()
    await asyncio.sleep(0.5)
    print(f"{at()}: main: cancels B again")
    b.cancel()
    for name, task in (("A", a), ("B", b)):
        try:
            await task
        except asyncio.CancelledError:
            print(f"{at()}: main: {name} ended cancelled "
                  f"(cancel requests: {task.cancelling()})")

asyncio.run(main())
