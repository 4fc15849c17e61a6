# The seed's loop with its sleep fixed, so that the SleepHandle really reaches
# Task._step (chapter 02). Run it with `python3 seed_loop_fixed.py` beside
# seed_loop.py: now it sleeps its three seconds, busy-waiting through all of
# them (see docs/02_custom_loop.md).
import os

# Everything of the seed but its last lines: the loop, Task and SleepHandle.
with open(os.path.join(os.path.dirname(__file__), "seed_loop.py")) as seed:
    exec(seed.read().split("async def sleep")[0])


class AwaitableSleep(SleepHandle):
    def __await__(self):
        yield self  # hand the handle up to Task._step


def sleep(duration):
    return AwaitableSleep(duration)


async def example():
    print("Start")
    await sleep(1)
    print("After 1 second")
    await sleep(2)
    print("After 2 more seconds")
    return "Done"


loop = CustomEventLoop()
print(loop.run_until_complete(example()))
