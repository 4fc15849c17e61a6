# The seed's first program, from ../shared/seeds/000_*.txt, as printed there
# (its indentation restored). Run as it is, it prints nothing: see below.
import asyncio

async def greet(name):
    await asyncio.sleep(1)
    print(f"नमस्ते, {name}!")

async def main():
    tasks = [greet("Alice"), greet("Bob"), greet("Charlie")]
    await asyncio.gather(*tasks)

if name == "main":
    asyncio.run(main())
