# The seed's cancellable operation (chapter 05) as the Hindi article prints
# it: its `raise` became a comment ("# रद्द करें Cancellederror", "# cancel
# CancelledError"), so the operation swallows the cancellation. Its strings
# are in English, as in seeds/cancel.py. CPython 3.12 prints two lines: the
# task returns None, and main's `except` never runs.
import asyncio

async def cancellable_operation():
    try:
        print("Operation started")
        await asyncio.sleep(5)
        print("Operation completed")
    except asyncio.CancelledError:
        print("Operation was cancelled")
        # Perform any necessary cleanup
        # Cancel CancelledError

async def main():
    task = asyncio.create_task(cancellable_operation())
    await asyncio.sleep(2)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        print("Main: task was cancelled")

asyncio.run(main())
