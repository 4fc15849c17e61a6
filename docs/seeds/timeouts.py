# wait_for, and nested timeout scopes, one of them rescheduled.
# The Python twin of chapters/05_cancel/examples/timeouts.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

async def operation(name, seconds):
    try:
        await asyncio.sleep(seconds)
        return f"{name} done"
    except asyncio.CancelledError:
        print(f"{at()}: {name}: cancelled; cleaning up (0.5 s)")
        await asyncio.sleep(0.5)
        print(f"{at()}: {name}: cleaned up")
        raise

async def stubborn():
    try:
        await asyncio.sleep(5)
    except asyncio.CancelledError:
        print(f"{at()}: stubborn: cancelled, and returns 42 all the same")
    return 42

async def main():
    global START
    loop = asyncio.get_running_loop()
    START = loop.time()

    result = await asyncio.wait_for(operation("quick", 1), timeout=2)
    print(f"{at()}: wait_for: {result}")

    try:
        await asyncio.wait_for(operation("slow", 5), timeout=1)
    except TimeoutError:
        print(f"{at()}: wait_for: timed out, once the cleanup was over")

    result = await asyncio.wait_for(stubborn(), timeout=1)
    print(f"{at()}: wait_for: {result}, no timeout")

    try:
        async with asyncio.timeout(1) as outer:
            try:
                async with asyncio.timeout(3) as inner:
                    await asyncio.sleep(10)
            except asyncio.CancelledError:
                print(f"{at()}: inner scope: cancelled, not by it "
                      f"(expired: {inner.expired()})")
                raise
    except TimeoutError:
        print(f"{at()}: outer scope: timed out (expired: {outer.expired()})")

    try:
        async with asyncio.timeout(5) as outer:
            async with asyncio.timeout(1) as inner:
                print(f"{at()}: inner scope: deadline moved from 1 s to 3 s from now")
                inner.reschedule(loop.time() + 3)
                await asyncio.sleep(10)
    except TimeoutError:
        print(f"{at()}: timed out: the inner scope "
              f"(expired: {inner.expired()}; the outer: {outer.expired()})")

asyncio.run(main())
