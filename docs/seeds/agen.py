# An async generator left early and closed at once (chapter 06): what
# contextlib.aclosing() gives, and what taal's `async for` always does.
# The Python twin of chapters/06_aiter_actx/examples/agen.c.
import asyncio
from contextlib import aclosing

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

async def ticker(n):
    try:
        for i in range(1, n + 1):
            await asyncio.sleep(1)
            print(f"{at()}: ticker: tick {i}")
            yield i
    finally:
        print(f"{at()}: ticker: cleanup, closing its connection (0.5 s)")
        await asyncio.sleep(0.5)
        print(f"{at()}: ticker: closed")

async def main():
    global START
    START = asyncio.get_running_loop().time()
    async with aclosing(ticker(10)) as ticks:
        async for i in ticks:
            print(f"{at()}: main: got {i}")
            if i == 3:
                break
    print(f"{at()}: main: after the loop")

asyncio.run(main())
