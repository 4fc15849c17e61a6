# What CPython does with an async generator left early, without
# contextlib.aclosing() (chapter 06): agen.py's ticker, three ways.
#   gc:      the `async for` held the only reference, so the generator is
#            collected at the `break`; the loop's finalizer hook
#            (sys.set_asyncgen_hooks) schedules its aclose() as a new task,
#            which runs later, interleaved with main.
#   held:    a global keeps it alive: it is closed only when asyncio.run()
#            ends, by loop.shutdown_asyncgens().
#   dropped: as gc, but main returns at once, and the aclose() task meets
#            asyncio.run()'s end.
# Run: python agen_gc.py [gc|held|dropped]...
import asyncio
import sys

START = 0.0
KEPT = None

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
        try:
            await asyncio.sleep(0.5)
        except BaseException as e:
            print(f"{at()}: ticker: cleanup interrupted by {type(e).__name__}")
            raise
        print(f"{at()}: ticker: closed")

async def main(way):
    global START, KEPT
    START = asyncio.get_running_loop().time()
    if way == "held":
        KEPT = ticker(10)
    async for i in KEPT if way == "held" else ticker(10):
        print(f"{at()}: main: got {i}")
        if i == 3:
            break
    print(f"{at()}: main: after the loop")
    if way != "dropped":
        await asyncio.sleep(1)
        print(f"{at()}: main: returns")

for way in sys.argv[1:] or ["gc", "held", "dropped"]:
    print(f"-- {way} --", flush=True)
    asyncio.run(main(way))
    KEPT = None
