# One async context manager, and its exit on every path (chapter 06): a
# body that ends normally, an error the exit swallows, an error that goes
# on, and a cancellation. The Python twin of
# chapters/06_aiter_actx/examples/exit_paths.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

class PaperError(Exception):
    pass

def describe(exc):
    if exc is None:
        return "no error"
    if isinstance(exc, asyncio.CancelledError):
        return "a cancellation"
    return f"an error: {exc}"

class Printer:
    def __init__(self, name, swallow=False):
        self.name, self.swallow = name, swallow
    async def __aenter__(self):
        print(f"{at()}: {self.name}: enter")
        return self
    async def __aexit__(self, exc_type, exc, tb):
        swallowing = self.swallow and exc_type is PaperError
        print(f"{at()}: {self.name}: exit, the body ended with "
              f"{describe(exc)}{'; it swallows it' if swallowing else ''}")
        await asyncio.sleep(0.5)  # releasing takes time, whatever happened
        print(f"{at()}: {self.name}: released")
        return swallowing

async def use(printer, fail, nap):
    async with printer:
        print(f"{at()}: body: printing")
        await asyncio.sleep(nap)
        if fail:
            print(f"{at()}: body: out of paper")
            raise PaperError("out of paper")
        print(f"{at()}: body: done")

PATHS = [
    ("the body ends normally", False, False, False, 0.5),
    ("the body fails, and the exit swallows the error", True, True, False, 0.5),
    ("the body fails, and the error goes on", False, True, False, 0.5),
    ("the body is cancelled", False, False, True, 10),
]

async def main():
    global START
    START = asyncio.get_running_loop().time()
    for i, (title, swallow, fail, cancel, nap) in enumerate(PATHS):
        print(f"-- {title} --")
        printer = Printer("lenient printer" if i == 1 else "printer", swallow)
        task = asyncio.create_task(use(printer, fail, nap))
        if cancel:
            await asyncio.sleep(0.5)
            print(f"{at()}: main: cancels the task")
            task.cancel()
        try:
            await task
            outcome = "ok"
        except PaperError as e:
            outcome = str(e)
        except asyncio.CancelledError:
            outcome = "cancelled"
        print(f"{at()}: main: the block ended: {outcome}")

asyncio.run(main())
