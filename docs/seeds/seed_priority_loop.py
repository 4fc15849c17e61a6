# The seed's PriorityEventLoop (chapter 04), restored to English from the
# article's Hindi text, faithfully, mistakes included:
#   - call_later() and call_soon() return nothing and schedule nothing;
#   - is_running() answers "not stopping": True for a loop that never ran;
#   - run_until_complete() drops the future's result;
#   - the "priority" is only a delay (0 s for high, 0.1 s for low);
#   - main() runs under asyncio.run(), so this class is never used at all.
# Where the translation lost words, the restoration takes the reading the
# rest of the article supports: time() returns the clock ("return self" in
# the text), and run_forever() loops while not stopping, as the article's
# CustomEventLoop does ("while self." in the text).
# Run it with `python3 seed_priority_loop.py`: it prints the four lines of
# docs/seeds/seed_priority.py, on asyncio's own loop (docs/04_priority.md).
import asyncio
import heapq

class PriorityEventLoop(asyncio.AbstractEventLoop):
    def __init__(self):
        self._ready = []
        self._stopping = False
        self._clock = 0

    def call_at(self, when, callback, *args, context=None):
        handle = asyncio.Handle(callback, args, self, context)
        heapq.heappush(self._ready, (when, handle))
        return handle

    def call_later(self, delay, callback, *args, context=None):
        return

    def call_soon(self, callback, *args, context=None):
        return

    def time(self):
        return self._clock

    def stop(self):
        self._stopping = True

    def is_running(self):
        return not self._stopping

    def run_forever(self):
        while not self._stopping:
            self._run_once()

    def _run_once(self):
        if not self._ready:
            return
        when, handle = heapq.heappop(self._ready)
        self._clock = when
        handle._run()

    def create_task(self, coro):
        return asyncio.Task(coro, loop=self)

    def run_until_complete(self, future):
        asyncio.futures._chain_future(future, self.create_future())
        self.run_forever()
        if not future.done():
            raise RuntimeError('Event loop stopped before Future completed.')
        future.result()

    def create_future(self):
        return asyncio.Future(loop=self)

async def low_priority_task():
    print("Low priority task started")
    await asyncio.sleep(2)
    print("Low priority task finished")

async def high_priority_task():
    print("High priority task started")
    await asyncio.sleep(1)
    print("High priority task finished")

async def main():
    loop = asyncio.get_event_loop()
    loop.call_later(0.1, loop.create_task, low_priority_task())
    loop.call_later(0, loop.create_task, high_priority_task())
    await asyncio.sleep(3)

asyncio.run(main())
