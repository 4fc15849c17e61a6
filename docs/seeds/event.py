# The Python twin of chapters/03_semaphore/examples/event.c.
import asyncio

START = 0.0

def now():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

async def runner(event, name, arrive):
    await asyncio.sleep(arrive)
    print(f"{now()}: {name} waits for the start")
    await event.wait()
    print(f"{now()}: {name} runs")

async def starter(event):
    await asyncio.sleep(1)
    print(f"{now()}: the starter sets the event and clears it at once")
    event.set()
    event.clear()
    await asyncio.sleep(1)
    print(f"{now()}: the starter sets it again, and leaves it set")
    event.set()

async def main():
    global START
    START = asyncio.get_running_loop().time()
    event = asyncio.Event()
    await asyncio.gather(runner(event, "runner 1", 0), runner(event, "runner 2", 0),
                         runner(event, "runner 3", 0), runner(event, "the latecomer", 1.5),
                         runner(event, "the last one", 2.5), starter(event))

asyncio.run(main())
