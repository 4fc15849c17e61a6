# shield: cancelling the outer await leaves the inner operation running.
# The Python twin of chapters/05_cancel/examples/shield.c.
import asyncio

START = 0.0

def at():
    return f"{asyncio.get_running_loop().time() - START:.1f} s"

class CardDeclined(Exception):
    pass

async def payment(card):
    print(f"{at()}: payment with the {card}: charging it (2 s)")
    await asyncio.sleep(2)
    if card == "old card":
        raise CardDeclined("card declined")
    print(f"{at()}: payment with the {card}: done")
    return "receipt 17"

async def checkout(payment_task):
    try:
        await asyncio.shield(payment_task)
    except asyncio.CancelledError:
        print(f"{at()}: checkout: cancelled; the payment goes on")
        raise

async def main():
    global START
    START = asyncio.get_running_loop().time()
    pay = asyncio.create_task(payment("new card"))
    check = asyncio.create_task(checkout(pay))
    await asyncio.sleep(1)
    print(f"{at()}: main: cancels the checkout")
    check.cancel()
    try:
        await check
    except asyncio.CancelledError:
        print(f"{at()}: main: the checkout ended cancelled")
    receipt = await pay
    print(f"{at()}: main: the payment went through all the same: {receipt}")

    pay = asyncio.create_task(payment("old card"))
    try:
        await asyncio.shield(pay)
    except CardDeclined as e:
        print(f"{at()}: main: the shield passed the failure on: {e}")

asyncio.run(main())
