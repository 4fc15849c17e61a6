# A task group: every child done; two children failing, which stops the
# rest; and the parent cancelled from outside.
# The Python twin of chapters/05_cancel/examples/taskgroup.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

class Failed(Exception):
    pass

async def fetch(name, seconds, fail=False):
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        print(f"{at()}: {name}: cancelled")
        raise
    if fail:
        print(f"{at()}: {name}: fails")
        raise Failed(f"{name} failed")
    print(f"{at()}: {name}: done")

async def parent():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(fetch("f", 5))
        tg.create_task(fetch("g", 5))
        await asyncio.sleep(10)

async def main():
    global START
    START = asyncio.get_running_loop().time()
    async with asyncio.TaskGroup() as tg:
        tg.create_task(fetch("a", 1))
        tg.create_task(fetch("b", 2))
    print(f"{at()}: group 1: every child is done")

    try:
        async with asyncio.TaskGroup() as tg:
            tg.create_task(fetch("c", 1, fail=True))
            tg.create_task(fetch("d", 1, fail=True))
            tg.create_task(fetch("e", 5))
            try:
                await asyncio.sleep(10)
            except asyncio.CancelledError:
                print(f"{at()}: group 2's body: cancelled by the group")
                raise
    except* Failed as group:
        for error in group.exceptions:
            print(f"{at()}: group 2: {error}")
    print(f"{at()}: main: cancelling() is {asyncio.current_task().cancelling()}")

    task = asyncio.create_task(parent())
    await asyncio.sleep(1)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print(f"{at()}: group 3: its parent was cancelled from outside, "
              f"and so were its children")

asyncio.run(main())
