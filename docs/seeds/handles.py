# The Python twin of chapters/04_priority/examples/handles.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

def say(text):
    print(f"{at()}: {text}")

async def main():
    global START
    loop = asyncio.get_running_loop()
    START = loop.time()
    soon = loop.call_soon(say, "call_soon: the next iteration")
    never = loop.call_later(1, say, "call_later(1): cancelled, never printed")
    at2 = loop.call_at(START + 2, say, "call_at(2): at 2 s")
    second = None

    def first():
        say("the first of two timers due at 3 s cancels the second")
        second.cancel()

    loop.call_later(3, first)
    second = loop.call_later(3, say, "the second: due, but cancelled, never printed")
    print(f"call_at's timer is for {at2.when() - START:.1f} s")
    never.cancel()
    print(f"cancelled before it was due: {never.cancelled()}")
    await asyncio.sleep(4)
    soon.cancel()  # it ran long ago: harmless
    print(f"cancelled while due: {second.cancelled()}; after it ran: {soon.cancelled()}")

asyncio.run(main())
